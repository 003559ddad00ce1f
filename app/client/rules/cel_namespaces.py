"""Namespaced CEL functions (`decimals.add(a, b)`) on cel-python, which reads `decimals.add(...)`
as a method `add` called on a variable `decimals`. cel-java and cel-go, and Confluent's clients,
register such functions under their dotted names; this runner calls the function registered as
`decimals.add` when the receiver is a bare chain of names and that dotted name is registered,
and leaves every other method call (`"a".startsWith("b")`, `list.all(...)`) to celpy.

As in Confluent's Python executor, an error such a function raises ends the evaluation (it is
not a CEL error value that `||` or `&&` could absorb), so both executors agree on every result.
"""
from __future__ import annotations

from typing import Any

import celpy
import lark

_PASS_THROUGH = ("member", "primary")


def dotted_name(tree: Any) -> str | None:
    """`a.b.c` for a tree that is only names joined by dots, else None."""
    names: list[str] = []
    while isinstance(tree, lark.Tree):
        if tree.data in _PASS_THROUGH and len(tree.children) == 1:
            tree = tree.children[0]
        elif tree.data == "member_dot" and isinstance(tree.children[1], lark.Token):
            names.append(str(tree.children[1].value))
            tree = tree.children[0]
        elif tree.data == "ident" and isinstance(tree.children[0], lark.Token):
            names.append(str(tree.children[0].value))
            return ".".join(reversed(names))
        else:
            return None
    return None


class _NamespacedEvaluator(celpy.Evaluator):
    def sub_evaluator(self, ast: lark.Tree) -> celpy.Evaluator:
        """A macro's body (`list.all(x, variants.isNull(x))`) sees namespaced functions too."""
        return _NamespacedEvaluator(ast, activation=self.activation)

    def member_dot_arg(self, tree: lark.Tree) -> Any:
        receiver, method = tree.children[0], tree.children[1]
        namespace = dotted_name(receiver)
        functions = getattr(self.activation, "functions", None)
        if namespace is not None and functions is not None:
            function = functions.get(f"{namespace}.{method.value}")
            if function is not None:
                arguments = list(self.visit(tree.children[2])) if len(tree.children) > 2 else []
                return function(*arguments)
        return super().member_dot_arg(tree)


class NamespacedRunner(celpy.InterpretedRunner):
    """celpy's interpreter, with namespaced functions."""

    def evaluate(self, context: Any) -> Any:
        return _NamespacedEvaluator(ast=self.ast, activation=self.new_activation()).evaluate(context)
