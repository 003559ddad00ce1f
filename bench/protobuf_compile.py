"""What running protoc in a child process costs a registration (issue 35). Prints figures only.

For each schema (a 10-field message; 100 messages; a schema importing `confluent/meta.proto`,
whose reply carries descriptor.proto; 2,000 messages) the wall-clock ms of one compile
(`compiler.compile_text`) and of one parse by the format (what a registration runs: compile,
print, check) are taken `--repeats` times with protoc in this process and in the compile
process (`protoc_process`), the two taking turns call by call so that a noisy neighbour hurts
both alike; p50/p90/p99 of each and the ratio isolated/in-process of the medians. Then the
start of a new compile process (spawn to its first answer), which a worker pays on its first
Protobuf schema and after each crash.

    python bench/protobuf_compile.py [--repeats 200]
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.formats.protobuf import compiler  # noqa: E402
from app.formats.protobuf.format import ProtobufFormat  # noqa: E402
from app.formats.protobuf.protoc_child import ChildReply, compile_files  # noqa: E402
from app.formats.protobuf.protoc_process import ProtocProcess  # noqa: E402


class InProcess:
    """protoc called in this process, as before issue 35 (one lock, no child)."""

    def compile(self, main: str, files: Mapping[str, str], include: list[str]) -> ChildReply:
        return compile_files(main, files, include)


def messages(n: int) -> str:
    return 'syntax = "proto3";\npackage bench;\n' + "".join(
        f"message M{i} {{ int32 a = 1; string b = 2; }}\n" for i in range(n))


SCHEMAS = {
    "10 fields": 'syntax = "proto3";\npackage bench;\nmessage Order {\n' + "".join(
        f"  {'string' if i % 2 else 'int64'} f{i} = {i + 1};\n" for i in range(10)) + "}\n",
    "100 messages": messages(100),
    "confluent/meta": 'syntax = "proto3";\npackage bench;\nimport "confluent/meta.proto";\n'
                      'message Order {\n  option (confluent.message_meta) = { doc: "an order" };\n'
                      '  int64 id = 1 [(confluent.field_meta).doc = "the id"];\n  string note = 2;\n}\n',
    "2,000 messages": messages(2000),
}


def percentiles(samples: list[float]) -> tuple[float, float, float]:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return pick(0.5), pick(0.9), pick(0.99)


def ms(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    variants = {"in process": InProcess(), "isolated": ProtocProcess()}
    print(f"{'schema':<15} {'step':<8} {'variant':<11} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'ratio p50':>9}")
    for name, text in SCHEMAS.items():
        repeats = max(10, args.repeats // 10) if len(text) > 50_000 else args.repeats
        for step, work in (("compile", lambda: compiler.compile_text(text, {})),
                           ("parse", lambda: ProtobufFormat().parse(text, {}))):
            samples: dict[str, list[float]] = {v: [] for v in variants}
            for _ in range(repeats + 2):
                for variant, protoc in variants.items():
                    compiler.PROTOC = protoc
                    samples[variant].append(ms(work))
            base = None
            for variant, found in samples.items():
                p50, p90, p99 = percentiles(found[2:])  # the first two warm the caches and the child
                base = base or p50
                print(f"{name:<15} {step:<8} {variant:<11} {p50:>8.2f} {p90:>8.2f} {p99:>8.2f} {p50 / base:>9.2f}")
    starts = []
    for _ in range(20):
        fresh = ProtocProcess()
        compiler.PROTOC = fresh
        starts.append(ms(lambda: compiler.compile_text(SCHEMAS["10 fields"], {})))
        fresh.stop()
    p50, p90, p99 = percentiles(starts)
    print(f"\nnew compile process, spawn to first answer (10 fields): p50 {p50:.1f} ms, p90 {p90:.1f} ms, "
          f"p99 {p99:.1f} ms over {len(starts)} starts")
    isolated = variants["isolated"]
    if isinstance(isolated, ProtocProcess):
        isolated.stop()


if __name__ == "__main__":
    main()
