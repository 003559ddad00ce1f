"""What a large Protobuf schema costs, against its size. Prints figures only.

One `.proto` file of n trivial messages (`message M7 {int32 a = 1;}`, 30 bytes each), for
n = 1,000 to 40,000: seconds (wall clock and process CPU, best of `--rounds`) for protoc
alone, for the format's parse (protoc, the canonical text, the check that it means the
same), and for a registration through the core in process (SQLite in a temporary folder:
parse, limits, outline index, storage), with the protoc runs each registration made. A text
past the default 1 MB schema limit (n = 40,000) is registered under a raised limit.
Linear cost shows as a constant CPU µs per message down the last column; on a shared
machine the CPU columns are the steady ones (wall clock also counts others' work).

    python bench/protobuf_parse.py [--sizes 1000 5000 10000 20000 40000] [--rounds 3]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.core.types import SchemaRequest  # noqa: E402
from app.formats.protobuf import compiler  # noqa: E402
from app.formats.protobuf.format import ProtobufFormat  # noqa: E402
from app.formats.protobuf.protoc_child import ChildReply  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.wiring import build_registry  # noqa: E402


def schema(messages: int) -> str:
    return 'syntax = "proto3";\npackage bench;\n' + "".join(f"message M{i} {{int32 a = 1;}}\n" for i in range(messages))


class ProtocRuns:
    """Counts protoc runs (compilations and error reads) as the compile process reports them."""

    def __init__(self) -> None:
        self.count = 0
        self._real = compiler.PROTOC
        compiler.PROTOC = self

    def compile(self, main: str, files: Mapping[str, str], include: list[str]) -> ChildReply:
        reply = self._real.compile(main, files, include)
        self.count += len(reply.ran)
        return reply


def best(rounds: int, work: Callable[[int], object]) -> tuple[float, float]:
    """Lowest wall-clock and CPU seconds of `rounds` runs (`work` gets the round number)."""
    walls, cpus = [], []
    for round_number in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        work(round_number)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000, 20000, 40000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    runs = ProtocRuns()
    print(f"{'messages':>8} {'KB':>6} {'protoc s':>9} {'cpu':>6} {'parse s':>8} {'cpu':>6} "
          f"{'register s':>10} {'cpu':>6} {'protoc runs':>11} {'cpu µs/message':>14}")
    with tempfile.TemporaryDirectory() as folder:
        service = build_registry(Settings(database_url=f"sqlite:///{folder}/bench.db", max_schema_bytes=4 << 20))
        for n in args.sizes:
            text = schema(n)
            protoc, protoc_cpu = best(args.rounds, lambda _: compiler.compile_text(text, {}))
            # A fresh format each round: its cache of recent parses would answer the repeats.
            parse, parse_cpu = best(args.rounds, lambda _: ProtobufFormat().parse(text, {}))
            before = runs.count
            # A new subject each round, each text distinct (a package per round), so that
            # nothing a previous round cached answers it.
            register, register_cpu = best(args.rounds, lambda r: service.register(
                f"bench-{n}-{r}", SchemaRequest(schema=text.replace("package bench;", f"package bench{r};"),
                                                schema_type="PROTOBUF")))
            per_registration = (runs.count - before) / args.rounds
            print(f"{n:>8} {len(text) / 1024:>6.0f} {protoc:>9.2f} {protoc_cpu:>6.2f} {parse:>8.2f} {parse_cpu:>6.2f} "
                  f"{register:>10.2f} {register_cpu:>6.2f} {per_registration:>11.1f} {register_cpu / n * 1e6:>14.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
