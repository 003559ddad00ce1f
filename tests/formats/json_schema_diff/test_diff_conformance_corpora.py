"""Confluent's own JSON Schema diff examples (263 pairs), run straight against the checker.

Each case gives an original (writer) and an update (reader) schema, Confluent's verdict
under STRICT (and LENIENT where it differs) and the changes Confluent reports. The verdict
must match in at least 98% of the cases under each policy; the incompatible change types are
compared too and counted, and every mismatch is printed so a regression names its case.
"""
from __future__ import annotations

import json

import pytest
from support.conformance import DATA, ERROR_TYPE, JSON_ACCEPTED_LENIENT, JSON_ACCEPTED_STRICT, read_json

from app.formats.base import LENIENT_POLICY, STRICT_POLICY
from app.formats.json_schema.diff import compare, describe, incompatible
from app.formats.json_schema.model import build_native

CORPORA = (
    "diff-schema-examples.json",
    "diff-schema-examples-2020-12.json",
    "diff-combined-schema-examples.json",
    "diff-combined-schema-examples-2020-12.json",
)
REQUIRED_VERDICT_SHARE = 0.98


def _cases() -> list[tuple[str, dict]]:
    cases = []
    for name in CORPORA:
        for index, case in enumerate(read_json(DATA / "json-schema" / name)):
            cases.append((f"{name}#{index}", case))
    return cases


def _check(case: dict, policy: str) -> tuple[bool, list[str]]:
    original = build_native(case["original_schema"], {})
    update = build_native(case["update_schema"], {})
    found = incompatible(compare(original, update, policy=policy), policy)
    messages = [describe(i, "new", "old") for i in found]
    return not found, messages


@pytest.mark.parametrize("policy", [STRICT_POLICY, LENIENT_POLICY])
def test_confluent_corpora_verdicts_match(policy: str) -> None:
    accepted = JSON_ACCEPTED_LENIENT if policy == LENIENT_POLICY else JSON_ACCEPTED_STRICT
    cases = _cases()
    verdicts = types_compared = types_matched = 0
    mismatches = []
    for label, case in cases:
        expected = case["compatible_lenient"] if policy == LENIENT_POLICY and "compatible_lenient" in case \
            else case["compatible"]
        got, messages = _check(case, policy)
        if got == expected:
            verdicts += 1
        else:
            mismatches.append(f"VERDICT {label}: {case['description']}: expected {expected}, got {got} {messages}")
        if not got and not expected:
            types_compared += 1
            want = sorted({c.split(" ")[0] for c in case["changes"]} - accepted)
            have = sorted(set(ERROR_TYPE.findall(" ".join(messages))))
            if want == have:
                types_matched += 1
            else:
                mismatches.append(f"TYPES {label}: {case['description']}: expected {want}, got {have}")
    print(f"\n{policy}: verdicts {verdicts}/{len(cases)}, incompatible types {types_matched}/{types_compared}")
    for line in mismatches:
        print("  " + line)
    assert len(cases) == 263
    assert verdicts / len(cases) >= REQUIRED_VERDICT_SHARE, "\n".join(mismatches)
    # Beyond the required share: every verdict and every incompatible type list matches today,
    # so any mismatch is a regression.
    assert not mismatches, "\n".join(mismatches)


def test_every_reported_change_is_one_confluent_lists() -> None:
    """The pointers and types of all changes (compatible ones too) for the cases where
    Confluent lists them: the full difference list, not just the verdict."""
    total = matched = 0
    misses = []
    for label, case in _cases():
        original = build_native(case["original_schema"], {})
        update = build_native(case["update_schema"], {})
        have = sorted(f"{d.type} {d.pointer}" for d in compare(original, update))
        want = sorted(case["changes"])
        total += 1
        if have == want:
            matched += 1
        else:
            misses.append(f"{label}: {case['description']}: expected {want}, got {have}")
    print(f"\nfull difference lists equal: {matched}/{total}")
    for line in misses:
        print("  " + line)
    assert matched / total >= REQUIRED_VERDICT_SHARE, "\n".join(misses)
    assert not misses, "\n".join(misses)


def test_corpus_files_are_read_whole() -> None:
    """Guards the count the verdict share is taken over (trailing commas must not drop cases)."""
    counts = {name: sum(1 for label, _ in _cases() if label.startswith(name + "#")) for name in CORPORA}
    assert counts == {
        "diff-schema-examples.json": 104,
        "diff-schema-examples-2020-12.json": 113,
        "diff-combined-schema-examples.json": 28,
        "diff-combined-schema-examples-2020-12.json": 18,
    }, json.dumps(counts)
