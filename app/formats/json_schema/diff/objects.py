"""Object schemas: properties, required, dependencies and the content model.

The content model decides what adding or removing a property means. An open model (no
`additionalProperties`, no `patternProperties`, `unevaluatedProperties` absent or `true`)
may have received any property from a writer, so a reader that now declares one may meet
data that violates it; a closed model (`false`) had none; a partially open one (a schema for
additional or pattern-matched properties) had values valid against that schema, so the
question becomes whether the declared property accepts them.
"""
from __future__ import annotations

import regex

from app.formats import work_budget
from app.formats.json_schema.pattern_process import search_in_child
from app.formats.json_schema.patterns import IN_PROCESS_CHARS

from .changes import PROPERTY_NAMES_ADDED, PROPERTY_NAMES_REMOVED
from .context import Compare, Context, Steps
from .nodes import EmptyNode, FalseNode, Node, ObjectNode, value_key
from .refusals import refusal
from .scalars import compare_bound

# The longest one property name may take to match one `patternProperties` pattern.
MATCH_SECONDS = 0.25


def compare_objects(ctx: Context, original: ObjectNode, update: ObjectNode) -> Steps:
    _compare_required(ctx, original, update)
    yield from _compare_properties(ctx, original, update)
    yield from _compare_dependencies(ctx, original, update)
    yield from _compare_additional(ctx, original, update)
    yield from _compare_unevaluated(ctx, original, update)
    yield from _compare_property_names(ctx, original, update)
    _compare_counts(ctx, original, update)


def is_open(node: ObjectNode) -> bool:
    if not node.additional or node.additional_schema is not None or node.pattern_properties:
        return False
    return node.unevaluated is None or isinstance(node.unevaluated, EmptyNode)


def partial_schema(node: ObjectNode, name: str) -> Node | None:
    """The schema a partially open model gives property `name`, None when it gives none."""
    for pattern, schema in node.pattern_properties:
        if _matches(pattern, name):
            return schema
    if node.additional_schema is not None:
        return node.additional_schema
    if node.additional and node.unevaluated is not None and not isinstance(
        node.unevaluated, (FalseNode, EmptyNode)
    ):
        return node.unevaluated
    return None


def _matches(pattern: str, name: str) -> bool:
    """Whether `name` matches a `patternProperties` pattern (a pattern that does not compile
    matches nothing). Python's `re` cannot be stopped, and some patterns backtrack
    exponentially (`^(a|aa)+$` on a long name), so `regex` matches, with a timeout: within the
    request's time budget and at most `MATCH_SECONDS`; a match that does not end in time is a
    refusal, as an exhausted budget is. A pattern longer than `IN_PROCESS_CHARS` is compiled and
    matched in a child process, since `regex`'s compile cannot be stopped (1 MB: about 3 s)."""
    work_budget.check()
    remaining = work_budget.remaining()
    timeout = MATCH_SECONDS if remaining is None else min(MATCH_SECONDS, remaining)
    try:
        if len(pattern) > IN_PROCESS_CHARS:  # its compile alone could outrun the budget
            return search_in_child(pattern, name, timeout)
        return regex.search(pattern, name, timeout=timeout) is not None
    except regex.error:
        return False
    except TimeoutError:
        raise refusal(f"patternProperties pattern {value_key(pattern)[:100]} takes too long to match "
                      f"the property name {value_key(name)[:100]}") from None


def _compare_counts(ctx: Context, original: ObjectNode, update: ObjectNode) -> None:
    compare_bound(ctx, "maxProperties", "MAX_PROPERTIES", original.max_properties, update.max_properties)
    compare_bound(ctx, "minProperties", "MIN_PROPERTIES", original.min_properties, update.min_properties)


def _compare_required(ctx: Context, original: ObjectNode, update: ObjectNode) -> None:
    with ctx.at("required"):
        for name in original.properties:
            if name not in update.properties:
                continue
            was, now = name in original.required, name in update.required
            if was and not now:
                ctx.add("REQUIRED_ATTRIBUTE_REMOVED", name)
            elif now and not was:
                if update.properties[name].has_default:
                    ctx.add("REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED", name)
                else:
                    ctx.add("REQUIRED_ATTRIBUTE_ADDED", name)


def _compare_properties(ctx: Context, original: ObjectNode, update: ObjectNode) -> Steps:
    names = list(original.properties) + [n for n in update.properties if n not in original.properties]
    with ctx.at("properties"):
        for name in names:
            with ctx.at(name):
                before = original.properties.get(name)
                after = update.properties.get(name)
                if after is None:
                    yield from _property_removed(ctx, before, update, name)  # type: ignore[arg-type]
                elif before is None:
                    yield from _property_added(ctx, after, original, update, name)
                else:
                    yield Compare(ctx, before, after)


def _property_removed(ctx: Context, before: Node, update: ObjectNode, name: str) -> Steps:
    """Only the update's model matters: the reader must still accept the property's values."""
    if is_open(update):
        ctx.add("PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL")
        return
    covering = partial_schema(update, name)
    if covering is not None:
        sub = ctx.subcontext()
        yield Compare(sub, before, covering)
        ctx.extend(sub)
        ctx.add("PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" if sub.is_compatible()
                else "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL")
    elif isinstance(before, FalseNode):
        ctx.add("PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL")
    else:
        ctx.add("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL")


