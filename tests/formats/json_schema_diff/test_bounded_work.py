"""The checker's work is linear in the schemas: each pair of types is compared once and its
differences are reported once, at the first pointer it is met, however many paths through
shared definitions lead to it. Work is bounded by counting pairs, passes and differences; a
pattern matched against a property name is stopped if it runs away."""
from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.formats import work_budget
from app.formats.base import STRICT_POLICY, SchemaParseError
from app.formats.json_schema import pattern_process
from app.formats.json_schema.diff import comparison, incompatible, objects
from app.formats.json_schema.patterns import IN_PROCESS_CHARS
from app.formats.json_schema.model import build_native
from support.json_samples import shared_definitions

from .json_schema_rules import modern
from .test_references_and_nesting import _circular

NAMES = ("a", "b", "c")
# The most differences one pair of these generated types can report itself: one per property
# (added, removed), per required name, the content model, the type and the maxLength.
MAX_OWN_DIFFERENCES = 2 * len(NAMES) + 4


def test_a_change_reached_along_two_to_the_forty_paths_is_compared_and_reported_once() -> None:
    found = comparison(build_native(shared_definitions(40, "string"), {}), build_native(shared_definitions(40, "integer"), {}))
    assert [d.type for d in found.differences] == ["TYPE_CHANGED"]
    assert found.differences[0].pointer == "#/" + "/".join(["properties/a"] * 40)
    assert found.pairs <= 41
    assert found.passes == 1


def test_a_compatible_change_reached_along_many_paths_is_reported_once() -> None:
    found = comparison(build_native(shared_definitions(40, "integer"), {}), build_native(shared_definitions(40, "number"), {}))
    assert [d.type for d in found.differences] == ["TYPE_EXTENDED"]
    assert not incompatible(found.differences, STRICT_POLICY)


def test_a_walk_stops_at_the_request_budget_with_a_schema_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock advances one second per reading, so a 20 s budget allows 20 steps."""
    ticks = itertools.count()
    monkeypatch.setattr(work_budget, "cpu_clock", lambda: float(next(ticks)))
    writer, reader = build_native(shared_definitions(40, "string"), {}), build_native(shared_definitions(40, "integer"), {})
    with work_budget.limited(20.0), pytest.raises(work_budget.WorkBudgetExceeded):
        comparison(writer, reader)


def test_a_repeated_pass_compares_again_only_the_pairs_that_leaned_on_a_cycle() -> None:
    """A recursive definition whose change is only known once its pass ends needs a second
    pass; the forty-level shared part, settled in the first, is not compared again."""
    writer = shared_definitions(40, "string")
    writer["$defs"]["Node"] = {"type": "object", "properties": {
        "next": {"$ref": "#/$defs/Node"}, "shared": {"$ref": "#/$defs/D40"}, "x": {"type": "string"}}}
    writer["$ref"] = "#/$defs/Node"
    reader = copy.deepcopy(writer)
    reader["$defs"]["Node"]["properties"]["x"] = {"type": "integer"}
    found = comparison(build_native(writer, {}), build_native(reader, {}))
    first_pass = 40 + 2  # D1..D40 (D0 reads the same on both sides: never compared), Node, x
    assert found.pairs_per_pass == (first_pass, 1)
    assert [f"{d.type} {d.pointer}" for d in found.differences] == ["TYPE_CHANGED #/properties/x"]


# ---------------------------------------------------------------- random shared definitions
@st.composite
def _definition(draw: st.DrawFn, index: int, one_in: int) -> dict[str, Any]:
    """Definition `index`: a scalar (one in `one_in`), or an object whose properties refer to
    lower definitions (the first to the one just below, so the chain is as deep as it is long)."""
    if index == 0 or draw(st.integers(1, one_in)) == 1:
        scalar = draw(st.sampled_from(["string", "integer", "number"]))
        if scalar == "string" and draw(st.booleans()):
            return {"type": "string", "maxLength": draw(st.integers(1, 3))}
        return {"type": scalar}
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES), unique=True))
    targets = [index - 1] + [draw(st.integers(0, index - 1)) for _ in names[1:]]
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {name: {"$ref": f"#/$defs/D{target}"} for name, target in zip(names, targets)},
    }
    required = draw(st.lists(st.sampled_from(names), max_size=len(names), unique=True))
    if required:
        schema["required"] = required
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


@st.composite
def _pairs(
    draw: st.DrawFn, max_definitions: int, one_in: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Writer and reader definitions: the reader keeps each writer definition, or (one in
    `one_in`) has a new one in its place. Rare changes and rare scalars keep the walk going
    down a long chain."""
    count = draw(st.integers(1, max_definitions))
    writer = [draw(_definition(i, one_in)) for i in range(count)]
    reader = [draw(_definition(i, one_in)) if draw(st.integers(1, one_in)) == 1 else copy.deepcopy(d)
              for i, d in enumerate(writer)]
    return writer, reader


def _document(definitions: list[dict[str, Any]]) -> dict[str, Any]:
    return modern({"$defs": {f"D{i}": d for i, d in enumerate(definitions)},
                   "$ref": f"#/$defs/D{len(definitions) - 1}"})


