"""Array schemas: the item schemas, positional items and the array's content model.

Positional items (a draft 4-7 `items` list, 2020-12 `prefixItems`) follow the same content
model logic as object properties, with `additionalItems` (2020-12: `items` beside
`prefixItems`) and `unevaluatedItems` in the roles of `additionalProperties` and
`unevaluatedProperties`. Positions are reported as `#/items/N` in every draft, as Confluent
reports them.
"""
from __future__ import annotations

from .context import Compare, Context, Steps
from .nodes import ArrayNode, EmptyNode, FalseNode, Node
from .objects import compare_unevaluated
from .scalars import compare_bound


def compare_arrays(ctx: Context, original: ArrayNode, update: ArrayNode) -> Steps:
    with ctx.at("items"):
        yield Compare(ctx, original.all_items, update.all_items)
    yield from _compare_positional(ctx, original, update)
    yield from _compare_additional(ctx, original, update)
    yield from compare_unevaluated(
        ctx, "unevaluatedItems", "UNEVALUATED_ITEMS", original.unevaluated, update.unevaluated)
    _compare_counts(ctx, original, update)


def is_open(node: ArrayNode) -> bool:
    if not node.additional or node.additional_schema is not None:
        return False
    return node.unevaluated is None or isinstance(node.unevaluated, EmptyNode)


def partial_schema(node: ArrayNode) -> Node | None:
    """The schema a partially open array gives items past its positional ones."""
    if node.additional_schema is not None:
        return node.additional_schema
    if node.additional and node.unevaluated is not None and not isinstance(
        node.unevaluated, (FalseNode, EmptyNode)
    ):
        return node.unevaluated
    return None


def _compare_counts(ctx: Context, original: ArrayNode, update: ArrayNode) -> None:
    compare_bound(ctx, "maxItems", "MAX_ITEMS", original.max_items, update.max_items)
    compare_bound(ctx, "minItems", "MIN_ITEMS", original.min_items, update.min_items)
    if original.unique_items != update.unique_items:
        ctx.add("UNIQUE_ITEMS_REMOVED" if original.unique_items else "UNIQUE_ITEMS_ADDED", "uniqueItems")
    compare_bound(ctx, "maxContains", "MAX_CONTAINS", original.max_contains, update.max_contains)
    compare_bound(ctx, "minContains", "MIN_CONTAINS", original.min_contains, update.min_contains)


def _compare_positional(ctx: Context, original: ArrayNode, update: ArrayNode) -> Steps:
    before = original.item_schemas or []
    after = update.item_schemas or []
    for index in range(min(len(before), len(after))):
        with ctx.at("items", str(index)):
            yield Compare(ctx, before[index], after[index])
    for index in range(len(after), len(before)):
        with ctx.at("items", str(index)):
            yield from _item_removed(ctx, before[index], update)
    for index in range(len(before), len(after)):
        with ctx.at("items", str(index)):
            yield from _item_added(ctx, after[index], original)


def _item_removed(ctx: Context, before: Node, update: ArrayNode) -> Steps:
    if is_open(update):
        ctx.add("ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL")
        return
    covering = partial_schema(update)
    if covering is not None:
        sub = ctx.subcontext()
        yield Compare(sub, before, covering)
        ctx.extend(sub)
        ctx.add("ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" if sub.is_compatible()
                else "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL")
    elif isinstance(before, FalseNode):
        ctx.add("ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL")
    else:
        ctx.add("ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL")


def _item_added(ctx: Context, after: Node, original: ArrayNode) -> Steps:
    if is_open(original):
        ctx.add("ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL" if isinstance(after, EmptyNode)
                else "ITEM_ADDED_TO_OPEN_CONTENT_MODEL")
        return
    covering = partial_schema(original)
    if covering is not None:
        sub = ctx.subcontext()
        yield Compare(sub, covering, after)
        ctx.extend(sub)
        ctx.add("ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" if sub.is_compatible()
                else "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL")
    else:
        ctx.add("ITEM_ADDED_TO_CLOSED_CONTENT_MODEL")


def _compare_additional(ctx: Context, original: ArrayNode, update: ArrayNode) -> Steps:
    with ctx.at("additionalItems"):
        if original.additional != update.additional:
            ctx.add("ADDITIONAL_ITEMS_REMOVED" if original.additional else "ADDITIONAL_ITEMS_ADDED")
        elif original.additional_schema is None and update.additional_schema is not None:
            ctx.add("ADDITIONAL_ITEMS_NARROWED")
        elif original.additional_schema is not None and update.additional_schema is None:
            ctx.add("ADDITIONAL_ITEMS_EXTENDED")
        else:
            yield Compare(ctx, original.additional_schema, update.additional_schema)
