"""String and number constraints: each bound added, removed, raised or lowered.

Which direction is compatible is the change table's business (a maximum raised accepts more,
a minimum raised accepts less); here each keyword only reports what happened to it.
"""
from __future__ import annotations

from decimal import Decimal, InvalidOperation

from .context import Context
from .nodes import NumberNode, StringNode


def compare_bound(ctx: Context, keyword: str, change: str, before: float | int | None,
                  after: float | int | None) -> None:
    """`change` is the keyword's prefix (`MAX_LENGTH`); reports `_ADDED`, `_REMOVED`,
    `_INCREASED` or `_DECREASED` at `#/.../keyword` (numerically equal values are no change)."""
    if before is None and after is None:
        return
    if before is None:
        ctx.add(f"{change}_ADDED", keyword)
    elif after is None:
        ctx.add(f"{change}_REMOVED", keyword)
    elif before < after:
        ctx.add(f"{change}_INCREASED", keyword)
    elif before > after:
        ctx.add(f"{change}_DECREASED", keyword)


def compare_strings(ctx: Context, original: StringNode, update: StringNode) -> None:
    compare_bound(ctx, "maxLength", "MAX_LENGTH", original.max_length, update.max_length)
    compare_bound(ctx, "minLength", "MIN_LENGTH", original.min_length, update.min_length)
    if original.pattern is None and update.pattern is not None:
        ctx.add("PATTERN_ADDED", "pattern")
    elif original.pattern is not None and update.pattern is None:
        ctx.add("PATTERN_REMOVED", "pattern")
    elif original.pattern != update.pattern:
        ctx.add("PATTERN_CHANGED", "pattern")


def compare_numbers(ctx: Context, original: NumberNode, update: NumberNode) -> None:
    compare_bound(ctx, "maximum", "MAXIMUM", original.maximum, update.maximum)
    compare_bound(ctx, "minimum", "MINIMUM", original.minimum, update.minimum)
    # Confluent compares a lowered exclusiveMaximum against the update's `maximum` (a slip
    # that reports nothing, or fails, when there is none); we compare the exclusive bounds
    # themselves, which never lets a narrowed range pass.
    compare_bound(ctx, "exclusiveMaximum", "EXCLUSIVE_MAXIMUM",
                  original.exclusive_maximum, update.exclusive_maximum)
    compare_bound(ctx, "exclusiveMinimum", "EXCLUSIVE_MINIMUM",
                  original.exclusive_minimum, update.exclusive_minimum)
    _compare_multiple_of(ctx, original.multiple_of, update.multiple_of)
    if original.integer != update.integer:
        ctx.add("TYPE_EXTENDED" if original.integer else "TYPE_NARROWED")


def _compare_multiple_of(ctx: Context, before: float | int | None, after: float | int | None) -> None:
    """Decimal arithmetic, so that 0.1 divides 0.3 and 0.5 equals 0.50 as a reader expects."""
    if before is None and after is None:
        return
    if before is None:
        ctx.add("MULTIPLE_OF_ADDED", "multipleOf")
        return
    if after is None:
        ctx.add("MULTIPLE_OF_REMOVED", "multipleOf")
        return
    old, new = Decimal(str(before)), Decimal(str(after))
    if old == new:
        return
    if old != 0 and _divides(old, new):
        ctx.add("MULTIPLE_OF_EXPANDED", "multipleOf")
    elif new != 0 and _divides(new, old):
        ctx.add("MULTIPLE_OF_REDUCED", "multipleOf")
    else:
        ctx.add("MULTIPLE_OF_CHANGED", "multipleOf")


def _divides(divisor: Decimal, dividend: Decimal) -> bool:
    try:
        return dividend % divisor == 0
    except InvalidOperation:
        return False
