"""The auth file is re-read when it changes, in every worker, at its first check a second or
more after the change; a broken new file leaves the previous one in force, logged and counted
once per worker.

The watcher itself runs on a fake clock; the two-worker cases run `sqlregistry serve` and
edit its file the ways operators do (in place, and by renaming a new file over it)."""
from __future__ import annotations

import logging
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from auth_support import basic, hashed, serve_with_auth_file, users_text, write_file
from support.reloads import wait_for_every_worker

from app.security.errors import AuthFileError
from app.security.records import Role
from app.security.reload import AuthFileWatcher


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def grant(role: str) -> str:
    return f'\n[[grants]]\nprincipal = "group:payments"\nrole = "{role}"\nsubjects = ["prefix:payments."]\n'


def replace_atomically(path: Path, text: str) -> None:
    staging = path.with_suffix(".new")
    write_file(staging, text)
    os.replace(staging, path)


@pytest.fixture
def watched(tmp_path: Path) -> tuple[Path, Clock, list[int], AuthFileWatcher]:
    path = write_file(tmp_path / "auth.toml", users_text() + grant("read"))
    clock, failures = Clock(), []
    watcher = AuthFileWatcher(path, on_reload_failure=lambda: failures.append(1), clock=clock)
    return path, clock, failures, watcher


def test_a_change_is_seen_at_the_first_check_after_a_second(watched):
    path, clock, _, watcher = watched
    first = watcher.current()
    write_file(path, users_text() + grant("admin"))
    clock.now += 0.9
    assert watcher.current() is first  # not looked at yet: at most one stat a second
    clock.now += 0.1
    changed = watcher.current()
    assert changed is not first and changed.grants[0].role is Role.ADMIN
    clock.now += 5
    assert watcher.current() is changed  # unchanged file: the same records


def test_an_atomic_rename_is_seen_even_with_the_same_size_and_time(watched):
    path, clock, _, watcher = watched
    before = os.stat(path)
    # Same length as "read": only the inode tells the new file apart.
    replace_atomically(path, users_text() + grant("read").replace('"group:payments"', '"group:paymentz"'))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size
    clock.now += 1
    assert watcher.current().grants[0].principal == "group:paymentz"


def test_an_invalid_new_file_keeps_the_old_one_and_is_counted_and_logged_once(watched, caplog):
    path, clock, failures, watcher = watched
    good = watcher.current()
    with caplog.at_level(logging.ERROR, logger="app.security.reload"):
        write_file(path, users_text() + grant("owner"))
        for _ in range(5):
            clock.now += 1
            assert watcher.current() is good
    assert failures == [1]
    assert [r.getMessage() for r in caplog.records] == [
        f"auth file {path}: grants[0].role: unknown role 'owner' (known: read, write, admin); "
        "the previous auth file stays in force"
    ]
    write_file(path, users_text() + grant("write"))
    clock.now += 1
    assert watcher.current().grants[0].role is Role.WRITE


def test_a_removed_file_keeps_the_old_one(watched):
    path, clock, failures, watcher = watched
    good = watcher.current()
    path.unlink()
    clock.now += 1
    assert watcher.current() is good
    clock.now += 1
    assert watcher.current() is good
    assert failures == [1]


def test_a_worker_started_on_an_invalid_file_takes_the_masters_copy(tmp_path: Path, caplog):
    good = AuthFileWatcher(write_file(tmp_path / "auth.toml", users_text() + grant("read"))).current()
    path = write_file(tmp_path / "auth.toml", users_text() + grant("owner"))
    clock, failures = Clock(), []
    with caplog.at_level(logging.ERROR, logger="app.security.reload"):
        watcher = AuthFileWatcher(path, fallback=good, on_reload_failure=lambda: failures.append(1), clock=clock)
        assert watcher.current() is good
        clock.now += 1
        assert watcher.current() is good  # the same bad file is not looked at again
    assert failures == [1]
    assert [r.getMessage() for r in caplog.records] == [
        f"auth file {path}: grants[0].role: unknown role 'owner' (known: read, write, admin); "
        "the auth file loaded at start stays in force"
    ]
    write_file(path, users_text() + grant("write"))
    clock.now += 1
    assert watcher.current().grants[0].role is Role.WRITE


def test_without_a_fallback_an_invalid_file_at_start_raises(tmp_path: Path):
    with pytest.raises(AuthFileError, match="unknown role 'owner'"):
        AuthFileWatcher(write_file(tmp_path / "auth.toml", users_text() + grant("owner")))


def test_a_reload_empties_the_credential_cache(auth_app, scrypt_calls, reload_clock, tmp_path: Path):
    client = auth_app(users_text()).test_client()
    assert client.get("/subjects", headers=basic("alice", "alice-secret")).status_code == 200
    assert client.get("/subjects", headers=basic("alice", "alice-secret")).status_code == 200
    assert scrypt_calls.take() == 1
    write_file(tmp_path / "auth.toml", users_text() + grant("write"))  # same users, new grant
    reload_clock.advance()
    assert client.get("/subjects", headers=basic("alice", "alice-secret")).status_code == 200
    assert scrypt_calls.take() == 1


