"""Schemas that list values (`enum`, `const`) and the negation `not`.

An enum may gain values (the reader accepts more) but not lose them; a const is an enum of
one, so any change to it is a change of type. A `not` accepts less when what it excludes
grows, so its subschemas are compared the other way round.
"""
from __future__ import annotations

from .context import Compare, Context, Steps
from .nodes import ConstNode, EnumNode, NotNode


def compare_enums(ctx: Context, original: EnumNode, update: EnumNode) -> None:
    if original.values == update.values:
        return
    if update.values >= original.values:
        ctx.add("ENUM_ARRAY_EXTENDED", "enum")
    elif original.values >= update.values:
        ctx.add("ENUM_ARRAY_NARROWED", "enum")
    else:
        ctx.add("ENUM_ARRAY_CHANGED", "enum")


def compare_consts(ctx: Context, original: ConstNode, update: ConstNode) -> None:
    if original.value != update.value:
        ctx.add("ENUM_ARRAY_CHANGED", "const")


def compare_nots(ctx: Context, original: NotNode, update: NotNode) -> Steps:
    with ctx.at("not"):
        sub = ctx.subcontext()
        yield Compare(sub, update.must_not, original.must_not)
        ctx.add("NOT_TYPE_NARROWED" if sub.is_compatible() else "NOT_TYPE_EXTENDED")
