"""The workplace's conformance runner against the live server: every Avro corpus case passes.

`shared/conformance/corpus_runner.py` is what the Avro checker is measured by (issue 3); running
it here keeps the whole HTTP path (config per subject, registration, the compatibility
endpoints, verbose messages) honest on both databases, not only the checker in isolation.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

AVRO_CORPORA = {"avro-backward": 135, "avro-forward": 135, "avro-levels": 32}


def test_every_avro_corpus_case_passes_with_matching_error_types(live_server: str, shared_dir: Path) -> None:
    runner = shared_dir / "conformance" / "corpus_runner.py"
    done = subprocess.run(
        [sys.executable, str(runner), "--url", live_server, "--cleanup", "--corpus", *AVRO_CORPORA],
        capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for corpus, cases in AVRO_CORPORA.items():
        line = re.search(rf"^{corpus}\s+cases=\s*(\d+) pass=\s*(\d+) fail=\s*(\d+) error=\s*(\d+) types_mismatch=(\d+)",
                         done.stdout, re.MULTILINE)
        assert line is not None, done.stdout
        assert [int(n) for n in line.groups()] == [cases, cases, 0, 0, 0]