# ------------------------------------------------------------------ two gunicorn workers
# Polling refused credentials would soon pass the per-address failure limit, after which an
# uncached login from the same address is refused unhashed (test_basic_auth pins that).
UNLIMITED = "[authentication]\nmax_failures_per_minute = 1000000\n"
ALICE, BOB, CAROL = basic("alice", "alice-secret"), basic("bob", "bob-secret"), basic("carol", "carol-secret")
WITH_CAROL = f'\n[[users]]\nname = "carol"\npassword = "{hashed("carol-secret")}"\ngroups = ["payments"]\n'


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, Path]]:
    workdir = tmp_path_factory.mktemp("reload")
    live = serve_with_auth_file(workdir, UNLIMITED + users_text())
    try:
        yield live.url, workdir / "auth.toml", live.log_path
    finally:
        live.stop()


def status(url: str, headers: dict[str, str]) -> int:
    """One request on a fresh connection, so that successive calls spread over the workers."""
    return requests.get(url + "/subjects", headers=headers, timeout=10).status_code


def in_force_within(url: str, expected: dict[str, int]) -> float:
    """Seconds until every credential gets its expected status, which then holds on 30 fresh
    connections (each of the two workers gets some of them) once every worker has looked at
    the file again (support/reloads.py)."""
    elapsed = wait_for_every_worker(lambda: all(status(url, headers) == code for headers, code in _pairs(expected)))
    for _ in range(30):
        for headers, code in _pairs(expected):
            assert status(url, headers) == code
    return elapsed


def _pairs(expected: dict[str, int]) -> list[tuple[dict[str, str], int]]:
    by_name = {"alice": ALICE, "bob": BOB, "carol": CAROL}
    return [(by_name[name], code) for name, code in expected.items()]


def reset(server: tuple[str, Path, Path]) -> None:
    url, path, _ = server
    replace_atomically(path, UNLIMITED + users_text())
    in_force_within(url, {"alice": 200, "bob": 200, "carol": 401})


def test_a_user_added_by_atomic_rename_gets_in_on_both_workers(server):
    reset(server)
    url, path, _ = server
    replace_atomically(path, UNLIMITED + users_text() + WITH_CAROL)
    in_force_within(url, {"carol": 200, "alice": 200})


def test_a_removed_user_is_refused_on_both_workers(server):
    reset(server)
    url, path, _ = server
    # Every worker has bob's credential cached by now: removal must still win.
    write_file(path, UNLIMITED + users_text().replace('name = "bob"', 'name = "robert"'))
    in_force_within(url, {"bob": 401, "alice": 200})


def test_a_changed_password_is_in_force_on_both_workers(server):
    reset(server)
    url, path, _ = server
    write_file(path, UNLIMITED + users_text().replace(hashed("alice-secret"), hashed("alice-new")))
    in_force_within(url, {"alice": 401, "bob": 200})
    assert status(url, basic("alice", "alice-new")) == 200


def test_a_changed_grant_is_loaded_without_disturbing_logins(server):
    """What a grant allows is the authorizer's to enforce; here: the file with the new
    grant is taken (no reload failure) and every login still works."""
    reset(server)
    url, path, log = server
    write_file(path, UNLIMITED + users_text() + grant("admin"))
    in_force_within(url, {"alice": 200, "bob": 200})
    assert "stays in force" not in log.read_text()


def test_an_invalid_file_keeps_the_old_one_and_is_logged_and_counted_once_per_worker(server):
    """Two rounds of requests, each a full check interval after the last (support/reloads.py):
    every worker that serves them looks at the invalid file twice, and logs it once."""
    reset(server)
    url, path, log = server
    write_file(path, UNLIMITED + users_text() + '\n[[users]]\nname = "alice"\n')
    for _ in range(2):
        in_force_within(url, {"alice": 200, "carol": 401})
    lines = [line for line in log.read_text().splitlines() if "stays in force" in line]
    assert 1 <= len(lines) <= 2  # once per worker that looked, not once per check
    assert all(f"auth file {path}: users[3].name: duplicate user 'alice'" in line for line in lines)
    metrics = requests.get(url + "/metrics", timeout=10).text
    counted = re.search(r"^sqlregistry_auth_reload_failures_total (\S+)$", metrics, re.MULTILINE)
    assert counted and float(counted.group(1)) == len(lines)




def worker_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(pid) for pid in children]


@pytest.fixture
def own_server(tmp_path: Path):
    live = serve_with_auth_file(tmp_path, UNLIMITED + users_text())
    try:
        yield live
    finally:
        live.stop()


def test_a_worker_replaced_while_the_file_is_invalid_starts_on_the_masters_copy(own_server):
    """gunicorn replaces workers (request quota, a crash): one booting while the file on
    disk is invalid must not stop the server, and serves the file the master loaded."""
    url, path = own_server.url, own_server.log_path.parent / "auth.toml"
    write_file(path, UNLIMITED + users_text() + '\n[[users]]\nname = "alice"\n')
    before = worker_pids(own_server.process.pid)
    assert len(before) == 2
    os.kill(before[0], signal.SIGKILL)  # a worker of the server this test started
    deadline = time.monotonic() + 30
    while len(set(worker_pids(own_server.process.pid)) - set(before)) < 1:
        assert time.monotonic() < deadline and own_server.process.poll() is None, own_server.log_tail()
        time.sleep(0.1)
    for _ in range(30):
        assert status(url, ALICE) == 200 and status(url, CAROL) == 401
    assert own_server.process.poll() is None
    assert "the auth file loaded at start stays in force" in own_server.log_tail(20_000)
