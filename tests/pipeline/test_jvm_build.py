"""A compile error in the JVM decoder's own source is a defect, told apart from a machine
without Java: `JvmBuildFailed` (which the pipeline fixtures fail on everywhere, never skip) and
exit status 2 of `python -m app.pipeline.jvm build` (which scripts/test stops on)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.pipeline import jvm

REPO = Path(__file__).resolve().parents[2]
BROKEN = "package org.sqlregistry.pipeline;\npublic final class Broken { int x = ; }\n"


@pytest.fixture
def broken_source(tmp_path: Path) -> Path:
    """A copy of the decoder's source with one file javac refuses."""
    if shutil.which("javac") is None:
        pytest.skip("no javac: the compile error cannot be reached")
    source = tmp_path / "src"
    shutil.copytree(jvm.SOURCE, source)
    (source / "org/sqlregistry/pipeline/Broken.java").write_text(BROKEN)
    return source


def test_a_source_javac_refuses_raises_build_failed_naming_the_error(
    broken_source: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setattr(jvm, "SOURCE", broken_source)
    with pytest.raises(jvm.JvmBuildFailed, match=r"javac failed: .*Broken\.java"):
        jvm._compile(jvm._pyspark_jars(), tmp_path / "decoder.jar")
    assert not (tmp_path / "decoder.jar").exists()


def test_the_build_command_exits_2_on_a_compile_error_and_1_without_javac(broken_source: Path, tmp_path: Path) -> None:
    run = ("import runpy, sys; from pathlib import Path; import app.pipeline.jvm as jvm; "
           f"jvm.SOURCE = Path({str(broken_source)!r}); sys.argv = ['jvm', 'build']; "
           "runpy.run_module('app.pipeline.jvm', run_name='__main__')")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": str(tmp_path)}
    broken = subprocess.run([sys.executable, "-c", run], env=env, capture_output=True, text=True, timeout=240)
    assert broken.returncode == 2, broken.stderr
    assert "the JVM decoder's source does not compile: javac failed" in broken.stderr
    no_javac = subprocess.run([sys.executable, "-c", run], env={**env, "PATH": str(tmp_path)},
                              capture_output=True, text=True, timeout=240)
    assert no_javac.returncode == 1, no_javac.stderr
    assert "cannot build the JVM decoder: no Java compiler (javac)" in no_javac.stderr
