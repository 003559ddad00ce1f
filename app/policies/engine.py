"""Running a policy: every rule of the effective policy over one proposed schema.

The engine, not the rules, owns the outcome's guarantees: a rule no longer installed is a
violation (fail closed), a rule that raises is a violation naming the exception (the
traceback goes to the log), a rule that does not read the schema's format is skipped, and
each violation carries the severity and set its policy entry gave.
"""
from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.formats import work_budget
from app.formats.base import ParsedSchema
from app.formats.work_budget import WorkBudgetExceeded
from app.policies.rule import ERROR, RuleContext, Violation
from app.policies.view import UnsupportedFormat

if TYPE_CHECKING:
    from app.policies.catalogue import Catalogue

ENGINE = "policy-engine"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RuleUse:
    """One rule as a policy uses it; `set` is None for a subject's own extra rules."""

    rule: str
    severity: str = ERROR
    params: Mapping[str, Any] = field(default_factory=dict)
    set: str | None = None


@dataclass
class Outcome:
    violations: list[Violation] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)

    @property
    def errors(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == ERROR]

    def as_json(self) -> dict[str, Any]:
        return {"violations": [v.as_json() for v in self.violations], "checked": self.checked,
                "skipped": self.skipped}


def evaluate(uses: Sequence[RuleUse], catalogue: Catalogue, current_latest: ParsedSchema | None,
             proposed: ParsedSchema, ctx: RuleContext) -> Outcome:
    outcome = Outcome()
    for use in uses:
        installed = catalogue.get(use.rule)
        if installed is None:
            outcome.violations.append(Violation(ENGINE, f'rule "{use.rule}" is not installed', set=use.set))
            continue
        rule = installed.rule
        if proposed.schema_type not in rule.formats:
            outcome.skipped.append({"rule": use.rule, "reason": f"does not support {proposed.schema_type}"})
            continue
        try:
            work_budget.check()
            found = list(rule.check(current_latest, proposed, use.params, ctx))
        except WorkBudgetExceeded:
            break  # the request's budget is spent, not the rule's fault: the caller refuses the request
        except UnsupportedFormat:
            outcome.skipped.append({"rule": use.rule, "reason": f"does not support {proposed.schema_type}"})
            continue
        except Exception as exc:  # a rule's bug is a violation of that rule, never a 500
            log.exception("policy rule %s failed on subject %s", use.rule, ctx.subject)
            found = [Violation(use.rule, f"rule failed: {type(exc).__name__}")]
        if use.rule not in outcome.checked:
            outcome.checked.append(use.rule)
        outcome.violations.extend(
            dataclasses.replace(v, rule=use.rule, severity=use.severity, set=use.set) for v in found
        )
    return outcome


def refusal_message(subject: str, errors: Sequence[Violation]) -> str:
    """The registration refusal (42201): the count, then each error as `[rule location] text`."""
    noun = "violation" if len(errors) == 1 else "violations"
    listed = "; ".join(v.brief() for v in errors)
    return f'Schema has {len(errors)} policy {noun} for subject "{subject}": {listed}'
