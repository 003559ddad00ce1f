"""The rule-executor protocol and the registry that maps a rule's `type` to its executor.

An executor is a plain object with a `type` and `transform(ctx, message)`: for a CONDITION
the result's truth decides, for a TRANSFORM the result replaces the message. A field executor
(`FieldRuleExecutor`) gives a per-field transform instead and lets the format's walker visit
the record. Executors hold no connections or locks, so they pickle (Spark ships them to its
workers) and survive a fork; what must be cached per process (compiled programs, DEKs) lives
in module-level caches keyed by what it depends on.

The built-in types are made on first use, each importing its library then: a schema whose
rules need a library that is not installed fails with one line naming the extra to install
(`RulesUnavailable`), never by skipping the rule. `ExecutorRegistry.register` adds or replaces
an executor (a type of one's own, or a built-in configured differently).
"""
from __future__ import annotations

import importlib
from typing import Any, Protocol, runtime_checkable

from app.client.errors import RulesUnavailable
from app.client.rules.context import DOWNGRADE, READ, TRANSFORM, UPGRADE, WRITE, FieldTransform, RuleContext

EXTRA = "pip install 'sqlregistry[rules]'"

# type -> (module, class, the distribution it needs)
_BUILT_IN = {
    "CEL": ("app.client.rules.cel_executor", "CelExecutor", "cel-python"),
    "CEL_FIELD": ("app.client.rules.cel_executor", "CelFieldExecutor", "cel-python"),
    "JSONATA": ("app.client.rules.jsonata_executor", "JsonataExecutor", "jsonata-python"),
    "ENCRYPT": ("app.client.rules.encryption", "FieldEncryptionExecutor", "tink"),
    "ENCRYPT_PAYLOAD": ("app.client.rules.encryption", "PayloadEncryptionExecutor", "tink"),
}


@runtime_checkable
class RuleExecutor(Protocol):
    type: str

    def transform(self, ctx: RuleContext, message: Any) -> Any:
        """The new message (TRANSFORM) or whether the message passes (CONDITION)."""


class RuleError(Exception):
    """An executor could not run its rule (bad parameters, a KMS refusal, ...); the rule's
    onFailure action decides what follows."""


class ConditionFailed(RuleError):
    """A CONDITION rule's expression came out false (for the record or one of its fields)."""


class FieldRuleExecutor:
    """Runs a per-field transform over every field the rule selects, through the walker of
    the schema's format. Of two TRANSFORM rules of the same type and mode on the same tags,
    only the first runs on the way out and the last on the way in (Confluent's order), so
    a field is never encrypted twice."""

    type = ""

    def field_transform(self, ctx: RuleContext) -> FieldTransform:
        raise NotImplementedError

    def transform(self, ctx: RuleContext, message: Any) -> Any:
        if ctx.mode in (WRITE, UPGRADE):
            others = ctx.rules[:ctx.index]
        elif ctx.mode in (READ, DOWNGRADE):
            others = ctx.rules[ctx.index + 1:]
        else:
            others = ()
        if any(_same_tags(ctx.rule, other) for other in others):
            return message
        if ctx.walker is None:
            raise RuleError(f"{self.type} rules need a record of a known format")
        return ctx.walker.walk(ctx, message, self.field_transform(ctx))


def _same_tags(rule: Any, other: Any) -> bool:
    return (bool(rule.tags) and rule.kind == TRANSFORM and other.kind == TRANSFORM and rule.mode == other.mode
            and rule.type == other.type and rule.tags == other.tags)


class ExecutorRegistry:
    """Executors by rule type; built-ins are made on first use."""

    def __init__(self) -> None:
        self._executors: dict[str, RuleExecutor] = {}

    def register(self, executor: RuleExecutor) -> None:
        self._executors[executor.type.upper()] = executor

    def executor(self, rule_type: str) -> RuleExecutor | None:
        """The executor for `rule_type`, None when no executor of that type exists; raises
        `RulesUnavailable` when it is a built-in whose library is missing."""
        key = rule_type.upper()
        found = self._executors.get(key)
        if found is None and key in _BUILT_IN:
            module, name, distribution = _BUILT_IN[key]
            try:
                found = getattr(importlib.import_module(module), name)()
            except ImportError as exc:
                raise RulesUnavailable(f"{key} rules need {distribution} ({exc.name} is not installed): "
                                       f"{EXTRA}") from None
            self._executors[key] = found
        return found


DEFAULT_EXECUTORS = ExecutorRegistry()
