"""Confluent's own Protobuf diff examples, run straight against the checker (no server).

The cases are loaded the way `shared/conformance/corpus_runner.py` loads them (its loader is
imported, so resource files, references and the expected incompatible types are derived in
one place): each case's original schema is the writer, its update the reader of a BACKWARD
check. Dependencies a side references are compiled beside it; well-known imports resolve
without references, as in the registry.

Three measures per case: the verdict (compatible or not), the set of incompatible change
types (what the conformance runner compares in verbose replies), and the full list of
differences Confluent's test expects, compatible ones included, type and location.
"""
from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from .protobuf_diff_support import compile_native

from app.formats.protobuf.diff import compare, describe, incompatible

CORPORA = {"protobuf": "diff-schema-examples.json", "protobuf-meta": "diff-schema-examples-with-meta.json"}
ERROR_TYPE = re.compile(r"errorType:[\"']([A-Z_]+)")


def _runner(shared_dir: Path) -> ModuleType:
    path = shared_dir / "conformance" / "corpus_runner.py"
    spec = importlib.util.spec_from_file_location("confluent_corpus_runner", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases(shared_dir: Path) -> list[dict[str, Any]]:
    runner = _runner(shared_dir)
    cases = []
    for corpus, file_name in CORPORA.items():
        raw = json.loads((shared_dir / "conformance" / "protobuf" / file_name).read_text(encoding="utf-8"))
        for case, source in zip(runner.CORPORA[corpus](), raw, strict=True):
            cases.append({**case, "changes": source["changes"]})
    return cases


def _check(case: dict[str, Any]) -> dict[str, Any]:
    natives = {}
    for side, schema in (("original", case["history"][0]), ("update", case["new"])):
        dependencies = {d["name"]: d["schema"] for d in case["deps"] if d["side"] == side}
        natives[side] = compile_native(schema["schema"], dependencies)
    differences = compare(natives["original"], natives["update"])
    failures = incompatible(differences)
    reply_types = sorted(set(ERROR_TYPE.findall(" ".join(describe(f, "new", "old") for f in failures))))
    return {
        "compatible": not failures,
        "types": reply_types,
        "changes": sorted(f"{d.type} {d.location}" for d in differences),
    }


@pytest.fixture(scope="module")
def results(shared_dir: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(case, _check(case)) for case in _cases(shared_dir)]


def test_corpora_verdicts_match_confluent(results: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """Every one of the 55 cases gets Confluent's verdict; failing ones are named."""
    assert len(results) == 55
    wrong = [case["id"] for case, got in results if got["compatible"] != case["expected"]["STRICT"]]
    passed = len(results) - len(wrong)
    print(f"\nprotobuf corpora: verdicts {passed}/{len(results)}; wrong: {wrong}")
    assert not wrong, wrong


def test_corpora_incompatible_types_match_confluent(results: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """Where both sides say incompatible, the reply's errorType set is the one Confluent's
    example lists (the runner's `types_match`)."""
    both = [(case, got) for case, got in results if not got["compatible"] and not case["expected"]["STRICT"]]
    wrong = [(case["id"], got["types"], case["expected_types"]["STRICT"])
             for case, got in both if got["types"] != case["expected_types"]["STRICT"]]
    print(f"\nprotobuf corpora: change types match {len(both) - len(wrong)}/{len(both)}; wrong: {wrong}")
    assert not wrong


def test_corpora_differences_match_confluent_exactly(results: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """Every difference of every example, compatible ones included, at Confluent's location."""
    wrong = [(case["id"], got["changes"], sorted(case["changes"]))
             for case, got in results if Counter(got["changes"]) != Counter(case["changes"])]
    print(f"\nprotobuf corpora: full difference lists {len(results) - len(wrong)}/{len(results)}")
    assert not wrong
