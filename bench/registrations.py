"""Registration throughput and cost.

Measurements, printed as figures only:

1. In process (no HTTP): the CPU time of one registration into a subject that already has
   10, 250 and 2,000 versions (BACKWARD; every version is the same 11-field record with its
   own name for the optional 11th field), to show the cost does not grow with the length.
2. Over HTTP against `sqlregistry serve` (gunicorn, the default workers): 8 keep-alive
   connections register (a) new schemas into distinct subjects and (b) new versions into
   one subject, and (c) re-register one existing schema, for a fixed time; registrations
   per second with p50/p90/p99 latency (bench/http_load.py; a request that times out is
   counted and reported, and the run goes on). (d) reads its version with the same load
   generator, so that (c) can be quoted as a ratio to a read in the same run (target: at
   least half). The database
   already holds `--history` subjects, analyzed (see `add_history`). The load comes
   from `wrk` (apt-get install wrk) with a Lua script that writes each request, so that on
   a small machine the generator takes little of the CPU the server and PostgreSQL share;
   without wrk (or with `--python-load`), from threads of http.client.
3. Right after an in-process import (`--after-import`): a fresh server on a
   database an in-process registry has just written to, measured second by second from its
   first answer, 4 connections, (a) and (b): p50/p90/p99 of each second. Throughput alone
   hid a stall of seconds there (its workers imported SQLAlchemy while requests waited).
4. With `--audit both`: the audit trail's cost (target: at least 0.9x on
   PostgreSQL), twice. In process, two services side by side on two databases, one with the
   trail off (REGISTRY_AUDIT=false) and one with it on, registering alternate batches into
   distinct subjects: the best batch of each (a shared machine's noise only ever slows a
   batch down) and the median CPU per registration. Then (2) with the trail off and on,
   alternating over `--rounds` fresh databases, best of each.

    python bench/registrations.py [--seconds 10] [--writers 8] [--no-postgres] [--no-sqlite] [--skip-length]
                                  [--audit on|off|both] [--rounds 3] [--python-load] [--history 2000]
                                  [--after-import 2000] [--only-after-import]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from app.settings import Settings  # noqa: E402
from bench.http_load import CONTENT_TYPE, LoadResult, Request, python_load, wrk_load  # noqa: E402

LENGTHS = (10, 250, 2000)
AFTER_IMPORT_CONNECTIONS = 4  # as the start-up stall was reported: 4 connections, 2 workers


def schema(name: str, extra_fields: int, tag: str = "") -> str:
    """A 10-field record; each extra optional field makes a BACKWARD-compatible new version,
    and so does an optional field named by `tag` (concurrent writers into one subject)."""
    fields = [{"name": f"f{i}", "type": "string", "default": ""} for i in range(10)]
    fields += [{"name": f"x{i}", "type": ["null", "long"], "default": None} for i in range(extra_fields)]
    if tag:
        fields.append({"name": tag, "type": ["null", "long"], "default": None})
    return json.dumps({"type": "record", "name": name, "fields": fields})


# ------------------------------------------------------------------ 1. cost by subject length
def cost_by_length(label: str, database_url: str, samples: int = 20) -> None:
    from app.core.types import SchemaRequest
    from app.settings import Settings
    from app.wiring import build_registry

    service = build_registry(Settings(database_url=database_url))
    try:
        done = 0
        for length in LENGTHS:
            subject = f"long-{length}"
            service.update_config(subject, {"compatibility": "NONE"})
            for n in range(done, length):
                service.register(subject, SchemaRequest(schema=schema("Long", 0, f"t{n}")))
            service.update_config(subject, {"compatibility": "BACKWARD"})
            analyze(database_url)  # as autovacuum would have by now (see add_history)
            done = 0
            cpu, wall = time.process_time(), time.perf_counter()
            for n in range(length, length + samples):
                service.register(subject, SchemaRequest(schema=schema("Long", 0, f"t{n}")))
            cpu_ms = (time.process_time() - cpu) / samples * 1000
            wall_ms = (time.perf_counter() - wall) / samples * 1000
            print(f"{label:<9} registration into a subject of {length:>5} versions: "
                  f"{cpu_ms:6.2f} ms CPU, {wall_ms:6.2f} ms wall")
    finally:
        service.storage.close()  # type: ignore[attr-defined]


# ------------------------------------------------------------------ 2. throughput over HTTP
KINDS = ("to distinct subjects", "into one subject", "again (existing schema)", "read of its version 1")


def registering(subject: str, text: str) -> Request:
    return "POST", f"/subjects/{subject}/versions", json.dumps({"schema": text})


def python_requests(kind: str, run: str) -> Callable[[int, int], Request]:
    """`request_for(writer, n)` for the Python generator; the Lua script below writes the same."""
    return {
        "to distinct subjects": lambda w, n: registering(f"d{run}-{w}-{n}", schema(f"R{w}x{n}", 0)),
        "into one subject": lambda w, n: registering(f"one-{run}", schema("One", 0, f"t{w}_{n}")),
        # After the first request, each is a re-registration answered with the existing version.
        "again (existing schema)": lambda w, n: registering(f"again-{run}", schema("Again", 0)),
        "read of its version 1": lambda w, n: ("GET", f"/subjects/again-{run}/versions/1", None),
    }[kind]


# Each wrk thread numbers its requests; `tid` (set in setup) keeps threads' names apart.
WRK_SCRIPT = """
local kind, run, fields = %(kind)s, %(run)s, [==[%(fields)s]==]
local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
local n = 0
local function registering(subject, name, extra)
  local text = '{"type": "record", "name": "' .. name .. '", "fields": [' .. fields .. extra .. ']}'
  return wrk.format("POST", "/subjects/" .. subject .. "/versions",
    {["Content-Type"] = "%(content_type)s"}, '{"schema": "' .. text:gsub('"', '\\\\"') .. '"}')