def _reference_compatible(writer: list[dict[str, Any]], reader: list[dict[str, Any]], i: int, j: int) -> bool:
    """Whether reader definition `j` reads what writer definition `i` wrote under STRICT, by
    the rules for the generated keywords, recursively and with no memory (exponential)."""
    old, new = writer[i], reader[j]
    if (old["type"] == "object") != (new["type"] == "object"):
        return False
    if old["type"] != "object":
        if old["type"] != new["type"] and (old["type"], new["type"]) != ("integer", "number"):
            return False
        before, after = old.get("maxLength"), new.get("maxLength")
        return after is None or (before is not None and after >= before)
    old_closed = old.get("additionalProperties") is False
    new_closed = new.get("additionalProperties") is False
    if new_closed and not old_closed:
        return False  # writers may have sent any property
    old_required, new_required = set(old.get("required", [])), set(new.get("required", []))
    for name, target in old["properties"].items():
        if name not in new["properties"]:
            if new_closed:
                return False  # the reader refuses a property writers sent
            continue
        if name in new_required and name not in old_required:
            return False
        if not _reference_compatible(writer, reader, _index(target), _index(new["properties"][name])):
            return False
    added = [name for name in new["properties"] if name not in old["properties"]]
    # A property added where writers could have sent anything, or a new required one.
    return not any(not old_closed or name in new_required for name in added)


def _index(reference: dict[str, str]) -> int:
    return int(reference["$ref"].rsplit("D", 1)[1])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_pairs(max_definitions=5, one_in=3))
def test_small_shared_definitions_get_the_verdict_of_a_plain_recursive_comparison(
    pair: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    writer, reader = pair
    found = comparison(build_native(_document(writer), {}), build_native(_document(reader), {}))
    expected = _reference_compatible(writer, reader, len(writer) - 1, len(reader) - 1)
    assert (not incompatible(found.differences, STRICT_POLICY)) is expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_pairs(max_definitions=41, one_in=12))
def test_shared_definitions_forty_deep_compare_with_work_bounded_by_their_count(
    pair: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    writer, reader = pair
    found = comparison(build_native(_document(writer), {}), build_native(_document(reader), {}))
    assert found.passes == 1  # no cycles: nothing to repeat
    assert found.pairs <= len(writer) * len(reader)
    assert len(found.differences) <= MAX_OWN_DIFFERENCES * found.pairs


def test_a_pattern_that_backtracks_without_end_on_a_property_name_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """`^(a|aa)+$` on forty `a`s and a `b` takes some 2^40 steps: the match is stopped."""
    monkeypatch.setattr(objects, "MATCH_SECONDS", 0.01)
    partial = {"type": "object", "patternProperties": {"^(a|aa)+$": {"type": "string"}}}
    added = {**partial, "properties": {"a" * 40 + "b": {"type": "string"}}}
    with pytest.raises(SchemaParseError) as raised:
        comparison(build_native(partial, {}), build_native(added, {}))
    assert "takes too long to match the property name" in raised.value.message


def test_an_ecma_262_pattern_python_lacks_matches_property_names() -> None:
    partial = {"type": "object", "patternProperties": {r"^\p{Lu}": {"type": "string"}}}
    added = {**partial, "properties": {"Name": {"type": "string"}}}
    found = comparison(build_native(partial, {}), build_native(added, {}))
    assert [d.type for d in found.differences] == [
        "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"]


def _long_pattern_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """A partially open model whose one pattern is longer than what is compiled in process, and
    the same model gaining a property the pattern covers."""
    pattern = "^N(?:a|e)" + "(?:q)?" * (IN_PROCESS_CHARS // 6 + 1)
    partial = {"type": "object", "patternProperties": {pattern: {"type": "string"}}}
    return partial, {**partial, "properties": {"Name": {"type": "string"}}}


def test_a_pattern_too_long_to_compile_in_process_is_matched_in_a_child_with_the_same_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[list[str]] = []
    popen = pattern_process.subprocess.Popen

    def recording(arguments: list[str], **kwargs: Any) -> Any:
        started.append(arguments)
        return popen(arguments, **kwargs)

    monkeypatch.setattr(pattern_process.subprocess, "Popen", recording)
    partial, added = _long_pattern_pair()
    found = comparison(build_native(partial, {}), build_native(added, {}))
    assert [d.type for d in found.differences] == [
        "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"]
    assert len(started) == 1 and "regex" in started[0][-1]  # one child, running the matcher


def test_a_long_patterns_child_outrunning_the_budget_refuses_the_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    partial, added = _long_pattern_pair()
    writer, reader = build_native(partial, {}), build_native(added, {})
    monkeypatch.setattr(work_budget, "process_cpu_seconds", lambda pid, seen: 6.0)  # past 5 s at the first reading
    with work_budget.limited(5.0), pytest.raises(work_budget.WorkBudgetExceeded, match=r"\(5 s\)"):
        comparison(writer, reader)


def test_a_change_inside_recursive_unions_repeats_only_the_pairs_on_cycles() -> None:
    """Confluent's stress shape (twelve types whose properties hold any of them) with one
    branch narrowed: the fixpoint's second pass compares again only what the first could not
    settle (the pairs on a cycle), not every pair."""
    writer = _circular(12, 5)
    reader = copy.deepcopy(writer)
    reader["$defs"]["SimpleId"]["properties"]["id"]["maxLength"] = 8
    found = comparison(build_native(writer, {}), build_native(reader, {}))
    first, second = found.pairs_per_pass
    assert second < first / 2
    assert [d.type for d in found.differences] == ["COMBINED_TYPE_SUBSCHEMAS_CHANGED"]
