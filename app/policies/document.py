"""Policy documents: the global one (named sets and the default) and a subject's selection.

    global:    {"sets": {"events": {"rules": [{"rule": ..., "severity": ..., "params": {...}}]}},
                "default": ["events"]}
    selection: {"use": ["events"], "rules": [...]}   ({"use": []} opts out)

Validation stops at the first problem and says what it is (the API answers 42250 with it):
a document is stored only if every rule is installed and every params object is valid, so
the registration path never meets a malformed policy, only, at worst, an uninstalled rule.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.policies.engine import RuleUse
from app.policies.rule import ERROR, SEVERITIES

if TYPE_CHECKING:
    from app.policies.catalogue import Catalogue

EMPTY_GLOBAL: dict[str, Any] = {"sets": {}, "default": []}


class PolicyDocumentError(ValueError):
    """A policy document that cannot be stored; the message names its first problem."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _object(value: Any, what: str, allowed: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise PolicyDocumentError(f"{what} must be a JSON object")
    unknown = [key for key in value if key not in allowed]
    if unknown:
        raise PolicyDocumentError(f'{what} has an unknown key "{unknown[0]}" (allowed: {", ".join(allowed)})')
    return value


def _names(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PolicyDocumentError(f"{what} must be a list of set names")
    return value


def _rules(value: Any, what: str, catalogue: Catalogue) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise PolicyDocumentError(f"{what} must be a list of rules")
    out = []
    for index, entry in enumerate(value):
        where = f"{what}[{index}]"
        entry = _object(entry, where, ("rule", "severity", "params"))
        name = entry.get("rule")
        if not isinstance(name, str):
            raise PolicyDocumentError(f'{where} needs a "rule" name')
        installed = catalogue.get(name)
        if installed is None:
            raise PolicyDocumentError(f'{where}: unknown rule "{name}"')
        severity = entry.get("severity", ERROR)
        if severity not in SEVERITIES:
            raise PolicyDocumentError(f'{where}: severity must be "error" or "warning", not {severity!r}')
        params = entry.get("params", {})
        if not isinstance(params, dict):
            raise PolicyDocumentError(f"{where}: params must be a JSON object")
        problem = next(iter(sorted(installed.validator.iter_errors(params), key=lambda e: list(e.path))), None)
        if problem is not None:
            at = "/".join(str(p) for p in problem.absolute_path)
            raise PolicyDocumentError(f'{where}: params of "{name}" are invalid'
                                      f'{" at " + at if at else ""}: {problem.message}')
        validate = getattr(installed.rule, "validate", None)
        semantic = validate(params) if validate is not None else None
        if semantic:
            raise PolicyDocumentError(f"{where}: {semantic}")
        out.append({"rule": name, "severity": severity, "params": params})
    return out


def validate_global(document: Any, catalogue: Catalogue) -> dict[str, Any]:
    """The document as stored (severity and params filled in)."""
    document = _object(document, "the policy document", ("sets", "default"))
    sets_in = document.get("sets", {})
    if not isinstance(sets_in, dict):
        raise PolicyDocumentError("sets must be a JSON object of named sets")
    sets = {}
    for name, body in sets_in.items():
        if not name:
            raise PolicyDocumentError("a set needs a non-empty name")
        body = _object(body, f'set "{name}"', ("rules",))
        sets[name] = {"rules": _rules(body.get("rules", []), f'set "{name}" rules', catalogue)}
    default = _names(document.get("default", []), "default")
    unknown_sets(default, sets, "default")
    return {"sets": sets, "default": default}


def validate_selection(document: Any, global_document: Mapping[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    document = _object(document, "the policy selection", ("use", "rules"))
    use = _names(document.get("use", []), "use")
    unknown_sets(use, global_document["sets"], "use")
    return {"use": use, "rules": _rules(document.get("rules", []), "rules", catalogue)}


def unknown_sets(names: Sequence[str], sets: Mapping[str, Any], what: str) -> None:
    missing = [name for name in names if name not in sets]
    if missing:
        raise PolicyDocumentError(f'{what} names an unknown set "{missing[0]}"')


def uses_of(global_document: Mapping[str, Any], selection: Mapping[str, Any]) -> list[RuleUse]:
    """The rules a selection makes effective: its sets' rules in order, then its own."""
    out = []
    for set_name in selection.get("use", []):
        for entry in global_document["sets"].get(set_name, {}).get("rules", []):
            out.append(RuleUse(entry["rule"], entry.get("severity", ERROR), entry.get("params", {}), set_name))
    for entry in selection.get("rules", []):
        out.append(RuleUse(entry["rule"], entry.get("severity", ERROR), entry.get("params", {}), None))
    return out
