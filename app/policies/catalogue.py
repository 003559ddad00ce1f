"""The rules a process can use: the built-ins and the plugins found through entry points.

Plugins are entry points in group `sqlregistry.policy_rules` (name = rule name, value =
`module:Class`), loaded once at server and CLI start. A broken plugin must never stop the
registry: a plugin that fails to import, a name without a `<prefix>.`, or one that clashes
with a built-in is logged and left out, and a policy naming it then fails closed.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
import functools
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from app.policies.builtin import shape_rules
from app.policies.changes import ForbiddenChanges
from app.policies.rule import PolicyRule

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

ENTRY_POINT_GROUP = "sqlregistry.policy_rules"
BUILTIN = "builtin"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Installed:
    """A usable rule, where it came from, and its params' validator (built once)."""

    rule: PolicyRule
    source: str

    @functools.cached_property
    def validator(self) -> Draft202012Validator:
        """Built when a policy document is first checked: `jsonschema` is not imported on the
        way to a worker's first answer."""
        from jsonschema import Draft202012Validator

        return Draft202012Validator(self.rule.params_schema)

    def listing(self) -> dict[str, Any]:
        return {"name": self.rule.name, "description": self.rule.description,
                "formats": sorted(self.rule.formats), "params": self.rule.params_schema, "source": self.source}


class Catalogue(Mapping[str, Installed]):
    def __init__(self, rules: Iterable[Installed]) -> None:
        self._rules = {installed.rule.name: installed for installed in rules}

    def __getitem__(self, name: str) -> Installed:
        return self._rules[name]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._rules)

    def __len__(self) -> int:
        return len(self._rules)

    def listing(self) -> list[dict[str, Any]]:
        return [self._rules[name].listing() for name in sorted(self._rules)]


def _installed(rule: PolicyRule, source: str) -> Installed:
    return Installed(rule, source)


def builtins() -> list[Installed]:
    return [_installed(rule, BUILTIN) for rule in (*shape_rules(), ForbiddenChanges())]


def load_catalogue(*, plugins: bool = True) -> Catalogue:
    """The built-ins and, unless `plugins` is false, every plugin that loads cleanly."""
    found = builtins()
    taken = {installed.rule.name for installed in found}
    if plugins:
        for point in entry_points(group=ENTRY_POINT_GROUP):
            plugin = _load(point, taken)
            if plugin is not None:
                taken.add(plugin.rule.name)
                found.append(plugin)
    return Catalogue(found)


def _load(point: Any, taken: set[str]) -> Installed | None:
    name = point.name
    if "." not in name.strip(".") or name.startswith(".") or name.endswith("."):
        log.error("policy rule plugin %r refused: a plugin rule's name needs a '<prefix>.' (%s)", name, point.value)
        return None
    if name in taken:
        log.error("policy rule plugin %r refused: the name is already taken (%s)", name, point.value)
        return None
    try:
        rule = point.load()()
        if rule.name != name:
            raise ValueError(f"the rule calls itself {rule.name!r}")
        installed = _installed(rule, point.dist.name if point.dist is not None else point.value)
    except Exception:  # a plugin may fail any way at all; the registry must still start
        log.exception("policy rule plugin %r (%s) failed to load; its rule is unavailable", name, point.value)
        return None
    return installed
