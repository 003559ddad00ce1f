"""How long a registration waits behind another registration's costly compatibility check.

A subject holds `--versions` versions of a `--fields`-field record under FULL_TRANSITIVE, so
registering one more compares it both ways with every version (seconds). While that runs,
a registration of a small schema into an unrelated subject is timed: if the costly check
held SQLite's write lock, it would wait for it. (PostgreSQL locks the subject's row only;
a registration into the same subject, which would wait there, makes a costly comparison of
its own, so tests/core/registration/test_checks_before_the_lock.py pins that case, not a timing.) In
process, through `RegistryService`, on SQLite and (with `--postgres`) PostgreSQL. Prints
figures only.

    python bench/lock_wait.py [--fields 2000] [--versions 30] [--rounds 3] [--postgres]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # support.postgres: the fixtures' private cluster

from bench.timing import timed  # noqa: E402

HEAD_START_S = 0.2  # the costly registration is comparing by then (its parse takes less)


def wide(fields: int, extra: int) -> str:
    """`fields` long fields plus `extra` optional ones: each version adds one, compatibly."""
    body = [{"name": f"f{i}", "type": "long", "default": 0} for i in range(fields)]
    body += [{"name": f"x{i}", "type": ["null", "string"], "default": None} for i in range(extra)]
    return json.dumps({"type": "record", "name": "Wide", "namespace": "bench", "fields": body})


def small(tag: str) -> str:
    return json.dumps({"type": "record", "name": f"Small{tag}", "fields": [{"name": "a", "type": "string"}]})


def run(label: str, database_url: str, args: argparse.Namespace) -> None:
    from app.core.types import SchemaRequest
    from app.settings import Settings
    from app.wiring import build_registry

    service = build_registry(Settings(database_url=database_url))
    service.update_config("wide", {"compatibility": "NONE"})
    for version in range(args.versions):
        service.register("wide", SchemaRequest(schema=wide(args.fields, version)))
    service.update_config("wide", {"compatibility": "FULL_TRANSITIVE"})
    costly: list[float] = []
    unrelated: list[float] = []
    extra = args.versions
    for round_ in range(args.rounds):
        slow_text = wide(args.fields, extra)
        worker = threading.Thread(target=lambda: costly.append(
            timed(lambda: service.register("wide", SchemaRequest(schema=slow_text)))[0]))
        worker.start()
        time.sleep(HEAD_START_S)
        other = SchemaRequest(schema=small(str(round_)))
        unrelated.append(timed(lambda: service.register(f"other-{round_}", other))[0])
        worker.join()
        extra += 1
    service.storage.close()
    ms = lambda values: f"median {statistics.median(values) * 1000:8.1f} ms, max {max(values) * 1000:8.1f} ms"  # noqa: E731
    print(f"{label:<9} costly registration {ms(costly)} | meanwhile, into an unrelated subject {ms(unrelated)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fields", type=int, default=2000)
    parser.add_argument("--versions", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", action="store_true", help="also run on a private PostgreSQL cluster")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-lockwait-"))
    cluster = None
    try:
        print(f"{args.versions} versions of a {args.fields}-field record, FULL_TRANSITIVE; "
              f"the other registration starts {HEAD_START_S * 1000:.0f} ms into the costly one")
        run("sqlite", f"sqlite:///{workdir / 'bench.db'}", args)
        if args.postgres:
            from support.postgres import start_cluster

            cluster = start_cluster()
            run("postgres", cluster.url(cluster.create_database("lockwait")), args)
    finally:
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
