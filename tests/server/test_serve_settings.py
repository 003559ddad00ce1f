"""`sqlregistry serve` and `deploy/gunicorn.conf.py` honour the same REGISTRY_* serving settings
and hand gunicorn the same configuration."""
from __future__ import annotations

import os
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from gunicorn.app.wsgiapp import WSGIApplication
from support.commands import run_command
from support.live import start_server
from support.postgres import free_port

from app.cli.main import build_parser, settings_from_args
from app.server.serving import (
    DatabaseDirectoryMissing, RegistryServer, check_database_directory, gunicorn_options,
)
from app.settings import Settings
from app.storage.head_check import HEAD_REVISION

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVING_ENV = {
    "REGISTRY_HOST": "::1",
    "REGISTRY_PORT": "18123",
    "REGISTRY_WORKERS": "3",
    "REGISTRY_THREADS": "7",
    "REGISTRY_ACCESS_LOG": "/var/log/sqlregistry/access.log",
    "REGISTRY_FORWARDED_ALLOW_IPS": "10.0.0.10,10.0.0.20",
    "REGISTRY_LOG_LEVEL": "warning",
}


def serve_config(settings: Settings) -> dict[str, object]:
    """The configuration gunicorn ends up with under `sqlregistry serve`."""
    cfg = RegistryServer(settings).cfg
    return {name: cfg.settings[name].value for name in gunicorn_options(settings) if name in cfg.settings}


def deploy_config(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """The configuration gunicorn ends up with under `gunicorn -c deploy/gunicorn.conf.py wsgi:app`."""
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.setattr(sys, "argv", ["gunicorn", "-c", "deploy/gunicorn.conf.py", "wsgi:app"])
    cfg = WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]").cfg
    return {name: cfg.settings[name].value for name in gunicorn_options(Settings()) if name in cfg.settings}


def test_serve_passes_threads_access_log_and_forwarded_ips_from_the_environment_to_gunicorn():
    config = serve_config(Settings.from_env(SERVING_ENV))
    assert config["bind"] == ["[::1]:18123"]
    assert (config["workers"], config["threads"]) == (3, 7)
    assert config["accesslog"] == "/var/log/sqlregistry/access.log"
    assert config["forwarded_allow_ips"] == ["10.0.0.10", "10.0.0.20"]
    assert config["worker_class"] == "app.server.gunicorn_worker.JsonErrorWorker"


def test_the_deploy_config_and_serve_give_gunicorn_the_same_settings(monkeypatch: pytest.MonkeyPatch):
    for name, value in SERVING_ENV.items():
        monkeypatch.setenv(name, value)
    assert deploy_config(monkeypatch) == serve_config(Settings.from_env())


def test_the_deploy_config_and_serve_agree_on_the_defaults(monkeypatch: pytest.MonkeyPatch):
    for name in SERVING_ENV:
        monkeypatch.delenv(name, raising=False)
    config = deploy_config(monkeypatch)
    assert config == serve_config(Settings.from_env())
    assert config["bind"] == ["127.0.0.1:8081"]
    assert config["accesslog"] is None


def test_serve_flags_override_the_environment(monkeypatch: pytest.MonkeyPatch):
    for name, value in SERVING_ENV.items():
        monkeypatch.setenv(name, value)
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--threads", "2", "--access-log"])
    settings = settings_from_args(args)
    assert (settings.host, settings.threads, settings.access_log_target) == ("0.0.0.0", 2, "-")
    assert settings.forwarded_allow_ips == "10.0.0.10,10.0.0.20"


@pytest.mark.parametrize(("raw", "target"), [("", None), ("false", None), ("true", "-"), ("-", "-"),
                                             ("/tmp/access.log", "/tmp/access.log")])
def test_registry_access_log_accepts_a_path_a_dash_or_a_boolean(raw: str, target: str | None):
    assert Settings.from_env({"REGISTRY_ACCESS_LOG": raw}).access_log_target == target


def test_serve_with_registry_access_log_dash_logs_each_request_to_stdout(tmp_path: Path):
    server = start_server(f"sqlite:///{tmp_path / 'registry.db'}", tmp_path / "server.log", workers=1,
                          env={"REGISTRY_ACCESS_LOG": "-"})
    try:
        with urllib.request.urlopen(server.url + "/subjects?marker=access-log-probe", timeout=10) as reply:
            assert reply.status == 200
        deadline = time.monotonic() + 10
        while "access-log-probe" not in server.log_tail() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        server.stop()
    assert '"GET /subjects?marker=access-log-probe HTTP/1.1" 200' in server.log_tail()


def test_the_deploy_config_with_an_unreachable_database_exits_1_with_one_line_and_no_traceback():
    env = {**os.environ, "REGISTRY_DATABASE_URL": f"postgresql+psycopg://registry:s3cret@127.0.0.1:{free_port()}/r",
           "REGISTRY_PORT": str(free_port())}
    result = run_command([sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "wsgi:app"],
                         cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("sqlregistry: error: cannot use the database")
    assert "s3cret" not in result.stderr


def test_serve_logs_the_migration_it_runs_and_nothing_once_at_head(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'registry.db'}"
    first = start_server(url, tmp_path / "first.log", workers=1, env={"REGISTRY_LOG_LEVEL": "info"})
    first.stop()
    again = start_server(url, tmp_path / "again.log", workers=1, env={"REGISTRY_LOG_LEVEL": "info"})
    again.stop()
    migrated = [line for line in first.log_path.read_text().splitlines() if "migrating" in line]
    assert len(migrated) == 1
    assert "[INFO] app.storage.migrate: migrating sqlite:///" in migrated[0]
    assert migrated[0].endswith("from an empty database to revision " + HEAD_REVISION)
    assert "migrating" not in again.log_path.read_text()


def test_the_registrys_log_lines_follow_the_servers_log_level(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'registry.db'}"
    quiet = start_server(url, tmp_path / "quiet.log", workers=1, env={"REGISTRY_LOG_LEVEL": "warning"})
    quiet.stop()
    assert "migrating" not in quiet.log_path.read_text()


def test_serve_on_a_port_in_use_exits_1_with_one_line_before_touching_the_database(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        env.pop("REGISTRY_DATABASE_URL", None)
        done = run_command([sys.executable, "-m", "app.cli", "serve", "--port", str(port)], cwd=tmp_path,
                           env=env, capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"sqlregistry: error: 127.0.0.1:{port} is already in use (another server?); choose another with --port"]
    assert not (tmp_path / "data").exists()


def test_serve_refuses_a_sqlite_path_whose_directory_is_missing_with_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent" / "dir"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = run_command([sys.executable, "-m", "app.cli", "serve", "--port", str(free_port()),
                        "--database-url", f"sqlite:///{missing}/reg.db"], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"sqlregistry: error: the directory of the SQLite database {missing}/reg.db does not exist: {missing} "
        "(create it first; only the default database's ./data is made)"]
    assert not (tmp_path / "nonexistent").exists()


def test_the_default_database_directory_is_still_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    check_database_directory(Settings.database_url, Settings.database_url)  # ./data is absent: no refusal
    check_database_directory(f"sqlite:///{tmp_path}/reg.db", Settings.database_url)  # an existing directory
    check_database_directory("postgresql+psycopg://u@h/db", Settings.database_url)  # not a file
    with pytest.raises(DatabaseDirectoryMissing, match="does not exist: data2"):
        check_database_directory("sqlite:///data2/registry.db", Settings.database_url)
