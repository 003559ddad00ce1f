"""The hub every comparison passes through: one pair of schemas, whatever their kinds.

It looks through references, lets a lone schema match one member of a combination (a type
joining or leaving a union), reports a change of kind, compares the annotations every schema
has, and hands a pair of one kind to that kind's module. Each kind's module calls back into
`compare` for the schemas nested in it.
"""
from __future__ import annotations

from . import arrays, combined, objects, scalars, values
from .changes import UNSUPPORTED_KEYWORD_CHANGED
from .context import MAX_COMPARE_DEPTH, WALK_TOO_DEEP, Context
from .loader import value_key
from .refusals import refusal
from .nodes import (
    ALL_OF,
    ANY_OF,
    ArrayNode,
    CombinedNode,
    ConstNode,
    EmptyNode,
    EnumNode,
    FalseNode,
    Node,
    NotNode,
    NumberNode,
    ObjectNode,
    RefNode,
    StringNode,
    ONE_OF,
)

CONNECT_TYPE = "connect.type"


def compare(ctx: Context, original: Node | None, update: Node | None) -> None:
    """Adds to `ctx` every difference from `original` to `update` (either may be missing).

    The pair's differences are computed once, relative to the pair, and rebased wherever the
    pair is met again (see `context`); the memo lookup is inlined here rather than behind a
    callback to keep each level of nesting to a few Python frames.
    """
    if original is None and update is None:
        return
    if original is None:
        ctx.add("SCHEMA_ADDED")
        return
    if update is None:
        ctx.add("SCHEMA_REMOVED")
        return
    original = resolved(original)
    update = resolved(update)
    shared = ctx.shared
    if shared.same_draft and same_source(original, update):
        return  # the same schema, written the same way: nothing to report
    key = (id(original), id(update))
    found = shared.memo.get(key)
    if found is None:
        if key in shared.in_progress:
            # A cycle: assume compatible, unless an earlier pass found this pair incompatible.
            found = shared.seed.get(key)
            if found is None:
                shared.optimistic = True
                return
        else:
            if shared.depth >= MAX_COMPARE_DEPTH:
                raise refusal(WALK_TOO_DEEP)
            shared.in_progress.add(key)
            shared.depth += 1
            pair_ctx = Context(shared)
            try:
                _compare_kinds(pair_ctx, original, update)
            finally:
                shared.depth -= 1
                shared.in_progress.discard(key)
            found = shared.memo[key] = pair_ctx.differences
    if found:
        ctx.add_rebased(found)


def same_source(original: Node, update: Node) -> bool:
    """Whether both nodes come from equal JSON with no `$ref` inside (which could point to
    different places): then they are equal schemas and the walk below them can be skipped.

    Python's `==` is the quick test, but it holds `1 == 1.0 == True`; a pair it finds equal
    is confirmed on the exact texts, computed once per node and kept with the model."""
    if (original.source is None or original.has_refs or update.has_refs
            or original.source != update.source):
        return False
    return _key(original) == _key(update)


def _key(node: Node) -> str:
    if node.source_key is None:
        node.source_key = value_key(node.source)
    return node.source_key


def resolved(node: Node) -> Node:
    """The schema a reference points to (one step, as Confluent looks through one level;
    a reference to a reference is compared through the hub again)."""
    return node.target() if isinstance(node, RefNode) else node


def same_kind(a: Node, b: Node) -> bool:
    """Confluent compares schema classes: `{}` and `true` are different kinds, every
    combination is one kind whatever its criterion."""
    return type(a) is type(b) or (isinstance(a, CombinedNode) and isinstance(b, CombinedNode))


def _compare_kinds(ctx: Context, original: Node, update: Node) -> None:
    if not isinstance(original, CombinedNode) and isinstance(update, CombinedNode):
        if _joins_union(ctx, original, update):
            return
    elif isinstance(original, CombinedNode) and not isinstance(update, CombinedNode):
        if _leaves_product(ctx, original, update):
            return

    if not same_kind(original, update):
        if isinstance(original, FalseNode) or isinstance(update, EmptyNode):
            return  # nothing was valid before, or everything is now
        if _connect_bytes(original) and _connect_bytes(update):
            return  # Kafka Connect's bytes, whichever JSON type carries them
        ctx.add("TYPE_CHANGED")
        return

    if original.id != update.id:
        ctx.add("ID_CHANGED")
    if original.title != update.title:
        ctx.add("TITLE_CHANGED")
    if original.description != update.description:
        ctx.add("DESCRIPTION_CHANGED")
    if original.has_default != update.has_default or (
        original.has_default and value_key(original.default) != value_key(update.default)
    ):
        ctx.add("DEFAULT_CHANGED")
    _compare_unsupported(ctx, original, update)

    if isinstance(original, StringNode):
        scalars.compare_strings(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, NumberNode):
        scalars.compare_numbers(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, ConstNode):
        values.compare_consts(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, EnumNode):
        values.compare_enums(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, CombinedNode):
        combined.compare_combined(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, NotNode):
        values.compare_nots(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, ObjectNode):
        objects.compare_objects(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, ArrayNode):
        arrays.compare_arrays(ctx, original, update)  # type: ignore[arg-type]


def _joins_union(ctx: Context, original: Node, update: CombinedNode) -> bool:
    """A schema that became one member of a union (or a single-member combination) reads
    as that member: compatible when some member accepts what the original did."""
    members = update.subschemas
    if len(members) == 1:
        sub = ctx.subcontext()
        compare(sub, original, members[0])
        if sub.is_compatible():
            ctx.extend(sub.differences)
            return True
    elif update.criterion in (ANY_OF, ONE_OF):
        for member in members:
            sub = ctx.subcontext()
            compare(sub, original, member)
            if sub.is_compatible():
                ctx.extend(sub.differences)
                ctx.add("SUM_TYPE_EXTENDED")
                return True
    return False


def _leaves_product(ctx: Context, original: CombinedNode, update: Node) -> bool:
    """The mirror case: an `allOf` (or a single-member combination) replaced by a schema
    that one of its members already satisfies (dropping the other constraints)."""
    members = original.subschemas
    if len(members) == 1:
        sub = ctx.subcontext()
        compare(sub, members[0], update)
        if sub.is_compatible():
            ctx.extend(sub.differences)
            return True
    elif original.criterion == ALL_OF:
        for member in members:
            sub = ctx.subcontext()
            compare(sub, member, update)
            if sub.is_compatible():
                ctx.extend(sub.differences)
                ctx.add("PRODUCT_TYPE_NARROWED")
                return True
    return False


def _connect_bytes(node: Node) -> bool:
    source = node.source
    return isinstance(source, dict) and source.get(CONNECT_TYPE) == "bytes"


def _compare_unsupported(ctx: Context, original: Node, update: Node) -> None:
    """Fails closed on keywords no rule compares: any change to one is reported."""
    if not original.unsupported and not update.unsupported:
        return
    for keyword in sorted(original.unsupported.keys() | update.unsupported.keys()):
        before = original.unsupported.get(keyword, _MISSING)
        after = update.unsupported.get(keyword, _MISSING)
        if before is _MISSING or after is _MISSING or value_key(before) != value_key(after):
            ctx.add(UNSUPPORTED_KEYWORD_CHANGED, keyword)


_MISSING = object()
