"""JSONATA rules on jsonata-python: an expression over the whole record, whose result is the
new record (above all, migrations: `$merge([$sift($, function($v, $k) {$k != 'age'}),
{'years': $.age}])`). Expressions are compiled once per process and kept."""
from __future__ import annotations

from typing import Any

import jsonata

from app.client.rules.context import RuleContext
from app.client.rules.executors import RuleError

_EXPRESSIONS: dict[str, Any] = {}


class JsonataExecutor:
    type = "JSONATA"

    def transform(self, ctx: RuleContext, message: Any) -> Any:
        expr = ctx.rule.expr
        if not expr:
            raise RuleError("a JSONATA rule needs an expression")
        compiled = _EXPRESSIONS.get(expr)
        if compiled is None:
            try:
                compiled = _EXPRESSIONS.setdefault(expr, jsonata.Jsonata(expr))
            except Exception as exc:  # jsonata-python's parse errors are JException
                raise RuleError(f"cannot parse the JSONata expression: {exc}") from None
        return compiled.evaluate(message)
