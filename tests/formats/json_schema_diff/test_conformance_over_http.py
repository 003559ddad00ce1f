"""The workplace's conformance runner against the live server, for the four JSON Schema corpora
(issue 15), under STRICT and under LENIENT, on both databases: the whole HTTP path (per-subject
config with `compatibilityPolicy`, registration, the compatibility endpoint, the verbose
messages the runner reads the error types from) and not only the checker in isolation."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

JSON_CORPORA = {"json": 104, "json-2020-12": 113, "json-combined": 28, "json-combined-2020-12": 18}


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["STRICT", "LENIENT"])
def test_json_schema_corpora_pass_over_http_with_matching_error_types(
    live_server: str, shared_dir: Path, tmp_path: Path, policy: str
) -> None:
    runner = shared_dir / "conformance" / "corpus_runner.py"
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(runner), "--url", live_server, "--cleanup", "--policy", policy,
         "--report", str(report), "--corpus", *JSON_CORPORA],
        capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL,
    )
    print(done.stdout)
    totals = json.loads(report.read_text())["totals"]
    assert {name: t["cases"] for name, t in totals.items()} == JSON_CORPORA, done.stdout
    cases = sum(t["cases"] for t in totals.values())
    passed = sum(t["pass"] for t in totals.values())
    assert sum(t["error"] for t in totals.values()) == 0, done.stdout + done.stderr
    assert passed >= 0.98 * cases, done.stdout
    # Beyond the required share, every case and every error type list matches today.
    assert passed == cases, done.stdout
    assert sum(t["types_mismatch"] for t in totals.values()) == 0, done.stdout
