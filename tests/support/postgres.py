"""A throw-away PostgreSQL cluster for the test session.

The suite runs every storage-touching test on a real PostgreSQL because SQLite hides the
things that break fleets (sequences, row locks, advisory locks, transactional DDL). Starting
a private cluster in a temporary directory keeps the tests independent of any server the
machine may run, and tuning away durability (fsync, full-page writes) makes it start in well
under a second.
"""
from __future__ import annotations

import fcntl
import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql

# The server refuses to run as root; when the tests run as root, the cluster runs as this user.
_SERVICE_USER = "postgres"


class PostgresUnavailable(RuntimeError):
    """The binaries (or the user to run them as) are missing on this machine."""


def find_binary(name: str) -> str:
    """Locate a PostgreSQL program on PATH or in Debian's versioned directories (newest first)."""
    found = shutil.which(name)
    if found:
        return found

    def version(path: str) -> float:
        try:
            return float(Path(path).parts[-3])
        except ValueError:
            return 0.0

    for candidate in sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=version, reverse=True):
        if os.access(candidate, os.X_OK):
            return candidate
    raise PostgresUnavailable(
        f"PostgreSQL program {name!r} is neither on PATH nor under /usr/lib/postgresql/*/bin "
        "(install it with: apt-get install -y postgresql)"
    )


def free_port() -> int:
    """A loopback port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class PostgresCluster:
    """One running cluster; databases are created and dropped through `admin_url`."""

    root: Path
    port: int
    _counter: int = field(default=0, init=False)
    _admin: psycopg.Connection | None = field(default=None, init=False, repr=False)

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def url(self, database: str, driver: str = "postgresql+psycopg") -> str:
        return f"{driver}://postgres@127.0.0.1:{self.port}/{database}"

    @property
    def admin_url(self) -> str:
        return self.url("postgres", driver="postgresql")

    def execute(self, statement: sql.Composable) -> None:
        """Run one statement outside a transaction (CREATE/DROP DATABASE need that).

        One admin connection is kept for the session: connecting costs more than the
        CREATE DATABASE it is used for.
        """
        if self._admin is None or self._admin.closed:
            self._admin = psycopg.connect(self.admin_url, autocommit=True)
        self._admin.execute(statement)

    def create_database(self, prefix: str = "t", template: str | None = None) -> str:
        """Create a uniquely named database (a copy of `template` if given); return its name.

        FILE_COPY copies the template's files after a checkpoint, which with fsync off is
        several times faster than PostgreSQL 15's default WAL_LOG strategy for small databases.
        """
        self._counter += 1
        name = f"{prefix}_{os.getpid()}_{self._counter}"
        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template:
            statement = sql.SQL("{} TEMPLATE {} STRATEGY FILE_COPY").format(statement, sql.Identifier(template))
        self.execute(statement)
        return name

    def drop_database(self, name: str) -> None:
        """Drop even if an application pool still holds connections (PostgreSQL 13+)."""
        self.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def start_server(self) -> None:
        """Start the server on this cluster's port; also how an outage test brings it back."""
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=400"
        )
        # The port goes inside -o: pg_ctl's own -p names the postgres executable, not a port.
        _run_as_service_user(
            [find_binary("pg_ctl"), "start", "-w", "-t", "30", "-D", str(self.data_dir),
             "-l", str(self.root / "server.log"), "-o", options],
            cwd=self.root,
        )

    def stop_server(self, mode: str = "fast") -> None:
        """Stop the server but keep its data (`mode` is pg_ctl's: smart, fast or immediate),
        so that `start_server` can bring the same databases back."""
        if self._admin is not None:
            self._admin.close()
        _run_as_service_user(
            [find_binary("pg_ctl"), "stop", "-D", str(self.data_dir), "-m", mode, "-w"],
            cwd=self.root,
            check=False,
        )

    def stop(self) -> None:
        """Stop the server for good and delete the cluster."""
        self.stop_server("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def close(self) -> None:
        """Let go of the cluster (its admin connection) without stopping it: another process owns it."""
        if self._admin is not None:
            self._admin.close()


def shared_cluster(run_dir: Path) -> PostgresCluster:
    """The test run's one cluster: started by the first process to ask (under a lock), found by
    the others (pytest-xdist's workers) in `run_dir`; `stop_shared_cluster` ends it."""
    with open(run_dir / "postgres.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = run_dir / "postgres.json"
        if state.exists():
            found = json.loads(state.read_text())
            return PostgresCluster(root=Path(found["root"]), port=found["port"])
        cluster = start_cluster()
        state.write_text(json.dumps({"root": str(cluster.root), "port": cluster.port}))
        return cluster


def stop_shared_cluster(run_dir: Path) -> None:
    """Stop the run's cluster if one was started (by the process that outlives every worker)."""
    state = run_dir / "postgres.json"
    if state.exists():
        found = json.loads(state.read_text())
        PostgresCluster(root=Path(found["root"]), port=found["port"]).stop()
        state.unlink()


def start_cluster() -> PostgresCluster:
    """initdb into a fresh temporary directory and start a server on a free loopback port."""
    initdb = find_binary("initdb")
    # In RAM when possible: with durability off nothing needs a disk, and CREATE DATABASE
    # (a file copy of the template, once per test) is an order of magnitude faster on tmpfs.
    # Short path either way: the Unix socket lives here and its path is limited to ~100 bytes.
    ram = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    root = Path(tempfile.mkdtemp(prefix="sqlreg-pg-", dir=ram))
    if os.geteuid() == 0:
        try:
            account = pwd.getpwnam(_SERVICE_USER)
        except KeyError:
            shutil.rmtree(root, ignore_errors=True)
            raise PostgresUnavailable(f"running as root but there is no {_SERVICE_USER!r} user to run the server")
        os.chown(root, account.pw_uid, account.pw_gid)
    cluster = PostgresCluster(root=root, port=free_port())
    try:
        _run_as_service_user(
            [initdb, "-D", str(cluster.data_dir), "-U", "postgres", "--auth=trust",
             "--encoding=UTF8", "--locale=C", "--no-sync"],
            cwd=root,
        )
        cluster.start_server()
    except subprocess.CalledProcessError as exc:
        log = root / "server.log"
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL failed to start: {exc}\n{exc.stdout}\n{exc.stderr}\n{detail}") from exc
    return cluster


def _run_as_service_user(args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    switch = {"user": _SERVICE_USER, "group": _SERVICE_USER} if os.geteuid() == 0 else {}
    # LC_ALL=C keeps initdb from tripping over whatever locale the CI image lacks.
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    return subprocess.run(args, cwd=cwd, env=env, check=check, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, **switch)
