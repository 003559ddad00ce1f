"""The policy half of `sqlregistry check`: offline with `--policy-file`, online through
`POST /policies/{s}/check`, one output for both.

Offline runs the server's own rule code (app.policies, plugins included) on the files as
parsed by the server's formats, so a pipeline sees before release exactly what registration
would refuse. Those modules are imported only here, when asked for: installing the client
for a producer must not load the server's formats.

Output, one line per violation: `FILE:LOCATION: [rule] message` (warnings prefixed with
`warning: `; a location in the `--previous` file is printed against that file: for Protobuf
a line and column of its canonical text, since older versions are read as stored), or with
`--format json` the check endpoint's structure per file.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

PREVIOUS_VERSION = 1  # what an offline `--previous` file counts as, in violations' `version`


class PolicyFileError(Exception):
    """An unreadable or invalid policy file, or a schema the format refuses: exit 2."""


def load_policy_file(path: Path) -> Any:
    """The global document from a TOML (`.toml`) or JSON file, validated as the server would."""
    from app.policies.catalogue import load_catalogue
    from app.policies.document import PolicyDocumentError, validate_global

    try:
        raw = path.read_bytes()
        if path.suffix.lower() == ".toml":
            import tomllib

            document = tomllib.loads(raw.decode("utf-8"))
        else:
            document = json.loads(raw)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PolicyFileError(f"cannot read policy file {path}: {exc}") from None
    catalogue = load_catalogue()
    try:
        return validate_global(document, catalogue), catalogue
    except PolicyDocumentError as exc:
        raise PolicyFileError(f"invalid policy file {path}: {exc.message}") from None


def offline_outcomes(policy_file: Path, sets: list[str], files: list[tuple[Path, str, str]],
                     previous: tuple[Path, str] | None, subject: str) -> list[dict[str, Any]]:
    """The check endpoint's structure for each (path, schema type, text)."""
    from app.formats import FORMATS
    from app.formats.base import SchemaParseError
    from app.policies.document import PolicyDocumentError, unknown_sets, uses_of
    from app.policies.engine import evaluate
    from app.policies.rule import RuleContext

    document, catalogue = load_policy_file(policy_file)
    chosen = sets or document["default"]
    try:
        unknown_sets(chosen, document["sets"], "--set")
    except PolicyDocumentError as exc:
        raise PolicyFileError(exc.message) from None
    uses = uses_of(document, {"use": chosen})

    def parse(path: Path, schema_type: str, text: str) -> Any:
        try:
            return FORMATS[schema_type].parse(text, {}, strict=True)
        except SchemaParseError as exc:
            raise PolicyFileError(f"{path}: invalid schema: {exc.message}") from None

    older = None
    if previous is not None:
        old_path = previous[0]
        try:
            old_text = old_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PolicyFileError(f"cannot read {old_path}: {exc}") from None
        older = parse(old_path, previous[1], old_text)
    ctx = RuleContext(subject, [(PREVIOUS_VERSION, older)] if older is not None else [])
    return [evaluate(uses, catalogue, older, parse(path, kind, text), ctx).as_json() for path, kind, text in files]


def print_outcome(path: Path, outcome: dict[str, Any], previous: Path | None, out: TextIO) -> bool:
    """The lines for one file; True when an error-severity violation was among them."""
    failed = False
    for violation in outcome["violations"]:
        where = previous if violation.get("version") is not None and previous is not None else path
        place = f"{where}:{violation['location']}" if violation["location"] else str(where)
        line = f"{place}: [{violation['rule']}] {violation['message']}"
        if violation["severity"] == "warning":
            line = "warning: " + line
        else:
            failed = True
        print(line, file=out)
    return failed
