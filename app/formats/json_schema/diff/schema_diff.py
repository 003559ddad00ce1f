"""The hub every comparison passes through: one pair of schemas, whatever their kinds.

It looks through references, lets a lone schema match one member of a combination (a type
joining or leaving a union), reports a change of kind, compares the annotations every schema
has, and hands a pair of one kind to that kind's module.

Recursive unions walk deep: Confluent's own stress case (twelve product types whose
properties hold any product) keeps some 290 pairs in progress at once. So the walk does not
recurse in Python. Each kind's comparison is a generator that yields a `Compare` request for
every nested pair and resumes once the request's context holds that pair's differences;
`walk` runs the requests on a list of its own. A level costs a few generator frames only
while it is running, whatever the depth.
"""
from __future__ import annotations

from app.formats import work_budget

from . import arrays, combined, objects, scalars, values
from .changes import UNSUPPORTED_KEYWORD_CHANGED
from .context import MAX_COMPARE_DEPTH, WALK_TOO_DEEP, Compare, Context, Pair, PairResult, Steps
from .nodes import (
    ALL_OF,
    ANY_OF,
    ONE_OF,
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
    value_key,
)
from .refusals import refusal

CONNECT_TYPE = "connect.type"


def walk(ctx: Context, original: Node, update: Node) -> None:
    """Adds to `ctx` every finding from `original` to `update`, running the nested
    comparisons from an explicit stack (and checking the request's time budget once a step)."""
    first = start_pair(ctx, original, update)
    stack: list[Steps] = [first] if first is not None else []
    while stack:
        work_budget.check()
        try:
            request = next(stack[-1])
        except StopIteration:
            stack.pop()
            continue
        steps = start_pair(request.ctx, request.original, request.update)
        if steps is not None:
            if len(stack) >= MAX_COMPARE_DEPTH:
                raise refusal(WALK_TOO_DEEP)
            stack.append(steps)


def start_pair(ctx: Context, original: Node | None, update: Node | None) -> Steps | None:
    """Adds to `ctx` the findings from `original` to `update` (either may be missing) when
    they are known at once; otherwise returns the steps that will add them.

    A pair is compared once per walk and recorded as met wherever it is met (see `context`).
    A pair met again while it is still being compared is a cycle: assumed compatible, unless
    an earlier pass found it incompatible. Most pairs of a recursive union are met again,
    hence no generator for those.
    """
    if original is None or update is None:
        if original is not None:
            ctx.add("SCHEMA_REMOVED")
        elif update is not None:
            ctx.add("SCHEMA_ADDED")
        return None
    original = resolved(original)
    update = resolved(update)
    shared = ctx.shared
    if shared.same_draft and same_source(original, update):
        return None  # the same schema, written the same way: nothing to report
    key = (id(original), id(update))
    found = shared.memo.get(key)
    if found is not None:
        if not found.settled:
            shared.assumptions += 1
        ctx.add_pair(key, found)
    elif key not in shared.in_progress:
        return _pair_steps(ctx, key, original, update)
    else:
        shared.assumptions += 1
        if key in shared.seed:
            ctx.add_cycle(key)
        else:
            shared.optimistic = True
    return None


def _pair_steps(ctx: Context, key: Pair, original: Node, update: Node) -> Steps:
    shared = ctx.shared
    shared.in_progress.add(key)
    shared.pairs_compared += 1
    assumptions = shared.assumptions
    pair_ctx = Context(shared)
    yield from _compare_kinds(pair_ctx, original, update)
    shared.in_progress.discard(key)
    result = shared.memo[key] = PairResult(pair_ctx.findings, pair_ctx.compatible,
                                           shared.assumptions == assumptions)
    ctx.add_pair(key, result)


def same_source(original: Node, update: Node) -> bool:
    """Whether both nodes come from equal JSON with no `$ref` inside (which could point to
    different places): then they are equal schemas and the walk below them can be skipped.

    Python's `==` is the quick test, but it holds `1 == 1.0 == True`; a pair it finds equal
    is confirmed on the exact texts, computed once per node and kept with the model."""
    if (original.source is None or original.has_refs or update.has_refs
            or original.source != update.source):
        return False
    return original.source_text() == update.source_text()


def resolved(node: Node) -> Node:
    """The schema a reference points to, through any chain of references.

    Confluent looks through one reference only, so that two references to references are
    compared as two bare references (nothing inside them is compared); following the whole
    chain compares what they point to instead. A chain that comes back on itself points to
    no schema at all and is refused.
    """
    if not isinstance(node, RefNode):
        return node
    seen: set[int] = set()
    while isinstance(node, RefNode):
        if id(node) in seen:
            raise refusal(f"Circular $ref '{node.ref}'")
        seen.add(id(node))
        node = node.target()
    return node


def same_kind(a: Node, b: Node) -> bool:
    """Confluent compares schema classes: `{}` and `true` are different kinds, every
    combination is one kind whatever its criterion."""
    return type(a) is type(b) or (isinstance(a, CombinedNode) and isinstance(b, CombinedNode))


def _compare_kinds(ctx: Context, original: Node, update: Node) -> Steps:
    if not isinstance(original, CombinedNode) and isinstance(update, CombinedNode):
        if (yield from _joins_union(ctx, original, update)):
            return
    elif isinstance(original, CombinedNode) and not isinstance(update, CombinedNode):
        if (yield from _leaves_product(ctx, original, update)):
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
        yield from combined.compare_combined(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, NotNode):
        yield from values.compare_nots(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, ObjectNode):
        yield from objects.compare_objects(ctx, original, update)  # type: ignore[arg-type]
    elif isinstance(original, ArrayNode):
        yield from arrays.compare_arrays(ctx, original, update)  # type: ignore[arg-type]


def _joins_union(ctx: Context, original: Node, update: CombinedNode) -> Steps[bool]:
    """A schema that became one member of a union (or a single-member combination) reads
    as that member: compatible when some member accepts what the original did."""
    members = update.subschemas
    if len(members) == 1:
        sub = ctx.subcontext()
        yield Compare(sub, original, members[0])
        if sub.is_compatible():
            ctx.extend(sub)
            return True
    elif update.criterion in (ANY_OF, ONE_OF):
        for member in members:
            sub = ctx.subcontext()
            yield Compare(sub, original, member)
            if sub.is_compatible():
                ctx.extend(sub)
                ctx.add("SUM_TYPE_EXTENDED")
                return True
    return False


def _leaves_product(ctx: Context, original: CombinedNode, update: Node) -> Steps[bool]:
    """The mirror case: an `allOf` (or a single-member combination) replaced by a schema
    that one of its members already satisfies (dropping the other constraints)."""
    members = original.subschemas
    if len(members) == 1:
        sub = ctx.subcontext()
        yield Compare(sub, members[0], update)
        if sub.is_compatible():
            ctx.extend(sub)
            return True
    elif original.criterion == ALL_OF:
        for member in members:
            sub = ctx.subcontext()
            yield Compare(sub, member, update)
            if sub.is_compatible():
                ctx.extend(sub)
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
