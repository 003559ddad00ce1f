"""The workplace's conformance runner against the live server: every case of every corpus passes
(Avro, JSON Schema under each `compatibilityPolicy`, Protobuf), with Confluent's error types.

`shared/conformance/corpus_runner.py` is what the checkers are measured by;
running it here keeps the whole HTTP path (config per subject, registration, the compatibility
endpoints, verbose messages) honest on both databases, not only the checkers in isolation.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

AVRO_CORPORA = {"avro-backward": 135, "avro-forward": 135, "avro-levels": 32}
JSON_CORPORA = {"json": 104, "json-2020-12": 113, "json-combined": 28, "json-combined-2020-12": 18}


def run_corpora(live_server: str, shared_dir: Path, corpora: dict[str, int], *options: str) -> dict[str, list[int]]:
    """corpus -> [cases, pass, fail, error, types_mismatch] as the runner reports them."""
    runner = shared_dir / "conformance" / "corpus_runner.py"
    done = subprocess.run(
        [sys.executable, str(runner), "--url", live_server, "--cleanup", "--corpus", *corpora, *options],
        capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL,
    )
    assert not done.stderr, done.stderr
    totals = {}
    for corpus in corpora:
        line = re.search(rf"^{corpus}\s+cases=\s*(\d+) pass=\s*(\d+) fail=\s*(\d+) error=\s*(\d+) types_mismatch=(\d+)",
                         done.stdout, re.MULTILINE)
        assert line is not None, done.stdout
        totals[corpus] = [int(n) for n in line.groups()]
    return totals


def test_every_avro_corpus_case_passes_with_matching_error_types(live_server: str, shared_dir: Path) -> None:
    totals = run_corpora(live_server, shared_dir, AVRO_CORPORA)
    for corpus, cases in AVRO_CORPORA.items():
        assert totals[corpus] == [cases, cases, 0, 0, 0], corpus


@pytest.mark.parametrize("policy", ["STRICT", "LENIENT"])
def test_json_schema_corpora_verdicts_pass(live_server: str, shared_dir: Path, policy: str) -> None:
    totals = run_corpora(live_server, shared_dir, JSON_CORPORA, "--policy", policy)
    assert {corpus: counts[0] for corpus, counts in totals.items()} == JSON_CORPORA
    assert sum(counts[3] for counts in totals.values()) == 0, totals  # no case fails to run
    passed = sum(counts[1] for counts in totals.values())
    assert passed == sum(JSON_CORPORA.values()), totals
    assert sum(counts[4] for counts in totals.values()) == 0, totals


PROTOBUF_CORPORA = {"protobuf": 54, "protobuf-meta": 1}


def test_protobuf_corpora_pass_with_references_registered_under_subjects(live_server: str, shared_dir: Path) -> None:
    """Confluent's Protobuf diff examples: every one of the 55 verdicts, the
    dependencies registered first and referenced by name, the well-known imports without
    references."""
    totals = run_corpora(live_server, shared_dir, PROTOBUF_CORPORA)
    assert {corpus: counts[0] for corpus, counts in totals.items()} == PROTOBUF_CORPORA
    assert sum(counts[3] for counts in totals.values()) == 0, totals
    passed = sum(counts[1] for counts in totals.values())
    assert passed == sum(PROTOBUF_CORPORA.values()), totals
