"""A `--database-url` import on PostgreSQL that a concurrent writer makes fail is rolled back
and run again from its preflight, a bounded number of times with growing pauses, and says so
on stderr; whatever the outcome, the database holds all of the import or none of it.

The concurrent writer is real and in this process, on its own connection to the same
database: the storage layer's own transaction (`Repository.write`), or a registration
through the registry service whose commit waits for the test. The importer is the CLI in a
child process. The test moves on when PostgreSQL itself shows the importer waiting for a
lock (`pg_stat_activity`), so each case meets the race it names: a deadlock, a unique key
committed first, a lock wait cut short by `lock_timeout`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from transfer_helpers import Rest, record, run_cli

from support.commands import communicate
from support.live import REPO_ROOT

from app.core.registry import RegistryService
from app.server.factory import create_app
from app.formats import FORMATS
from app.settings import Settings
from app.storage.repository import Repository
from app.server.in_process import IMPORT_ATTEMPTS

pytestmark = pytest.mark.postgres
RETRY = "import: a concurrent writer got in the way ("


@pytest.fixture
def source_dump(registry, tmp_path: Path) -> Path:
    source = Rest(registry("sqlite"))
    for n, subject in enumerate(("a", "b"), start=1):
        assert source.register(subject, record(subject.upper(), ("f", "int")))["id"] == n
        source.config(subject, compatibility="FULL")
    path = tmp_path / "source.dump"
    done = run_cli("export", "--from", source.url, "--output", str(path))
    assert done.returncode == 0, done.stderr
    return path


def _start_import(database_url: str, dump: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "app.cli", "import", "--database-url", database_url, str(dump)],
                            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def _wait_for_a_lock_waiter(database_url: str, importer: subprocess.Popen[str]) -> None:
    """Until a session of this database waits for a lock: the importer, since the concurrent
    writer is holding, not waiting."""
    url = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    deadline = time.monotonic() + 60
    with psycopg.connect(url, autocommit=True) as watch:
        while True:
            waiting = watch.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                    " AND wait_event_type = 'Lock'").fetchone()[0]
            if waiting:
                return
            assert importer.poll() is None, "the importer ended without waiting: " + importer.stderr.read()
            assert time.monotonic() < deadline, "the importer never waited for the concurrent writer"
            time.sleep(0.02)


class ConcurrentWriter(threading.Thread):
    """Runs `work` on its own thread; `failure` keeps what it raised."""

    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.work, self.result, self.failure = work, None, None

    def run(self) -> None:
        try:
            self.result = self.work()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failure = exc


def _subjects_and_versions(database_url: str) -> list[tuple[str, int, int]]:
    url = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(url) as db:
        return db.execute("SELECT s.name, v.version, sc.id FROM subject_versions v JOIN subjects s ON s.id = v.subject_id"
                          " JOIN schemas sc ON sc.pk = v.schema_pk ORDER BY 1, 2").fetchall()


def _source_url(dump: Path) -> str:
    return json.loads(dump.read_text("utf-8").splitlines()[0])["source"]["url"]


def test_a_deadlock_with_a_concurrent_writer_is_retried_and_the_import_completes(
        registry, empty_pg: str, source_dump: Path) -> None:
    """The writer holds subject `b`; the importer takes `a` and waits for `b`; the writer then
    asks for `a`. PostgreSQL breaks the cycle by failing the importer (its deadlock check,
    at 5 s, comes long before the writer's at 60 s); the second attempt finds both subjects
    configured as the dump wants them and imports the rest."""
    repository = Repository.from_url(empty_pg)
    holding, importer_waits = threading.Event(), threading.Event()

    def configure_b_then_a() -> None:
        with repository.write() as store:
            store.conn.execute(text("SET LOCAL deadlock_timeout = '60s'"))
            store.set_subject_settings(".", "b", config={"compatibility": "FULL"})
            holding.set()
            assert importer_waits.wait(60)
            store.set_subject_settings(".", "a", config={"compatibility": "FULL"})

    writer = ConcurrentWriter(configure_b_then_a)
    writer.start()
    try:
        assert holding.wait(30)
        importer = _start_import(empty_pg, source_dump, {"PGOPTIONS": "-c deadlock_timeout=5s"})
        _wait_for_a_lock_waiter(empty_pg, importer)
        importer_waits.set()
        out, err = communicate(importer)
    finally:
        importer_waits.set()
        writer.join(60)
        repository.close()
    assert writer.failure is None, repr(writer.failure)
    assert importer.returncode == 0, err
    retries = [line for line in err.splitlines() if line.startswith(RETRY)]
    assert len(retries) == 1 and "deadlock detected" in retries[0], err
    assert retries[0].endswith(f"(attempt 2 of {IMPORT_ATTEMPTS})") and "Traceback" not in err
    assert out.strip() == "2 written, 0 already present"
    assert _subjects_and_versions(empty_pg) == [("a", 1, 1), ("b", 1, 2)]
    verified = run_cli("verify", "--from", _source_url(source_dump), "--to", registry("postgres", database_url=empty_pg))
    assert verified.returncode == 0, verified.stdout + verified.stderr


class HeldCommit:
    """The real Repository, except that a write transaction, its work done, waits for
    `release` before it commits: a registration caught between its insert and its commit."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self.written, self.release = threading.Event(), threading.Event()

    @contextmanager
    def write(self) -> Iterator[Any]:
        with self.repository.write() as store:
            yield store
            self.written.set()
            assert self.release.wait(60)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.repository, name)


