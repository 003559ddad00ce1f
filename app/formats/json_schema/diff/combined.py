"""`allOf`, `anyOf`, `oneOf`: the criterion, the number of members, and a pairing of members.

Members have no names, so they are paired by what is compatible: every original member is
compared with every update member, and a maximum matching over the compatible pairs decides
whether each member on the smaller side found a partner. Only the matched pairs' differences
are reported. Changing the criterion is compatible only towards `anyOf` (or between
combinations of one member, or from a one-member one to `oneOf`, or to one member from
`allOf`).
"""
from __future__ import annotations

from .context import Compare, Context, Steps
from .nodes import ALL_OF, ANY_OF, ONE_OF, CombinedNode, Node


def compare_combined(ctx: Context, original: CombinedNode, update: CombinedNode) -> Steps:
    if _compare_criteria(ctx, original, update) == "COMBINED_TYPE_CHANGED":
        return
    before = _distinct(original.subschemas)
    after = _distinct(update.subschemas)
    if len(before) < len(after):
        ctx.add("PRODUCT_TYPE_EXTENDED" if update.criterion == ALL_OF else "SUM_TYPE_EXTENDED")
    elif len(before) > len(after):
        ctx.add("SUM_TYPE_NARROWED" if original.criterion in (ANY_OF, ONE_OF) else "PRODUCT_TYPE_NARROWED")

    compatible: dict[int, dict[int, Context]] = {}
    for i, member in enumerate(before):
        with ctx.at(f"{original.criterion}/{i}"):
            for j, candidate in enumerate(after):
                sub = ctx.subcontext()
                yield Compare(sub, member, candidate)
                if sub.is_compatible():
                    compatible.setdefault(i, {})[j] = sub
    matching = _maximum_matching(compatible, len(after))
    for j, i in sorted(matching.items(), key=lambda pair: pair[1]):
        ctx.extend(compatible[i][j])
    if len(matching) < min(len(before), len(after)):
        ctx.add("COMBINED_TYPE_SUBSCHEMAS_CHANGED")


def _compare_criteria(ctx: Context, original: CombinedNode, update: CombinedNode) -> str | None:
    if original.criterion == update.criterion:
        return None
    single_before = len(original.subschemas) == 1
    single_after = len(update.subschemas) == 1
    if (update.criterion == ANY_OF or (single_before and single_after)
            or (single_before and update.criterion == ONE_OF)
            or (single_after and original.criterion == ALL_OF)):
        change = "COMBINED_TYPE_EXTENDED"
    else:
        change = "COMBINED_TYPE_CHANGED"
    ctx.add(change)
    return change


def _distinct(members: list[Node]) -> list[Node]:
    """Members with duplicates (equal JSON) collapsed, first occurrence kept."""
    seen: set[str] = set()
    kept: list[Node] = []
    for member in members:
        if member.source is None:
            kept.append(member)
            continue
        key = member.source_text()
        if key not in seen:
            seen.add(key)
            kept.append(member)
    return kept


def _maximum_matching(edges: dict[int, dict[int, Context]], right_size: int) -> dict[int, int]:
    """A maximum bipartite matching (augmenting paths), as right index -> left index.

    Combinations are small (a handful of members), so the simple algorithm is plenty; it is
    iterative so that no member count can exhaust the stack.
    """
    match_of_right: dict[int, int] = {}
    for left in sorted(edges):
        # Depth-first search for an augmenting path from `left`, with an explicit stack.
        parent: dict[int, int] = {}  # right -> the left that reached it
        visited: set[int] = set()
        stack = [(left, iter(sorted(edges[left])))]
        found_right: int | None = None
        while stack and found_right is None:
            current_left, candidates = stack[-1]
            advanced = False
            for right in candidates:
                if right in visited:
                    continue
                visited.add(right)
                parent[right] = current_left
                owner = match_of_right.get(right)
                if owner is None:
                    found_right = right
                else:
                    stack.append((owner, iter(sorted(edges.get(owner, {})))))
                advanced = True
                break
            if not advanced:
                stack.pop()
        if found_right is None:
            continue
        right = found_right
        while True:
            current_left = parent[right]
            previous = next((r for r, l in match_of_right.items() if l == current_left), None)
            match_of_right[right] = current_left
            if current_left == left:
                break
            assert previous is not None
            right = previous
    return match_of_right
