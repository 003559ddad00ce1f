"""The timing loop the benchmarks share: variants take turns over several rounds and the best
round of each counts, so a noisy neighbour on a small shared machine hurts every variant
alike instead of whichever happened to run during the noise.

A variant is a callable returning the seconds of each phase it times (one number, or several,
as `client_serde.py`'s serialize then deserialize); `best_of_rounds` keeps the minimum of each
phase separately. `timed` measures one call with the clock a variant needs: `process_time`
for work done in this process, `perf_counter` for work done in other processes (Spark's JVM
and Python workers, a server).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def timed(work: Callable[[], Any], clock: Callable[[], float] = time.perf_counter) -> tuple[float, Any]:
    """Seconds `work()` took by `clock`, and what it returned."""
    started = clock()
    result = work()
    return clock() - started, result


def best_of_rounds(rounds: int, variants: Mapping[str, Callable[[], Sequence[float]]],
                   after_each: Callable[[int, str, Sequence[float]], None] | None = None) -> dict[str, list[float]]:
    """The smallest seconds of each phase of each variant over `rounds` interleaved rounds;
    `after_each(round, name, seconds)` sees every measurement (for progress lines)."""
    best: dict[str, list[float]] = {}
    for round_number in range(rounds):
        for name, run in variants.items():
            seconds = list(run())
            best[name] = seconds if name not in best else [min(a, b) for a, b in zip(best[name], seconds)]
            if after_each is not None:
                after_each(round_number, name, seconds)
    return best