def test_an_id_a_concurrent_registration_took_first_is_a_conflict_on_the_retry(
        empty_pg: str, source_dump: Path) -> None:
    """A registration of other content draws id 1 and has not committed; the importer
    writes id 1 too and waits on the unique key; the registration commits, the importer's
    insert fails (unique violation), and its second preflight finds id 1 taken: exit 3,
    nothing of the dump written, the registration kept."""
    repository = Repository.from_url(empty_pg)
    held = HeldCommit(repository)
    service = RegistryService(held, FORMATS, Settings(database_url=empty_pg, auto_migrate=False, hot_read_cache=False))
    client = create_app(replace(service.settings, metrics=False), registry=service).test_client()

    def register_z() -> Any:
        reply = client.post("/subjects/z/versions", json={"schema": record("Z", ("z", "string"))})
        assert reply.status_code == 200, reply.get_data(as_text=True)
        return reply.get_json()

    writer = ConcurrentWriter(register_z)
    writer.start()
    try:
        assert held.written.wait(30)
        importer = _start_import(empty_pg, source_dump)
        _wait_for_a_lock_waiter(empty_pg, importer)
        held.release.set()
        out, err = communicate(importer)
    finally:
        held.release.set()
        writer.join(60)
        repository.close()
    assert writer.failure is None, repr(writer.failure)
    assert writer.result["id"] == 1
    assert importer.returncode == 3, out + err
    retries = [line for line in err.splitlines() if line.startswith(RETRY)]
    assert len(retries) == 1 and "duplicate key value violates unique constraint" in retries[0], err
    conflicts = [line for line in err.splitlines() if line.startswith("conflict: ")]
    assert conflicts == ["conflict: ID_TAKEN context=. id=1 (the target holds other content under this id)"]
    assert "nothing written" in err and "Traceback" not in err
    assert _subjects_and_versions(empty_pg) == [("z", 1, 1)]


@pytest.mark.parametrize("release_after_first_failure", [True, False], ids=["writer-finishes", "writer-never-does"])
def test_a_lock_wait_cut_short_by_lock_timeout_is_retried_a_bounded_number_of_times(
        empty_pg: str, source_dump: Path, release_after_first_failure: bool) -> None:
    """The operator's `lock_timeout` (200 ms, in the URL) cuts the importer's wait for subject
    `b` short. A writer that then commits lets the next attempt through; one that never does
    makes the importer give up after its last attempt, one error line, nothing written."""
    repository = Repository.from_url(empty_pg)
    holding, release = threading.Event(), threading.Event()

    def hold_b() -> None:
        with repository.write() as store:
            store.set_subject_settings(".", "b", config={"compatibility": "FULL"})
            holding.set()
            assert release.wait(120)

    writer = ConcurrentWriter(hold_b)
    writer.start()
    impatient = f"{empty_pg}?options=-c%20lock_timeout%3D200"
    try:
        assert holding.wait(30)
        importer = _start_import(impatient, source_dump)
        lines = []
        for line in importer.stderr:
            lines.append(line.rstrip("\n"))
            if line.startswith(RETRY) and release_after_first_failure:
                release.set()
        importer.wait(180)
        out = importer.stdout.read()
    finally:
        release.set()
        writer.join(60)
        repository.close()
    assert writer.failure is None, repr(writer.failure)
    retries = [line for line in lines if line.startswith(RETRY)]
    assert retries and all("canceling statement due to lock timeout" in line for line in retries), lines
    assert "Traceback" not in "\n".join(lines)
    if release_after_first_failure:
        assert importer.returncode == 0, lines
        assert out.strip() == "2 written, 0 already present"
        assert _subjects_and_versions(empty_pg) == [("a", 1, 1), ("b", 1, 2)]
    else:
        assert importer.returncode == 1, lines
        assert len(retries) == IMPORT_ATTEMPTS - 1
        assert lines[-1] == (f"error: gave up after {IMPORT_ATTEMPTS} attempts, each failed by a concurrent writer "
                             "(last: canceling statement due to lock timeout); nothing written")
        assert _subjects_and_versions(empty_pg) == []


def test_a_database_failure_that_is_no_race_is_not_retried_and_says_what_failed(
        empty_pg: str, source_dump: Path) -> None:
    """A trigger refuses every version row: one clear line with the database's own message
    instead of the bare 500 the API in the importer answered, no second attempt, nothing written."""
    url = make_url(empty_pg).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(url) as db:
        db.execute("CREATE FUNCTION refuse_versions() RETURNS trigger LANGUAGE plpgsql AS"
                   " $$ BEGIN RAISE EXCEPTION 'versions are refused here'; END $$")
        db.execute("CREATE TRIGGER refuse_versions BEFORE INSERT ON subject_versions"
                   " FOR EACH ROW EXECUTE FUNCTION refuse_versions()")
    done = run_cli("import", "--database-url", empty_pg, str(source_dump))
    assert done.returncode == 1, done.stderr
    assert not any(line.startswith(RETRY) for line in done.stderr.splitlines())
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].endswith(
        "refused the import: versions are refused here; nothing written"), done.stderr
    assert "Traceback" not in done.stderr
    with psycopg.connect(url) as db:
        assert db.execute("SELECT count(*) FROM subjects").fetchone()[0] == 0
