"""Registries that misbehave or lack features, each a live sqlregistry behind one of
wrapped_wsgi's middlewares: a source whose reads fail with 503 (retried three times with
backoff; the dump is the one a healthy source gives), a target without contexts (conflict
UNSUPPORTED, nothing written), and a target that stores an imported version under an id of
its own (exit 1 naming the version)."""
from __future__ import annotations

import json
from pathlib import Path

from transfer_helpers import Rest, record, run_cli, snapshot


def _records(path: Path) -> list[dict]:
    """Every line but the header (its source URL differs) and the end line (its checksum covers the header)."""
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:-1]]


def _source(registry) -> str:
    url = registry("sqlite")
    rest = Rest(url)
    rest.register("a", record("A", ("x", "int")))
    rest.register(":.staging:b", record("B", ("y", "int")))
    rest.config("a", compatibility="FULL")
    return url


def test_reads_failing_with_503_are_retried_and_the_dump_is_unchanged(registry, tmp_path: Path) -> None:
    healthy = _source(registry)
    failures = tmp_path / "failures.log"
    flaky = registry("sqlite", database_url=registry.databases[healthy],
                     env={"TRANSFER_TEST_FAIL_TIMES": "3", "TRANSFER_TEST_FAILURE_LOG": str(failures)})
    plain, retried = tmp_path / "plain.dump", tmp_path / "retried.dump"
    assert run_cli("export", "--from", healthy, "--output", str(plain)).returncode == 0
    done = run_cli("export", "--from", flaky, "--output", str(retried))
    assert done.returncode == 0, done.stderr
    assert _records(retried) == _records(plain)
    refused = failures.read_text("utf-8").splitlines()
    assert refused.count("/subjects?deleted=true") == 3  # each read: three 503s, then the answer


def test_reads_that_keep_failing_end_in_one_error_line_after_four_attempts(registry, tmp_path: Path) -> None:
    healthy = _source(registry)
    failures = tmp_path / "failures.log"
    down = registry("sqlite", database_url=registry.databases[healthy],
                    env={"TRANSFER_TEST_FAIL_TIMES": "1000", "TRANSFER_TEST_FAILURE_LOG": str(failures)})
    out = tmp_path / "never.dump"
    done = run_cli("export", "--from", down, "--output", str(out))
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: GET {down}/") and "503" in lines[0], done.stderr
    assert lines[0].endswith("(after 3 retries)")
    assert not out.exists()
    assert len(set(failures.read_text("utf-8").splitlines())) == 1  # it stopped at the first read ...
    assert len(failures.read_text("utf-8").splitlines()) == 4  # ... after the first try and three retries


def test_a_target_without_contexts_is_unsupported_and_nothing_is_written(registry, tmp_path: Path) -> None:
    dump = tmp_path / "source.dump"
    assert run_cli("export", "--from", _source(registry), "--output", str(dump)).returncode == 0
    target = registry("sqlite", env={"TRANSFER_TEST_NO_CONTEXTS": "1"})
    before = snapshot(registry("sqlite", database_url=registry.databases[target]))
    done = run_cli("import", "--to", target, str(dump))
    assert done.returncode == 3, done.stdout + done.stderr
    conflicts = [line for line in done.stderr.splitlines() if line.startswith("conflict: ")]
    assert "conflict: UNSUPPORTED context=.staging (the target has no contexts)" in conflicts
    assert any(line.startswith("conflict: UNSUPPORTED subject=:.staging:b version=1 id=1") for line in conflicts)
    assert snapshot(registry("sqlite", database_url=registry.databases[target])) == before


def test_a_target_that_stores_another_id_stops_the_import_naming_the_version(registry, tmp_path: Path) -> None:
    dump = tmp_path / "source.dump"
    assert run_cli("export", "--from", _source(registry), "--output", str(dump)).returncode == 0
    target = registry("sqlite", env={"TRANSFER_TEST_RENUMBER": "100"})
    done = run_cli("import", "--to", target, str(dump))
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert errors == ["error: the target stored subject 'a' version 1 under id 101, not 1; "
                      "stopping (modes stay IMPORT until a re-run)"], done.stderr
    assert "Traceback" not in done.stderr
