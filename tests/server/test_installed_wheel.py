"""A built wheel, installed outside the source tree, migrates a database and reports it at head.

An editable install finds everything in the checkout; this is the test that catches files the
package forgets to carry (Alembic's scripts and template above all).

The wheel goes into a new venv with `--no-deps`: its dependencies are those of the environment
running the tests, whose site-packages directories the venv lists in a `.pth` file (plain
paths: the `.pth` files inside them, the checkout's editable install among them, are not run).
A venv made `--system-site-packages` from a venv's interpreter sees the base interpreter's
packages, not the venv's, and failed on every machine that had not installed them system-wide.
The wheel's own requirements are then checked against what the venv sees.
"""
from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest
from support.commands import run_command

REPO_ROOT = Path(__file__).resolve().parents[2]
# What a build from a fresh clone would not see either.
_NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv*", "build", "dist", "data", "*.egg-info", "__pycache__", "*.pyc", ".pytest_cache",
    ".hypothesis", ".benchmarks", "*.db", "*.log",
)


def run(command: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    result = run_command([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True,
                         check=False)
    assert result.returncode == 0, f"{command} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def installed_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with only the wheel added; dependencies come from this environment."""
    work = tmp_path_factory.mktemp("wheel")
    # Build from a copy: setuptools writes build/ and *.egg-info next to the sources.
    source = work / "source"
    shutil.copytree(REPO_ROOT, source, ignore=_NOT_SOURCES)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", ".", "-w", work / "dist"], cwd=source)
    wheels = list((work / "dist").glob("sqlregistry-*.whl"))
    assert len(wheels) == 1, wheels
    shutil.rmtree(source)

    venv = work / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=work)
    (site_packages,) = (venv / "lib").glob("python*/site-packages")
    (site_packages / "test_environment.pth").write_text("".join(f"{path}\n" for path in site.getsitepackages()))
    # The venv has no pip of its own: this environment's pip installs into it.
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", wheels[0]], cwd=work)
    return venv


UNMET_REQUIREMENTS = """
from importlib.metadata import PackageNotFoundError, requires, version
from packaging.requirements import Requirement
unmet = []
for line in requires("sqlregistry"):
    requirement = Requirement(line)
    if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
        continue  # an extra's
    try:
        found = version(requirement.name)
    except PackageNotFoundError:
        found = None
    if found is None or found not in requirement.specifier:
        unmet.append(f"{requirement} (found {found})")
print("\\n".join(unmet))
"""


@pytest.mark.slow
def test_wheel_installed_in_a_fresh_venv_upgrades_and_reports_a_database_at_head(installed_venv: Path,
                                                                                 tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("REGISTRY_", "PYTHON"))}
    url = f"sqlite:///{tmp_path / 'state' / 'registry.db'}"
    command = installed_venv / "bin" / "sqlregistry"

    # The editable install of the checkout (a .pth in site-packages) must not be what runs.
    origin = run([installed_venv / "bin" / "python", "-c", "import app; print(app.__file__)"], elsewhere, env)
    assert Path(origin.stdout.strip()).is_relative_to(installed_venv)

    # The wheel's declared dependencies are all there, in versions it accepts.
    assert run([installed_venv / "bin" / "python", "-c", UNMET_REQUIREMENTS], elsewhere, env).stdout.strip() == ""

    upgraded = run([command, "db", "upgrade", "--database-url", url], elsewhere, env)
    assert "at head" in upgraded.stdout
    current = run([command, "db", "current", "--database-url", url], elsewhere, env)
    assert "(empty database)" not in current.stdout
