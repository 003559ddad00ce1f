"""What authentication costs a producer's hot read: `GET /schemas/ids/{id}` req/s with a
valid Basic credential and with a valid bearer token (targets 0.85x and 0.8x) vs the same
server code with authentication off, the process CPU
µs per such request driven straight through the WSGI app (steadier than throughput on a
shared machine), and one cold scrypt verification at the default cost (what a worker pays
once per credential per `cache_seconds`, and what every failed login costs), and one token
verification at first sight (RS256 signature) and when seen before (SHA-256 cache). The
identity provider is tests/support/idp.py on loopback.

Two gunicorn servers (same flags, same SQLite file, one with REGISTRY_AUTH_FILE) stay up
side by side and take turns under load, so machine noise hits both alike; the best round of
each counts, and so does the median of each round's ratio (steadier when the load drifts).
Load comes from `wrk` (keep-alive connections, the Authorization header on every request)
or, without it, a threaded http.client generator. Prints figures only.

    python bench/auth_reads.py [--duration 5] [--rounds 5] [--connections 8] [--workers 2]
"""
from __future__ import annotations

import argparse
import base64
import http.client
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # app, for the hashes and the in-process apps
sys.path.insert(0, str(REPO / "tests"))  # read_path's servers live in tests/support

from read_path import Figures, prepare_registry, register, run_wrk, start_gunicorn  # noqa: E402
from support.idp import IdentityProvider  # noqa: E402

USER, PASSWORD = "bench-reader", "correct horse battery staple"


def cold_verification_ms(samples: int = 7) -> tuple[float, float]:
    """Median and minimum ms of one scrypt verification at the default cost (ln=15, r=8, p=1)."""
    from app.security.passwords import hash_password, parse_hash

    stored = parse_hash(hash_password(PASSWORD))
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        assert stored.matches(PASSWORD.encode())
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), min(times)


def token_verification_us(idp: IdentityProvider, tokens: int = 200) -> tuple[float, float]:
    """µs per verification of a token seen for the first time, and of one seen before."""
    from app.security.bearer import BearerVerifier
    from app.security.records import BearerSettings

    verifier = BearerVerifier(BearerSettings(algorithms=("RS256",), jwks_url=idp.jwks_url, issuer=idp.issuer,
                                             audience="sqlregistry"))
    fresh = [idp.token(sub=f"user-{i}") for i in range(tokens)]
    verifier.verify(idp.token())  # the JWKS fetch is in neither figure
    started = time.perf_counter()
    for token in fresh:
        verifier.verify(token)
    first = (time.perf_counter() - started) / tokens
    started = time.perf_counter()
    for _ in range(10):
        for token in fresh:
            verifier.verify(token)
    return first * 1e6, (time.perf_counter() - started) / (tokens * 10) * 1e6


def in_process_us(auth_file: Path, workdir: Path, requests: int, rounds: int, bearer: str) -> dict[str, float]:
    """Best-of-rounds process CPU µs per `GET /schemas/ids/1` through the WSGI callable."""
    from read_cpu import SCHEMA, environ

    from app.server.factory import create_app
    from app.settings import Settings

    url = f"sqlite:///{workdir / 'in-process.db'}"
    off = create_app(Settings(database_url=url, metrics=False))
    on = create_app(Settings(database_url=url, metrics=False, auth_file=str(auth_file)))
    off.test_client().post("/subjects/bench-value/versions", json={"schema": SCHEMA})
    header = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    apps = {"auth off": (off.wsgi_app, {}), "valid Basic": (on.wsgi_app, {"HTTP_AUTHORIZATION": header}),
            "bearer token": (on.wsgi_app, {"HTTP_AUTHORIZATION": bearer})}

    def run(app, extra: dict[str, str], count: int) -> float:
        statuses: list[str] = []
        started = time.process_time()
        for _ in range(count):
            b"".join(app({**environ("/schemas/ids/1"), "REMOTE_ADDR": "127.0.0.1", **extra},
                         lambda status, headers, exc_info=None: statuses.append(status)))
        if not statuses[-1].startswith("200"):
            raise RuntimeError(statuses[-1])
        return (time.process_time() - started) / count * 1e6

    for app, extra in apps.values():
        run(app, extra, 200)  # warm-up, and the one scrypt
    best: dict[str, float] = {}
    for _ in range(rounds):
        for name, (app, extra) in apps.items():
            best[name] = min(best.get(name, float("inf")), run(app, extra, requests))
    return best


def write_auth_file(path: Path, idp: IdentityProvider) -> None:
    from app.security.passwords import hash_password

    # A consumer's grant: read on its own subjects, not everything (no shared reply cache).
    # Basic callers get it through their [[users]] groups, bearer callers through the token's roles.
    path.write_text(f'[authentication]\nmethods = ["basic", "bearer"]\n\n'
                    f'[bearer]\njwks_url = "{idp.jwks_url}"\nissuer = "{idp.issuer}"\naudience = "sqlregistry"\n'
                    f'algorithms = ["RS256"]\ngroups_claim = "realm_access.roles"\n\n'
                    f'[[users]]\nname = "{USER}"\npassword = "{hash_password(PASSWORD)}"\ngroups = ["readers"]\n\n'
                    '[[grants]]\nprincipal = "group:readers"\nrole = "read"\nsubjects = ["prefix:bench-"]\n')


