"""HTTP load for the benchmarks that drive `sqlregistry serve`: requests/s with p50/p90/p99
latency, from wrk (`--latency`) or from threads of http.client in this process.

Throughput alone hid a registration stall of seconds in a server's first seconds:
a few requests that wait 3 s barely move the rate of a 10 s run. So every run reports
percentiles, and `per_second` slices a run into one-second windows. A request that times out
is counted and reported, and the run goes on: one stuck request must not end a benchmark
whose point is to show it.
"""
from __future__ import annotations

import http.client
import math
import re
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
Request = tuple[str, str, "str | None"]  # method, path, JSON body
_UNIT_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


@dataclass
class LoadResult:
    """One run of load. Latencies in seconds; `timeouts` requests got no answer in time."""

    seconds: float
    requests: int
    p50: float
    p90: float
    p99: float
    timeouts: int = 0

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def summary(self) -> str:
        lost = f", {self.timeouts} timed out" if self.timeouts else ""
        return (f"{self.rate:6.0f} requests/s, p50 {self.p50 * 1000:6.1f} ms p90 {self.p90 * 1000:6.1f} ms "
                f"p99 {self.p99 * 1000:7.1f} ms{lost}")


@dataclass
class Timings:
    """Each answered request's start (seconds since the run began) and latency."""

    started: list[float] = field(default_factory=list)
    latency: list[float] = field(default_factory=list)
    timeouts: list[float] = field(default_factory=list)  # when each request that timed out was sent

    def result(self, seconds: float, since: float = 0.0, until: float = float("inf")) -> LoadResult:
        window = sorted(lat for at, lat in zip(self.started, self.latency) if since <= at < until)
        lost = sum(1 for at in self.timeouts if since <= at < until)
        return LoadResult(seconds, len(window), *(percentile(window, q) for q in (0.5, 0.9, 0.99)), timeouts=lost)

    def per_second(self, seconds: float) -> list[LoadResult]:
        return [self.result(1.0, s, s + 1.0) for s in range(int(seconds))]


def percentile(ordered: list[float], q: float) -> float:
    """The nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not ordered:
        return 0.0
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def python_load(base_url: str, connections: int, seconds: float, request_for: Callable[[int, int], Request],
                timeout: float = 10.0) -> Timings:
    """`connections` keep-alive connections, each a thread sending `request_for(connection, n)`
    until `seconds` have passed. A timed-out request is counted and its connection opened
    again; any answer but 200 ends the run with the first few answers."""
    host, _, port = base_url.removeprefix("http://").partition(":")
    timings = Timings()
    failures: list[str] = []
    lock = threading.Lock()
    begun = time.perf_counter()
    deadline = begun + seconds

    def drive(writer: int) -> None:
        conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        n = 0
        while time.perf_counter() < deadline and not failures:
            method, path, body = request_for(writer, n)
            n += 1
            sent = time.perf_counter()
            try:
                conn.request(method, path, body, {"Content-Type": CONTENT_TYPE} if body else {})
                reply = conn.getresponse()
                payload = reply.read()
            except (socket.timeout, TimeoutError):
                conn.close()
                conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
                with lock:
                    timings.timeouts.append(sent - begun)
                continue
            answered = time.perf_counter()
            if reply.status != 200:
                failures.append(f"{reply.status} {payload[:200]!r}")
                return
            with lock:
                timings.started.append(sent - begun)
                timings.latency.append(answered - sent)
        conn.close()

    threads = [threading.Thread(target=drive, args=(w,)) for w in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise RuntimeError(f"requests failed: {failures[:3]}")
    return timings


def wrk_load(base_url: str, connections: int, seconds: float, script: Path, timeout: float = 10.0) -> LoadResult:
    """One wrk run with `script` (Lua) writing the requests; socket timeouts are counted,
    any other socket error or non-2xx answer ends the run."""
    out = subprocess.run(
        ["wrk", f"-t{min(connections, 2)}", f"-c{connections}", f"-d{seconds:.0f}s", f"--timeout={timeout:.0f}s",
         "--latency", "-s", str(script), base_url],
        check=True, capture_output=True, text=True,
    ).stdout
    return parse_wrk(out, seconds)


def parse_wrk(out: str, seconds: float) -> LoadResult:
    failed = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if failed or (errors and any(int(n) for n in errors.groups()[:3])):
        raise RuntimeError(f"requests failed: {(failed or errors).group(0)}")  # type: ignore[union-attr]
    latency = dict(re.findall(r"^\s+(50|90|99)%\s+([\d.]+\w+)\s*$", out, re.MULTILINE))
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    return LoadResult(seconds, requests, *(_seconds(latency.get(q, "0s")) for q in ("50", "90", "99")),
                      timeouts=int(errors.group(4)) if errors else 0)


def _seconds(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(\w+)", text).groups()  # type: ignore[union-attr]
    return float(number) * _UNIT_SECONDS[unit]
