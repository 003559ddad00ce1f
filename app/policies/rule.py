"""What a policy rule is: the interface built-ins and plugins implement, and what they return.

A rule is the AVRO-1124 proposal's `isValidChange(currentLatest, proposedNew)` returning its
reasons instead of a boolean: every violation names the element (a location in the proposed
document, or in an older version when `version` is set) so that a client can point at it.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from app.formats.base import ParsedSchema

ERROR = "error"
WARNING = "warning"
SEVERITIES = (ERROR, WARNING)


@dataclass(frozen=True)
class Violation:
    """One reason a schema breaks a rule. `location` is a JSON pointer (`""`: the root) into
    the proposed document, or a Protobuf declaration's `line:column` in the `.proto` text,
    or points into version `version` when the element is only there (a removed field);
    `path` the element's dotted name. The engine fills `rule`, `set` and
    `severity` from the policy, so a rule's own values for them are defaults only."""

    rule: str
    message: str
    location: str = ""
    path: str = ""
    severity: str = ERROR
    version: int | None = None
    set: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The check endpoint's shape: `version` only when the location is in an older one."""
        out: dict[str, Any] = {"rule": self.rule, "set": self.set, "severity": self.severity,
                               "location": self.location, "path": self.path, "message": self.message}
        if self.version is not None:
            out["version"] = self.version
        return out

    def brief(self) -> str:
        """`[rule location] message`, the registration refusal's and the CLI's form."""
        where = f"{self.rule} {self.location}" if self.location else self.rule
        return f"[{where}] {self.message}"


@dataclass(frozen=True)
class RuleContext:
    """What a rule may know besides the two schemas: the subject, its live versions (number,
    parsed schema; oldest first, from the cache) and the subject's effective config."""

    subject: str
    versions: Sequence[tuple[int, ParsedSchema]] = ()
    config: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class PolicyRule(Protocol):
    name: str  # built-ins: "doc-required"; plugins: "<prefix>.<name>"
    description: str
    formats: frozenset[str]  # of "AVRO", "JSON", "PROTOBUF"
    params_schema: dict[str, Any]  # JSON Schema 2020-12, checked when a policy is stored

    def check(self, current_latest: ParsedSchema | None, proposed: ParsedSchema,
              params: Mapping[str, Any], ctx: RuleContext) -> Iterable[Violation]: ...