def _python_load(host: str, port: int, path: str, headers: dict[str, str], duration: float, connections: int,
                 pipe) -> None:
    """Child process: `connections` threads, each on one keep-alive connection."""
    counts = [0] * connections
    start = time.perf_counter()
    deadline = start + duration

    def load(slot: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=10)
        while time.perf_counter() < deadline:
            conn.request("GET", path, headers=headers)
            reply = conn.getresponse()
            reply.read()
            if reply.status != 200:
                raise RuntimeError(f"GET {path}: HTTP {reply.status}")
            counts[slot] += 1
        conn.close()

    threads = [threading.Thread(target=load, args=(slot,)) for slot in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    pipe.send((sum(counts), time.perf_counter() - start))


def run_python(url: str, headers: dict[str, str], duration: float, connections: int) -> Figures:
    host_port, _, path = url.removeprefix("http://").partition("/")
    host, _, port = host_port.partition(":")
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("spawn").Process(
        target=_python_load, args=(host, int(port), "/" + path, headers, duration, connections, send))
    child.start()
    requests, seconds = receive.recv()
    child.join()
    return Figures(requests, seconds, float("nan"), float("nan"))


def drive(url: str, headers: dict[str, str], duration: float, connections: int, use_wrk: bool) -> Figures:
    if use_wrk:
        return run_wrk(url, duration, connections, headers)
    return run_python(url, headers, duration, connections)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of load per round and server")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the best of each server counts")
    parser.add_argument("--connections", type=int, default=8, help="concurrent keep-alive connections")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (both servers)")
    parser.add_argument("--threads", type=int, default=4, help="gthread threads per worker")
    parser.add_argument("--python-load", action="store_true", help="use the Python generator even if wrk exists")
    parser.add_argument("--in-process-requests", type=int, default=5000, help="WSGI calls per in-process round")
    args = parser.parse_args()
    use_wrk = bool(shutil.which("wrk")) and not args.python_load

    median_ms, min_ms = cold_verification_ms()
    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-auth-bench-"))
    database_url = f"sqlite:///{workdir / 'registry.db'}"
    auth_file = workdir / "auth.toml"
    idp = IdentityProvider()
    token = "Bearer " + idp.token({"realm_access": {"roles": ["readers"]}}, lifetime=3600)
    write_auth_file(auth_file, idp)
    first_us, seen_us = token_verification_us(idp)
    header = {"Authorization": "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()}
    servers = []
    try:
        cpu = in_process_us(auth_file, workdir, args.in_process_requests, args.rounds, token)
        prepare_registry(database_url)
        env = {"REGISTRY_DATABASE_URL": database_url, "REGISTRY_LOG_LEVEL": "warning",
               "REGISTRY_AUTO_MIGRATE": "false"}
        servers.append(start_gunicorn("wsgi:app", env, args.workers, args.threads, workdir / "off.log"))
        servers.append(start_gunicorn("wsgi:app", {**env, "REGISTRY_AUTH_FILE": str(auth_file)}, args.workers,
                                      args.threads, workdir / "basic.log"))
        off, basic = servers
        schema_id = register(off.url, "bench-value")
        path = f"/schemas/ids/{schema_id}"
        variants = {"auth off": (off.url, {}), "valid Basic": (basic.url, header),
                    "bearer token": (basic.url, {"Authorization": token})}
        for url, headers in variants.values():
            drive(url + path, headers, 3, args.connections, use_wrk)  # warm-up: caches, one scrypt per worker
        best: dict[str, Figures] = {}
        paired: dict[str, list[float]] = {name: [] for name in variants}  # each round's req/s vs that round's off
        for _ in range(args.rounds):
            rates: dict[str, float] = {}
            for name, (url, headers) in variants.items():
                figures = drive(url + path, headers, args.duration, args.connections, use_wrk)
                rates[name] = figures.rps
                if name not in best or figures.rps > best[name].rps:
                    best[name] = figures
            for name, rate in rates.items():
                paired[name].append(rate / rates["auth off"])
    finally:
        for server in servers:
            server.stop()
        idp.down()
        shutil.rmtree(workdir, ignore_errors=True)

    generator = "wrk" if use_wrk else "python http.client"
    print(f"load: {generator}, {args.connections} keep-alive connections, best of {args.rounds} x "
          f"{args.duration:.0f}s; gunicorn gthread {args.workers} workers x {args.threads} threads; "
          f"{os.cpu_count()} CPUs")
    print(f"{'GET ' + path:<28} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'vs off':>7} {'paired':>7}")
    baseline = best["auth off"].rps
    for name, fig in best.items():
        print(f"{name:<28} {fig.rps:>9.0f} {fig.p50_ms:>8.2f} {fig.p99_ms:>8.2f} {fig.rps / baseline:>7.2f} "
              f"{statistics.median(paired[name]):>7.2f}")
    print("vs off: best round against best round; paired: median over rounds of each round's ratio to the "
          "auth-off run just before it (steadier when the machine's load drifts)")
    print(f"in process, CPU µs per request (best of {args.rounds} x {args.in_process_requests}): "
          + ", ".join(f"{name} {us:.0f}" for name, us in cpu.items())
          + f"; ratio Basic {cpu['auth off'] / cpu['valid Basic']:.2f}, bearer {cpu['auth off'] / cpu['bearer token']:.2f}")
    print(f"one cold scrypt verification (ln=15, r=8, p=1): median {median_ms:.1f} ms, best {min_ms:.1f} ms")
    print(f"one token verification (RS256, 2048-bit key): first sight {first_us:.0f} µs, seen before {seen_us:.1f} µs")


if __name__ == "__main__":
    main()
