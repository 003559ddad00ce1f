"""The walker protocol: how a field rule reaches the fields of a record of one format.

A walker is built once per schema (`app.client.rules.avro_walker`, `json_walker`,
`protobuf_walker`) and visits a record, entering each field in the rule context (its full
name, its type, its tags) and applying the transform to the leaves the rule selects. A
walker never changes the record it is given: it returns a copy wherever a transform changed
something, so a producer's own dict or message is still in clear after an ENCRYPT rule.
A field transform of a CONDITION rule that returns False fails the rule (`ConditionFailed`).
"""
from __future__ import annotations

from typing import Any, Protocol

from app.client.rules.context import CONDITION, FieldTransform, RuleContext
from app.client.rules.executors import ConditionFailed


class FieldWalker(Protocol):
    def walk(self, ctx: RuleContext, message: Any, transform: FieldTransform) -> Any:
        """`message` with `transform` applied to every field the rule selects."""


def settle(ctx: RuleContext, record: dict[str, Any], out: dict[str, Any], name: str, full_name: str, value: Any,
           changed: Any) -> dict[str, Any]:
    """After one field of `record` was visited: a CONDITION that came out False fails the rule;
    a TRANSFORM's new value goes into `out`, a copy of the record made on the first change."""
    if ctx.rule.kind == CONDITION:
        if changed is False:
            raise ConditionFailed(f"field {full_name}: {ctx.rule.expr}")
        return out
    if changed is not value:
        if out is record:
            out = dict(record)
        out[name] = changed
    return out