end
function request()
  n = n + 1
  if kind == "to distinct subjects" then
    return registering("d" .. run .. "-" .. tid .. "-" .. n, "R" .. tid .. "x" .. n, "")
  elseif kind == "into one subject" then
    return registering("one-" .. run, "One",
      ', {"name": "t' .. tid .. '_' .. n .. '", "type": ["null", "long"], "default": null}')
  elseif kind == "again (existing schema)" then
    return registering("again-" .. run, "Again", "")
  end
  return wrk.format("GET", "/subjects/again-" .. run .. "/versions/1")
end
"""


def wrk_script(kind: str, run: str, workdir: Path) -> Path:
    fields = json.dumps([{"name": f"f{i}", "type": "string", "default": ""} for i in range(10)])[1:-1]
    script = workdir / f"registrations-{run}.lua"
    script.write_text(WRK_SCRIPT % {"kind": json.dumps(kind), "run": json.dumps(run), "fields": fields,
                                    "content_type": CONTENT_TYPE})
    return script


def load(base_url: str, connections: int, seconds: float, kind: str, run: str, workdir: Path,
         python: bool) -> LoadResult:
    """One run of `kind` requests from wrk, or with `python` from http.client threads."""
    if python:
        return python_load(base_url, connections, seconds, python_requests(kind, run)).result(seconds)
    return wrk_load(base_url, connections, seconds, wrk_script(kind, run, workdir))


def cpu_seconds(match: Callable[[int, str, int], bool]) -> float:
    """User+system CPU of the processes `match(pid, command, parent pid)` accepts, from /proc."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        command = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if match(int(entry.name), command, int(fields[1])):
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def postmaster_pid(database_url: str) -> int | None:
    """The PostgreSQL postmaster serving `database_url` (None for SQLite), asked over SQL:
    the parent of this connection's backend."""
    if not database_url.startswith("postgresql"):
        return None
    with libpq_connection(database_url) as conn:  # the backend exists while connected
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]
        stat = Path(f"/proc/{backend}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[1])


def add_history(database_url: str, subjects: int, analyzed: bool = True) -> None:
    """`subjects` registered in process, then (PostgreSQL, `analyzed`) ANALYZE, as autovacuum
    does within a minute of a registry's first writes: the registry in use that the figures
    are about. A brand-new database is slower for that first minute: pooled connections plan
    their prepared statements while the tables are empty (sequential scans), and PostgreSQL
    plans them again only once the tables are analyzed."""
    from app.core.types import SchemaRequest
    from app.wiring import build_registry

    service = build_registry(Settings(database_url=database_url))
    try:
        for n in range(subjects):
            service.register(f"history-{n}", SchemaRequest(schema=schema(f"History{n}", 0)))
    finally:
        service.storage.close()  # type: ignore[attr-defined]
    if analyzed:
        analyze(database_url)


def analyze(database_url: str) -> None:
    """PostgreSQL's ANALYZE, which also makes every pooled connection plan its prepared
    statements again for the tables as they are now."""
    if database_url.startswith("postgresql"):
        with libpq_connection(database_url) as conn:
            conn.execute("ANALYZE")


def libpq_connection(database_url: str) -> Any:
    """An autocommit psycopg connection to the database of a SQLAlchemy PostgreSQL URL."""
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    return psycopg.connect(url, autocommit=True)


def http_figures(
    label: str, database_url: str, workdir: Path, writers: int, seconds: float, workers: int, audit: bool = True,
    python_load: bool = False, history: int = 0,
) -> dict[str, float]:
    """Registrations/s by kind (and printed), against a server with the audit trail on or off."""
    from support.live import start_server

    if history:
        add_history(database_url, history)
    env = {"REGISTRY_AUDIT": "true" if audit else "false"}
    server = start_server(database_url, workdir / f"{label}.log", workers=workers, env=env)
    master = server.process.pid
    registry = lambda pid, command, parent: pid == master or parent == master  # noqa: E731
    # This run's cluster only (its postmaster and the backends it forked): other PostgreSQL
    # clusters on a shared machine are not this registry's cost.
    postmaster = postmaster_pid(database_url)
    database = lambda pid, command, parent: postmaster in (pid, parent)  # noqa: E731
    rates: dict[str, float] = {}
    try:
        run = str(time.time_ns())
        for kind in KINDS:
            before = cpu_seconds(registry), cpu_seconds(database)
            result = load(server.url, writers, seconds, kind, run, workdir, python_load)
            rates[kind] = result.rate
            requests = max(result.requests, 1)
            app_ms = (cpu_seconds(registry) - before[0]) / requests * 1000
            db_ms = (cpu_seconds(database) - before[1]) / requests * 1000
            print(f"{label:<9} audit {'on ' if audit else 'off'} {writers} connections, {workers} workers: "
                  f"{kind:<23} {result.summary()} "
                  f"(CPU per request: registry {app_ms:.2f} ms, PostgreSQL {db_ms:.2f} ms)")
        print(f"{label:<9} re-registration / read of a version: "
              f"{rates['again (existing schema)'] / rates['read of its version 1']:.2f}")
    finally:
        server.stop()
    return rates


def after_import(label: str, make_url: Callable[[str], str], workdir: Path, seconds: float, workers: int,
                 history: int) -> None:
    """A fresh server on a database an in-process registry has just written `history`
    subjects to (as `sqlregistry import --database-url` or a script using `build_registry`
    leaves it: at head, not analyzed), driven from the first second after it answers by
    AFTER_IMPORT_CONNECTIONS connections of the Python generator, whose own timings count each
    request in the second it was sent, however long its answer took (one-second wrk runs would
    drop the requests still waiting when a run ends: the slow ones). p50/p90/p99 of each second,
    of the whole run, and the worst second's p99. One server per kind, so that each kind meets
    a server in its first seconds."""
    from support.live import start_server

    for kind in KINDS[:2]:
        database_url = make_url(f"import{KINDS.index(kind)}")
        add_history(database_url, history, analyzed=False)
        server = start_server(database_url, workdir / f"{label}-import.log", workers=workers)
        try:
            timings = python_load(server.url, AFTER_IMPORT_CONNECTIONS, seconds,
                                  python_requests(kind, str(time.time_ns())))
        finally:
            server.stop()
        head = (f"{label:<9} right after an in-process import of {history} subjects, {AFTER_IMPORT_CONNECTIONS} "
                f"connections, {workers} workers, {kind}")
        slices = timings.per_second(seconds)
        for n, second in enumerate(slices):
            print(f"{head}: second {n + 1:>2}: {second.summary()}")
        print(f"{head}: whole run: {timings.result(seconds).summary()}; worst second's p99 "
              f"{max(r.p99 for r in slices) * 1000:.1f} ms")


def interleaved_audit_ratio(label: str, make_url: Callable[[str], str], batches: int = 30, size: int = 25) -> None:
    from statistics import median

    from app.core.types import SchemaRequest
    from app.wiring import build_registry

    services = {audit: build_registry(Settings(database_url=make_url(f"inproc{int(audit)}"), audit=audit))
                for audit in (False, True)}
    best = {False: float("inf"), True: float("inf")}
    cpu: dict[bool, list[float]] = {False: [], True: []}
    try:
        for batch in range(-2, batches):  # two warm-up batches each
            for audit, service in services.items():
                requests = [SchemaRequest(schema=schema(f"B{batch + 2}x{n}", 0)) for n in range(size)]
                started, cpu_started = time.perf_counter(), time.process_time()
                for n, request in enumerate(requests):
                    service.register(f"b{batch}-{n}", request)
                if batch >= 0:
                    best[audit] = min(best[audit], (time.perf_counter() - started) / size)
                    cpu[audit].append((time.process_time() - cpu_started) / size)
    finally:
        for service in services.values():
            service.storage.close()  # type: ignore[attr-defined]
    off, on = 1 / best[False], 1 / best[True]
    print(f"{label:<9} in process, audit trail on/off, best of {batches} batches of {size}: "
          f"{on:6.0f} / {off:6.0f} registrations/s = {on / off:.2f}x; registry CPU per registration "
          f"{median(cpu[True]) * 1000:.2f} / {median(cpu[False]) * 1000:.2f} ms")


def audit_ratio(
    label: str, make_url: Callable[[str], str], workdir: Path, writers: int, seconds: float, workers: int, rounds: int,
    python_load: bool,
) -> None:
    """The trail's cost: servers with it off and on, alternating on fresh databases (so load
    on a shared machine hits both alike), best rate of each kind, then on/off."""
    best: dict[bool, dict[str, float]] = {False: {}, True: {}}
    for round_ in range(rounds):
        for audit in (False, True):
            rates = http_figures(label, make_url(f"audit{int(audit)}r{round_}"), workdir, writers, seconds, workers,
                                 audit, python_load)
            for kind, rate in rates.items():
                best[audit][kind] = max(best[audit].get(kind, 0.0), rate)
    for kind, off in best[False].items():
        on = best[True][kind]
        print(f"{label:<9} audit trail on/off, best of {rounds}: {on:6.0f} / {off:6.0f} registrations/s "
              f"{kind:<23} = {on / off:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--workers", type=int, default=Settings().workers, help="gunicorn workers (serve's default)")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--skip-length", action="store_true", help="skip the cost-by-length measurement")
    parser.add_argument("--audit", choices=("on", "off", "both"), default="on",
                        help="the audit trail in the HTTP figures; both: off and on alternating, with the ratio")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of off/on with --audit both")
    parser.add_argument("--python-load", action="store_true", help="use the Python generator even if wrk exists")
    parser.add_argument("--history", type=int, default=2000,
                        help="subjects registered (and analyzed) before the HTTP figures; 0: a brand-new database")
    parser.add_argument("--after-import", type=int, default=2000, metavar="SUBJECTS",
                        help="subjects an in-process registry writes before a fresh server is measured second by "
                             "second from its first answer (0: skip)")
    parser.add_argument("--only-after-import", action="store_true", help="skip every other measurement")
    args = parser.parse_args()
    args.python_load = args.python_load or shutil.which("wrk") is None
    print(f"load generator: {'python http.client' if args.python_load else 'wrk'}, {args.writers} connections; "
          f"HTTP figures on a database holding {args.history} subjects")
    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-bench-"))
    targets: list[tuple[str, Callable[[str], str]]] = [] if args.no_sqlite else [
        ("sqlite", lambda tag: f"sqlite:///{workdir / tag}.db")]
    cluster = None
    if not args.no_postgres:
        from support.postgres import PostgresUnavailable, start_cluster

        try:
            cluster = start_cluster()
            targets.append(("postgres", lambda tag: cluster.url(cluster.create_database(tag))))
        except PostgresUnavailable as exc:
            print(f"(PostgreSQL skipped: {exc})")
    try:
        for label, make_url in targets:
            if args.after_import:
                after_import(label, make_url, workdir, args.seconds, args.workers, args.after_import)
            if args.only_after_import:
                continue
            if not args.skip_length:
                cost_by_length(label, make_url("length"))
            if args.audit == "both":
                interleaved_audit_ratio(label, make_url)
                audit_ratio(label, make_url, workdir, args.writers, args.seconds, args.workers, args.rounds,
                            args.python_load)
            else:
                http_figures(label, make_url("http"), workdir, args.writers, args.seconds, args.workers,
                             args.audit == "on", args.python_load, args.history)
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
