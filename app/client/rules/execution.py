"""Runs a schema's rules on one record, in Confluent's order and with its actions.

For a serde's mode (WRITE, READ, UPGRADE, DOWNGRADE) the rules that run are those of the
phase (domain, migration or encoding) whose own mode matches: WRITEREAD runs on WRITE and
READ, UPDOWN on UPGRADE and DOWNGRADE. READ and DOWNGRADE run the list in reverse order, so
a read undoes the write. A rule is skipped when `disabled`, or when its rule set's `enableAt`
names somewhere other than a client (`ALL` and `CLIENT` run here).

After each rule its action runs: `onSuccess` (default NONE) or `onFailure` (default ERROR);
for a WRITEREAD or UPDOWN rule `"A,B"` gives A on the way out and B on the way in. NONE goes
on with the record (after a failed TRANSFORM, the record as it was), ERROR raises
`RuleFailed`, DLQ hands the record and the reason to the serde's `dlq` handler and then
raises `RuleFailed` too (without a handler it is ERROR). Other action names are looked up in
the `actions` a caller registers.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from app.client.errors import RuleFailed, RulesUnavailable
from app.client.records import Rule, RuleSet, Schema
from app.client.rules.context import (
    CONDITION, DOWNGRADE, READ, TRANSFORM, UPDOWN, UPGRADE, WRITE, WRITEREAD, RuleContext,
)
from app.client.rules.executors import DEFAULT_EXECUTORS, ConditionFailed, ExecutorRegistry, RuleError
from app.client.rules.walkers import FieldWalker

DOMAIN, MIGRATION, ENCODING = "domain", "migration", "encoding"


@dataclass(frozen=True)
class RuleFailure:
    """What a DLQ handler receives: the record as the rule saw it and why it failed."""

    record: Any
    rule: Rule
    subject: str
    version: int | None
    mode: str
    reason: BaseException | None


DlqHandler = Callable[[RuleFailure], None]
RuleAction = Callable[[RuleContext, Any, "BaseException | None"], None]


def _phase_rules(rule_set: RuleSet | None, phase: str) -> tuple[Rule, ...]:
    if rule_set is None:
        return ()
    if phase == MIGRATION:
        return rule_set.migration_rules
    return rule_set.encoding_rules if phase == ENCODING else rule_set.domain_rules


def rule_applies(rule: Rule, mode: str) -> bool:
    """Whether a rule of its own mode runs in a serde's mode: WRITEREAD on WRITE and READ,
    UPDOWN on UPGRADE and DOWNGRADE (public for the pipeline, which plans rules ahead)."""
    if rule.mode == WRITEREAD:
        return mode in (WRITE, READ)
    if rule.mode == UPDOWN:
        return mode in (UPGRADE, DOWNGRADE)
    return rule.mode == mode


def has_rules(schema: Schema | None, phase: str, mode: str) -> bool:
    """Whether `schema` has a rule of `phase` that a serde in `mode` would consider: the
    check a serde makes once per schema, so that schemas without rules cost nothing."""
    return schema is not None and any(rule_applies(rule, mode) for rule in _phase_rules(schema.rule_set, phase))


def config_digest(config: Mapping[str, str]) -> str:
    """What per-process caches (unwrapped DEKs, KMS clients, workers' decoders) key a rule
    configuration by: its digest, never the secrets themselves."""
    return hashlib.sha256(repr(sorted(config.items())).encode()).hexdigest()


@dataclass(frozen=True)
class RuleRunner:
    """The rule machinery a serde holds: executors, the rule configuration (KMS secrets and
    credentials, handed to every executor through the context), a DLQ handler and extra
    actions. Picklable when its handler and actions are (module-level functions)."""

    executors: ExecutorRegistry = DEFAULT_EXECUTORS
    config: Mapping[str, str] = field(default_factory=dict, repr=False)  # secrets: never in a repr
    dlq: DlqHandler | None = None
    actions: Mapping[str, RuleAction] = field(default_factory=dict)
    registry: Any = None  # the serde's RegistryClient (or schema source), handed to executors
    config_digest: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        # Computed once (the module's `config_digest`; the field shares its name).
        object.__setattr__(self, "config_digest", config_digest(self.config))

    def run(self, mode: str, phase: str, subject: str, version: int | None, source: Schema | None,
            target: Schema, message: Any, walker: FieldWalker | None = None) -> Any:
        """`message` after the rules of `phase` that apply in `mode`. For UPGRADE the rules are
        the target's, for DOWNGRADE the source's; otherwise the target's."""
        if message is None:
            return message
        owner = source if mode == DOWNGRADE else target
        if owner is None:
            return message
        rules = _phase_rules(owner.rule_set, phase)
        if mode in (READ, DOWNGRADE):
            rules = tuple(reversed(rules))
        if not rules:
            return message
        assert owner.rule_set is not None
        enabled = owner.rule_set.enable_at in (None, "ALL", "CLIENT")
        for index, rule in enumerate(rules):
            if rule.disabled or not enabled or not rule_applies(rule, mode):
                continue
            ctx = RuleContext(subject, version, mode, rule, index, rules, source, target, self.config, walker,
                              self.registry, self.config_digest)
            message = self._run_one(ctx, message)
        return message

    def _run_one(self, ctx: RuleContext, message: Any) -> Any:
        rule = ctx.rule
        executor = self.executors.executor(rule.type) if rule.type else None
        if executor is None:
            reason = RuleError(f"no rule executor of type {rule.type!r}")
            self._act(ctx, _pick(rule, ctx.mode, rule.on_failure) or "ERROR", message, reason)
            return message
        try:
            result = executor.transform(ctx, message)
        except (RuleFailed, RulesUnavailable):
            raise
        except Exception as exc:  # an executor's own failure: the rule's onFailure action decides
            self._act(ctx, _pick(rule, ctx.mode, rule.on_failure) or "ERROR", message, exc)
            return message
        if rule.kind == CONDITION:
            if not result:
                self._act(ctx, _pick(rule, ctx.mode, rule.on_failure) or "ERROR", message,
                          ConditionFailed(_condition_text(rule)))
                return message
        elif rule.kind == TRANSFORM:
            if result is None:
                self._act(ctx, _pick(rule, ctx.mode, rule.on_failure) or "ERROR", message, None)
                return message
            message = result
        self._act(ctx, _pick(rule, ctx.mode, rule.on_success) or "NONE", message, None)
        return message

    def _act(self, ctx: RuleContext, action: str, message: Any, reason: BaseException | None) -> None:
        name = action.strip().upper()
        if name == "NONE":
            return
        if name == "DLQ" and self.dlq is not None:
            self.dlq(RuleFailure(message, ctx.rule, ctx.subject, ctx.version, ctx.mode, reason))
        elif name not in ("ERROR", "DLQ"):
            custom = self.actions.get(action.strip())
            if custom is None:
                raise RuleFailed(f"{_where(ctx)}: no rule action {action!r}", rule=ctx.rule.name,
                                 subject=ctx.subject, version=ctx.version, mode=ctx.mode) from reason
            custom(ctx, message, reason)
            return
        detail = f": {type(reason).__name__}: {reason}" if reason is not None else ""
        raise RuleFailed(f"{_where(ctx)} failed{detail}", rule=ctx.rule.name, subject=ctx.subject,
                         version=ctx.version, mode=ctx.mode) from reason


def _condition_text(rule: Rule) -> str:
    if rule.doc:
        return rule.doc
    return f"expression is false: {rule.expr}" if rule.expr else f"rule {rule.name} is false"


def _where(ctx: RuleContext) -> str:
    return f"{ctx.mode} rule {ctx.rule.name!r} ({ctx.rule.type}) of {ctx.subject} version {ctx.version}"


def _pick(rule: Rule, mode: str, action: str | None) -> str | None:
    """The half of an `"A,B"` action that applies in `mode` (A out, B in)."""
    if not action:
        return None
    if rule.mode in (WRITEREAD, UPDOWN) and "," in action:
        first, second = action.split(",", 1)
        return first if mode in (WRITE, UPGRADE) else second
    return action


