"""Migration speed and importer memory.

1. 1,000 subjects x 5 Avro versions (5,000 versions) on PostgreSQL, mirrored to an empty
   PostgreSQL registry over REST (both `sqlregistry serve` under gunicorn) with --workers 4:
   seconds for export, preflight, write and verify, and requests per second.
   Target: all phases together <= 120 s on a 2-core machine.
2. Peak RSS of `sqlregistry import` (a child process) for a 50,000-version dump; target <= 300 MB.
   By default the import runs with --dry-run (dump read, checked and preflighted against an
   empty target: 50,000 reads); --rss-full imports for real.

    python bench/transfer.py [--subjects 1000] [--versions 5] [--rss-versions 50000] [--rss-full] [--skip-rss]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from app.transfer.dump import Dump, SchemaRecord, VersionRecord, header, write_dump  # noqa: E402


def schema(subject: int, version: int) -> str:
    fields = [{"name": f"f{i}", "type": "string", "default": ""} for i in range(version + 3)]
    return json.dumps({"type": "record", "name": f"S{subject}", "namespace": "bench", "fields": fields})


def populate(database_url: str, subjects: int, versions: int) -> float:
    """The source's history, written in process (no HTTP) so only the migration is timed."""
    from app.core.types import SchemaRequest
    from app.settings import Settings
    from app.wiring import build_registry

    service = build_registry(Settings(database_url=database_url))
    started = time.perf_counter()
    try:
        service.update_config(None, {"compatibility": "NONE"})
        for s in range(subjects):
            for v in range(versions):
                service.register(f"bench-{s:05d}-value", SchemaRequest(schema=schema(s, v)))
    finally:
        service.storage.close()  # type: ignore[attr-defined]
    return time.perf_counter() - started


def mirror_figures(source_url: str, target_url: str, workers: int) -> None:
    from app.transfer.dump import read_dump
    from app.transfer.export import Scope, export_rest
    from app.transfer.importer import ImportOptions, import_dump
    from app.transfer.progress import Progress
    from app.transfer.rest import RestRegistry, endpoint
    from app.transfer.verify import verify

    source = RestRegistry(endpoint(source_url, "FROM"), pool_size=workers * 2)
    target = RestRegistry(endpoint(target_url, "TO"), pool_size=workers * 2)
    progress = Progress(enabled=False, stream=open("/dev/null", "w"))
    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-transfer-bench-"))
    path = workdir / "bench.dump"
    started = time.perf_counter()
    dump = export_rest(source, Scope(), workers, progress)
    with open(path, "wb") as out:
        write_dump(dump, out)
    dump = read_dump(path)
    import_dump(target, dump, ImportOptions(workers=workers, state_file=workdir / "state.json"), progress)
    import io
    from contextlib import redirect_stdout

    with redirect_stdout(io.StringIO()):
        verify(source, target, Scope(), workers, progress)
    total = time.perf_counter() - started
    requests = source.requests + target.requests
    for name in ("export", "preflight", "write", "verify"):
        items, seconds = progress.timings[name]
        print(f"  {name:<10} {items:>6} items  {seconds:7.1f} s  {items / seconds if seconds else 0:8.0f} items/s")
    print(f"  total      {total:7.1f} s (target <= 120 s); {requests} requests, {requests / total:.0f} req/s")


def synthetic_dump(path: Path, versions: int) -> None:
    dump = Dump(header={})
    per_subject = 5
    for n in range(versions):
        s, v = divmod(n, per_subject)
        record = SchemaRecord(".", n + 1, "AVRO", schema(s, v))
        dump.schemas[(".", n + 1)] = record
        dump.versions.append(VersionRecord(f"rss-{s:06d}-value", ".", v + 1, n + 1, False))
    dump.header = header({"kind": "url", "url": "http://bench", "serverVersion": None},
                         "2026-01-01T00:00:00Z", ["AVRO"], {".": versions})
    with open(path, "wb") as out:
        write_dump(dump, out)


def importer_rss(target_url: str, versions: int, full: bool) -> None:
    path = Path(tempfile.mkdtemp(prefix="sqlreg-rss-")) / "rss.dump"
    synthetic_dump(path, versions)
    command = [sys.executable, "-m", "app.cli", "import", "--to", target_url, str(path), "--no-progress"]
    if not full:
        command.append("--dry-run")
    probe = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", probe, *command], cwd=REPO, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    code, rss_kb = done.stdout.split()
    print(f"  {versions} versions ({path.stat().st_size / 1e6:.0f} MB dump), "
          f"{'import' if full else 'import --dry-run'}: exit {code}, {seconds:.1f} s, "
          f"peak RSS {int(rss_kb) / 1024:.0f} MB (target <= 300 MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=1000)
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--server-workers", type=int, default=2, help="gunicorn workers per registry")
    parser.add_argument("--rss-versions", type=int, default=50000)
    parser.add_argument("--rss-full", action="store_true")
    parser.add_argument("--skip-rss", action="store_true")
    parser.add_argument("--skip-mirror", action="store_true")
    args = parser.parse_args()
    from support.live import start_server
    from support.postgres import start_cluster

    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-transfer-"))
    cluster = start_cluster()
    servers = []
    try:
        if not args.skip_mirror:
            source_db, target_db = cluster.url(cluster.create_database("src")), cluster.url(cluster.create_database("dst"))
            seconds = populate(source_db, args.subjects, args.versions)
            print(f"source: {args.subjects} subjects x {args.versions} versions written in process in {seconds:.0f} s")
            servers.append(start_server(source_db, workdir / "src.log", workers=args.server_workers))
            servers.append(start_server(target_db, workdir / "dst.log", workers=args.server_workers))
            print(f"mirror PostgreSQL -> PostgreSQL, --workers {args.workers}:")
            mirror_figures(servers[0].url, servers[1].url, args.workers)
        if not args.skip_rss:
            rss_db = cluster.url(cluster.create_database("rss"))
            servers.append(start_server(rss_db, workdir / "rss.log", workers=args.server_workers))
            print("importer memory:")
            importer_rss(servers[-1].url, args.rss_versions, args.rss_full)
    finally:
        for server in servers:
            server.stop()
        cluster.stop()


if __name__ == "__main__":
    main()
