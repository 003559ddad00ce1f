"""Memory of the in-process caches.

1. What a parsed schema really weighs against its text (tracemalloc, Avro records of 5 to
   200 fields): the ratio behind `PARSED_BYTES_PER_CHAR` in app/core/resolver.py, which the
   byte-bounded caches use to weigh parsed entries.
2. The resident memory of one process that serves `GET /schemas/ids/{id}` for every one of
   N stored schemas (default 100,000, 20-field records each) and then checks the compatibility
   of a new version against each of the first 2,000 subjects (which parses and caches them),
   with the default cache budget (`REGISTRY_SCHEMA_CACHE_MB`). The stored schemas are written
   straight through the store, in batches, to keep the set-up short.

    python bench/cache_memory.py [--schemas 100000] [--cache-mb 64]
"""
from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def record(name: str, fields: int) -> str:
    return json.dumps({"type": "record", "name": name, "namespace": "bench.memory", "fields": [
        {"name": f"field_{i}", "type": ["null", "string"], "default": None, "doc": f"field number {i}"}
        for i in range(fields)
    ]})


def parsed_weight() -> None:
    from app.formats.avro import AvroFormat

    avro = AvroFormat()
    for fields in (5, 20, 50, 200):
        text = record(f"R{fields}", fields)
        avro.parse(text, {})  # warm imports and interned names
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        kept = [avro.parse(record(f"R{fields}x{i}", fields), {}) for i in range(50)]
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        allocated = sum(s.size_diff for s in after.compare_to(before, "filename"))
        canonical = sum(len(p.canonical) for p in kept)
        print(f"parsed {fields:>3}-field record: {allocated / len(kept):9.0f} bytes, "
              f"{allocated / canonical:5.1f} bytes per character of canonical text")


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def resident(schemas: int, cache_mb: int) -> None:
    from app.core.store.rows import NewSchema
    from app.core.types import SchemaRequest
    from app.settings import Settings
    from app.wiring import build_registry

    with tempfile.TemporaryDirectory() as tmp:
        service = build_registry(Settings(database_url=f"sqlite:///{tmp}/memory.db", schema_cache_mb=cache_mb))
        started = time.perf_counter()
        batch = 5000
        for first in range(0, schemas, batch):
            with service.storage.write() as store:
                for n in range(first, min(first + batch, schemas)):
                    locked = store.lock_subject(".", f"subject-{n}")
                    key = store.insert_schema(NewSchema(".", None, f"{n:032x}", "AVRO", record(f"R{n}", 20), (), None, None))
                    store.insert_version(locked.row.id, 1, key.pk)
        print(f"stored {schemas} schemas in {time.perf_counter() - started:.0f} s")
        gc.collect()
        baseline = rss_mb()
        for schema_id in range(1, schemas + 1):
            service.schema_by_id(schema_id)
        after_reads = rss_mb()
        candidate = SchemaRequest(schema=record("R0", 21))
        for n in range(2000):
            candidate.schema = record(f"R{n}", 21)
            service.check_compatibility(f"subject-{n}", None, candidate)
        after_checks = rss_mb()
        print(f"peak RSS: {baseline:6.0f} MB after set-up, {after_reads:6.0f} MB after reading every id, "
              f"{after_checks:6.0f} MB after 2,000 compatibility checks (cache budget {cache_mb} MB)")
        service.storage.close()  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schemas", type=int, default=100_000)
    parser.add_argument("--cache-mb", type=int, default=64)
    args = parser.parse_args()
    parsed_weight()
    resident(args.schemas, args.cache_mb)


if __name__ == "__main__":
    main()