def _property_added(ctx: Context, after: Node, original: ObjectNode, update: ObjectNode, name: str) -> Steps:
    """Only the original's model matters: it says what writers may already have sent."""
    required = name in update.required
    if is_open(original):
        if isinstance(after, EmptyNode):
            ctx.add("PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL")
        elif required:
            ctx.add("REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL" if after.has_default
                    else "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL")
        else:
            ctx.add("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL")
        return
    covering = partial_schema(original, name)
    if covering is not None:
        sub = ctx.subcontext()
        yield Compare(sub, covering, after)
        ctx.extend(sub)
        ctx.add("PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" if sub.is_compatible()
                else "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL")
    if required:
        ctx.add("REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL" if after.has_default
                else "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL")
    else:
        ctx.add("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL")


def _compare_property_names(ctx: Context, original: ObjectNode, update: ObjectNode) -> Steps:
    """`propertyNames` is the schema of every key: a reader may drop it or widen it, not add
    or narrow it. Two of them are compared as a pair, so a narrowing inside is reported below
    `#/propertyNames` (`MAX_LENGTH_DECREASED #/propertyNames/maxLength`). An empty schema or
    `true` constrains no key: the same as none."""
    before, after = _key_constraint(original), _key_constraint(update)
    if before is None and after is None:
        return
    with ctx.at("propertyNames"):
        if after is None:
            ctx.add(PROPERTY_NAMES_REMOVED)
        elif before is None:
            ctx.add(PROPERTY_NAMES_ADDED)
        else:
            yield Compare(ctx, before, after)


def _key_constraint(node: ObjectNode) -> Node | None:
    names = node.property_names
    return None if names is None or isinstance(names, EmptyNode) else names


def _compare_dependencies(ctx: Context, original: ObjectNode, update: ObjectNode) -> Steps:
    with ctx.at("dependencies"):
        names = _union(original.property_dependencies, update.property_dependencies)
        for name in names:
            before = original.property_dependencies.get(name)
            after = update.property_dependencies.get(name)
            if after is None:
                ctx.add("DEPENDENCY_ARRAY_REMOVED", name)
            elif before is None:
                ctx.add("DEPENDENCY_ARRAY_ADDED", name)
            elif before != after:
                if after >= before:
                    ctx.add("DEPENDENCY_ARRAY_EXTENDED", name)
                elif before >= after:
                    ctx.add("DEPENDENCY_ARRAY_NARROWED", name)
                else:
                    ctx.add("DEPENDENCY_ARRAY_CHANGED", name)
        for name in _union(original.schema_dependencies, update.schema_dependencies):
            before_schema = original.schema_dependencies.get(name)
            after_schema = update.schema_dependencies.get(name)
            if after_schema is None:
                ctx.add("DEPENDENCY_SCHEMA_REMOVED", name)
            elif before_schema is None:
                ctx.add("DEPENDENCY_SCHEMA_ADDED", name)
            else:
                with ctx.at(name):
                    yield Compare(ctx, before_schema, after_schema)


def _union(first: dict, second: dict) -> list[str]:
    return list(first) + [k for k in second if k not in first]


def _compare_additional(ctx: Context, original: ObjectNode, update: ObjectNode) -> Steps:
    with ctx.at("additionalProperties"):
        if original.additional != update.additional:
            ctx.add("ADDITIONAL_PROPERTIES_ADDED" if update.additional else "ADDITIONAL_PROPERTIES_REMOVED")
        elif original.additional_schema is None and update.additional_schema is not None:
            ctx.add("ADDITIONAL_PROPERTIES_NARROWED")
        elif original.additional_schema is not None and update.additional_schema is None:
            ctx.add("ADDITIONAL_PROPERTIES_EXTENDED")
        else:
            yield Compare(ctx, original.additional_schema, update.additional_schema)


def _compare_unevaluated(ctx: Context, original: ObjectNode, update: ObjectNode) -> Steps:
    yield from compare_unevaluated(ctx, "unevaluatedProperties", "UNEVALUATED_PROPERTIES",
                        original.unevaluated, update.unevaluated)


def compare_unevaluated(ctx: Context, keyword: str, change: str, before: Node | None,
                        after: Node | None) -> Steps:
    """`unevaluatedProperties`/`unevaluatedItems`: `false` closes the model, a schema
    narrows it, absent or `true` leaves it open."""
    if before is None and after is None:
        return
    with ctx.at(keyword):
        if before is None:
            ctx.add(f"{change}_REMOVED" if isinstance(after, FalseNode) else f"{change}_NARROWED")
        elif after is None:
            ctx.add(f"{change}_ADDED" if isinstance(before, FalseNode) else f"{change}_EXTENDED")
        elif isinstance(before, FalseNode) and not isinstance(after, FalseNode):
            ctx.add(f"{change}_ADDED")
        elif not isinstance(before, FalseNode) and isinstance(after, FalseNode):
            ctx.add(f"{change}_REMOVED")
        elif isinstance(before, EmptyNode) and not isinstance(after, EmptyNode):
            ctx.add(f"{change}_NARROWED")
        elif not isinstance(before, EmptyNode) and isinstance(after, EmptyNode):
            ctx.add(f"{change}_EXTENDED")
        else:
            yield Compare(ctx, before, after)
