"""The `sqlregistry` command: what an operator sees when something is wrong, and `--version`.

Failures the operator can fix end with exactly one line on stderr and exit status 1, never a
traceback; a question (`db current`) never creates the database it asks about.
"""
from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from support.commands import run_command
from support.postgres import PostgresCluster, free_port

from app.cli.main import main
from app.storage.migrate import head_revision, upgrade_url

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_error_line(err: str, *fragments: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("sqlregistry: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize("command", [["db", "current"], ["db", "upgrade"], ["serve"]])
def test_an_unparseable_database_url_is_one_line_and_exit_1(capsys, command: list[str]):
    status, _, err = run_main(capsys, *command, "--database-url", "registry.db")
    assert status == 1
    assert_one_error_line(err, "cannot parse the database URL", "sqlite:///")


def test_an_unknown_url_scheme_names_the_scheme_and_the_supported_ones(capsys):
    status, _, err = run_main(capsys, "db", "upgrade", "--database-url", "mysql+nodriver://u@h/db")
    assert status == 1
    assert_one_error_line(err, "'mysql+nodriver'", "postgresql+psycopg://")


@pytest.mark.parametrize("command", [["db", "current"], ["db", "upgrade"], ["serve"]])
def test_an_unreachable_postgres_is_one_line_without_the_password(capsys, monkeypatch, command: list[str]):
    monkeypatch.setenv("REGISTRY_AUTO_MIGRATE", "false")  # `serve` still proves the database answers
    url = f"postgresql+psycopg://registry:s3cret@127.0.0.1:{free_port()}/registry"
    status, _, err = run_main(capsys, *command, "--database-url", url)
    assert status == 1
    assert_one_error_line(err, "cannot use the database postgresql+psycopg://registry:***@127.0.0.1")
    assert "s3cret" not in err


def test_a_missing_psycopg_says_to_install_the_postgres_extra(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what `import psycopg` meets when not installed
    status, _, err = run_main(capsys, "db", "upgrade", "--database-url", "postgresql+psycopg://u@127.0.0.1/db")
    assert status == 1
    assert_one_error_line(err, "pip install 'sqlregistry[postgres]'")


def test_a_postgres_url_naming_psycopg2_points_at_the_supported_driver(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg2", None)
    status, _, err = run_main(capsys, "db", "current", "--database-url", "postgresql+psycopg2://u@127.0.0.1/db")
    assert status == 1
    assert_one_error_line(err, "psycopg2", "sqlregistry[postgres]", "postgresql+psycopg://")


def test_a_registry_setting_that_does_not_convert_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("REGISTRY_PORT", "eighty")
    status, _, err = run_main(capsys, "db", "current")
    assert status == 1
    assert_one_error_line(err, "REGISTRY_PORT", "'eighty'")


@pytest.mark.parametrize(("argv", "env", "fragment"), [
    (["serve", "--threads", "0"], {}, "REGISTRY_THREADS (--threads): must be at least 1, got 0"),
    (["serve", "--workers", "0"], {}, "REGISTRY_WORKERS (--workers): must be at least 1, got 0"),
    (["serve"], {"REGISTRY_PORT": "70000"}, "REGISTRY_PORT (--port): must be between 1 and 65535, got 70000"),
])
def test_a_serving_setting_out_of_range_is_one_line_before_gunicorn_starts(capsys, monkeypatch, argv, env, fragment):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    status, _, err = run_main(capsys, *argv)
    assert status == 1
    assert_one_error_line(err, fragment)


def test_db_current_on_a_missing_sqlite_file_says_so_and_creates_nothing(capsys, tmp_path: Path):
    target = tmp_path / "not" / "there" / "registry.db"
    status, out, _ = run_main(capsys, "db", "current", "--database-url", f"sqlite:///{target}")
    assert status == 1
    assert f"{target} does not exist" in out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.postgres
def test_db_current_on_a_missing_postgres_database_is_one_line(capsys, pg_cluster: PostgresCluster):
    status, _, err = run_main(capsys, "db", "current", "--database-url", pg_cluster.url("no_such_database"))
    assert status == 1
    assert_one_error_line(err, "no_such_database", "does not exist")


def test_db_current_exits_1_on_an_unmigrated_database_and_0_once_upgraded(capsys, empty_database_url: str):
    status, out, _ = run_main(capsys, "db", "current", "--database-url", empty_database_url)
    assert status == 1
    assert head_revision() not in out.splitlines()[0]

    upgrade_url(empty_database_url)
    status, out, _ = run_main(capsys, "db", "current", "--database-url", empty_database_url)
    assert (status, out.splitlines()[0]) == (0, f"current: {head_revision()}")


def test_version_prints_the_installed_distribution_version():
    result = run_command([sys.executable, "-m", "app.cli", "--version"], cwd=REPO_ROOT,
                         capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"sqlregistry {version('sqlregistry')}\n", "")


def test_a_failure_in_a_real_process_prints_no_traceback(tmp_path: Path):
    result = run_command(
        [sys.executable, "-m", "app.cli", "db", "upgrade", "--database-url", "nonsense"],
        cwd=tmp_path, env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert_one_error_line(result.stderr, "cannot parse the database URL")


_WITHOUT_SPARK = """
import sys
class NoSpark:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pyspark", "pyarrow", "pandas", "py4j"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoSpark())
from app.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_pipeline_without_its_extra_has_help_and_says_what_to_install(tmp_path: Path) -> None:
    def run(*words: str) -> subprocess.CompletedProcess[str]:
        return run_command([sys.executable, "-c", _WITHOUT_SPARK, *words], capture_output=True, text=True,
                           cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})

    helped = run("pipeline", "decode", "--help")
    assert helped.returncode == 0 and "--on-error" in helped.stdout and helped.stderr == ""
    ran = run("pipeline", "decode", "--input", "x", "--subject", "s", "--output", "out")
    assert ran.returncode == 1
    assert ran.stderr.splitlines() == [
        "sqlregistry pipeline: error: the pipeline needs PySpark and pyarrow: pip install 'sqlregistry[pipeline]' "
        "(missing: pyspark)"]
