"""The global scope on import: the dumped global config is applied unless
`--skip-global-config`; the dumped global mode only with `--apply-global-mode`, while
context and subject settings are applied either way."""
from __future__ import annotations

from pathlib import Path

import pytest

from transfer_helpers import Rest, record, run_cli


@pytest.fixture
def source_dump(registry, tmp_path: Path) -> Path:
    source = Rest(registry("sqlite"))
    source.register("a", record("A", ("x", "int")))
    source.config(None, compatibility="FORWARD")
    source.config("a", compatibility="FULL")
    source.mode(None, "READONLY")
    source.mode("a", "READONLY")
    path = tmp_path / "source.dump"
    assert run_cli("export", "--from", source.url, "--output", str(path)).returncode == 0
    return path


def _target(registry) -> Rest:
    target = Rest(registry("sqlite"))
    target.config(None, compatibility="BACKWARD_TRANSITIVE")
    return target


def test_by_default_the_global_config_is_applied_and_the_global_mode_is_not(registry, source_dump: Path) -> None:
    target = _target(registry)
    done = run_cli("import", "--to", target.url, str(source_dump))
    assert done.returncode == 0, done.stderr
    assert target.call("GET", "/config")["compatibilityLevel"] == "FORWARD"
    assert target.call("GET", "/mode")["mode"] == "READWRITE"
    assert target.call("GET", "/config/a")["compatibilityLevel"] == "FULL"
    assert target.call("GET", "/mode/a")["mode"] == "READONLY"


def test_skip_global_config_leaves_the_targets_own(registry, source_dump: Path) -> None:
    target = _target(registry)
    done = run_cli("import", "--to", target.url, str(source_dump), "--skip-global-config")
    assert done.returncode == 0, done.stderr
    assert target.call("GET", "/config")["compatibilityLevel"] == "BACKWARD_TRANSITIVE"
    assert target.call("GET", "/config/a")["compatibilityLevel"] == "FULL"


def test_apply_global_mode_sets_the_dumped_one_last(registry, source_dump: Path) -> None:
    target = _target(registry)
    done = run_cli("import", "--to", target.url, str(source_dump), "--apply-global-mode")
    assert done.returncode == 0, done.stderr
    assert target.call("GET", "/mode")["mode"] == "READONLY"
    assert target.call("GET", "/subjects/a/versions") == [1]
    again = run_cli("import", "--to", target.url, str(source_dump), "--apply-global-mode")
    assert again.returncode == 0 and again.stdout.strip() == "0 written, 1 already present", again.stderr
