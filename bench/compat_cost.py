"""Time and peak memory of a compatibility check and of a structural diff when one type is
shared by two fields on every level of a chain n deep, in Avro, JSON Schema and Protobuf.

    python bench/compat_cost.py [--sizes 10 20 40] [--budget 5] [--formats AVRO JSON PROTOBUF]

The shape: Di has fields `a` and `b`, both of type D(i-1); D0 holds one string, which the
new version makes an integer, so every path down the chain ends in the same incompatibility.
A checker that copies a shared pair's findings into each parent does 2^n work; a linear one
does n. Avro writes D(i-1) inline in `a` and names it in `b`; JSON Schema has `$defs` D0..Dn
with both properties `$ref`s; Protobuf has messages D0..Dn.

Each case runs in a child process under `work_budget.limited(budget)`, through the format
interface (`can_read`, both directions) and the core (`structural_diff`), not HTTP. A format
whose loops do not call `work_budget.check()` cannot be stopped from inside, so the child is
also killed a few seconds after the budget; either way the case prints "over budget".
Times are the best of up to five runs; peak memory is tracemalloc's, from a run of its own
(tracing slows a run down).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # support.shared_types: the shapes the cost tests use

from app.core.browse.structural_diff import structural_diff  # noqa: E402
from app.formats import FORMATS  # noqa: E402
from app.formats import work_budget  # noqa: E402
from app.formats.base import ParsedSchema  # noqa: E402
from app.formats.work_budget import WorkBudgetExceeded  # noqa: E402
from support.shared_types import avro_shared_chain  # noqa: E402

KILL_GRACE = 5.0  # seconds past the budget before a child that cannot stop itself is killed
REPEATS = 5


def avro_chain(n: int, leaf: str) -> str:
    return json.dumps(avro_shared_chain(n, leaf))


def json_chain(n: int, leaf: str) -> str:
    defs: dict[str, Any] = {"D0": {"type": leaf}}
    for i in range(1, n + 1):
        ref = {"$ref": f"#/$defs/D{i - 1}"}
        defs[f"D{i}"] = {"type": "object", "properties": {"a": ref, "b": ref}}
    return json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": f"#/$defs/D{n}",
                       "$defs": defs})


def proto_chain(n: int, leaf: str) -> str:
    messages = [f"message D{i} {{\n  D{i - 1} a = 1;\n  D{i - 1} b = 2;\n}}" for i in range(n, 0, -1)]
    messages.append(f"message D0 {{\n  {leaf} v = 1;\n}}")
    return 'syntax = "proto3";\npackage bench;\n\n' + "\n".join(messages) + "\n"


SHAPES: dict[str, tuple[Callable[[int, str], str], str, str]] = {
    "AVRO": (avro_chain, "string", "int"),
    "JSON": (json_chain, "string", "integer"),
    "PROTOBUF": (proto_chain, "string", "int32"),
}


def _work(schema_type: str, old: ParsedSchema, new: ParsedSchema, what: str) -> int:
    """One check (both directions, as FULL) or one structural diff; returns how many
    incompatibilities or rows it produced."""
    if what == "check":
        fmt = FORMATS[schema_type]
        return len(fmt.can_read(new, old)) + len(fmt.can_read(old, new))
    found = structural_diff(FORMATS, old, new)
    return len(found.rows) + len(found.backward.reasons) + len(found.forward.reasons)


def _case(schema_type: str, n: int, what: str, budget: float, out: Any) -> None:
    build, before, after = SHAPES[schema_type]
    fmt = FORMATS[schema_type]
    old, new = fmt.parse(build(n, before), {}), fmt.parse(build(n, after), {})
    try:
        seconds = float("inf")
        for _ in range(REPEATS):  # best of a few, while a run is short next to the budget
            with work_budget.limited(budget):
                start = time.perf_counter()
                found = _work(schema_type, old, new, what)
                seconds = min(seconds, time.perf_counter() - start)
            if seconds > budget / 20:
                break
    except WorkBudgetExceeded:
        out.send(None)
        return
    except Exception as exc:  # a format refusing the shape is a figure too
        out.send(f"{type(exc).__name__}: {str(exc)[:80]}")
        return
    tracemalloc.start()
    try:
        with work_budget.limited(budget):
            _work(schema_type, old, new, what)
        peak: int | None = tracemalloc.get_traced_memory()[1]
    except WorkBudgetExceeded:  # tracing made it slower than the budget
        peak = None
    tracemalloc.stop()
    out.send(CaseFigures(seconds, peak, found))


class CaseFigures(NamedTuple):
    seconds: float
    peak_bytes: int | None
    items: int  # incompatibilities (check) or rows and reasons (diff)


def run(schema_type: str, n: int, what: str, budget: float) -> str:
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.Process(target=_case, args=(schema_type, n, what, budget, send))
    child.start()
    # a run past budget/20 is not repeated; the traced run has a budget of its own
    if not receive.poll(2 * budget + REPEATS * budget / 20 + KILL_GRACE):
        child.kill()
        child.join()
        return f"over budget ({budget:g} s; killed: the format's loops do not check the budget)"
    result = receive.recv()
    child.join()
    if result is None:
        return f"over budget ({budget:g} s)"
    if isinstance(result, str):
        return result
    peak = "over budget traced" if result.peak_bytes is None else f"{result.peak_bytes / 1024:10.1f} KiB peak"
    return f"{result.seconds * 1000:10.2f} ms {peak}   {result.items} items"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per case (default 5)")
    parser.add_argument("--formats", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    args = parser.parse_args()
    print(f"{'format':9} {'n':>3}  {'work':5} result")
    for schema_type in args.formats:
        for n in args.sizes:
            for what in ("check", "diff"):
                print(f"{schema_type:9} {n:3}  {what:5} {run(schema_type, n, what, args.budget)}", flush=True)


if __name__ == "__main__":
    main()
