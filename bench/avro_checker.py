"""Time the Avro format on its own: parsing and reader/writer checks of 50-field records.

    python bench/avro_checker.py

Prints microseconds per call; nothing is asserted (speed targets live in benchmarks).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.formats.avro import AvroFormat

KINDS = ["int", "long", "string", ["null", "string"], {"type": "array", "items": "int"}, {"type": "map", "values": "double"}]


def record(fields: int, promoted: bool = False) -> str:
    def kind(i: int) -> object:
        if promoted and KINDS[i % len(KINDS)] == "int":
            return "long"  # the reader widens int to long
        return KINDS[i % len(KINDS)]

    return json.dumps({
        "type": "record", "name": "R", "namespace": "com.acme",
        "fields": [{"name": f"f{i}", "type": kind(i)} for i in range(fields)],
    })


def per_call(fn, runs: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(runs):
        fn()
    return (time.perf_counter() - start) / runs * 1e6


def main() -> None:
    avro = AvroFormat()
    writer_text, reader_text = record(50), record(50, promoted=True)
    writer, reader = avro.parse(writer_text, {}), avro.parse(reader_text, {})
    print(f"parse 50-field record          {per_call(lambda: avro.parse(writer_text, {}), 500):8.1f} us")
    print(f"can_read identical 50 fields   {per_call(lambda: avro.can_read(writer, writer), 2000):8.1f} us")
    print(f"can_read with promotions       {per_call(lambda: avro.can_read(reader, writer), 2000):8.1f} us")


if __name__ == "__main__":
    main()
