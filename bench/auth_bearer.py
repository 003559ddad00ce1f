"""What bearer tokens cost on the hottest read: `GET /schemas/ids/{id}` req/s with a valid
bearer token vs the same server software with authentication off (target: at least 0.8x).

Both servers run at once on one SQLite file (same gunicorn settings as bench/read_path.py),
and the load alternates between them for a few rounds, best round kept, so the ratio is not
skewed by whatever else the machine did during one of them. Throughput on a shared 2-core
machine swings with its load, so the CPU time per request through the WSGI callable (no
sockets, as bench/read_cpu.py) is printed too: the steadier ratio. The identity provider
is tests/support/idp.py on loopback. Also printed: one token verification in process, first
sight (signature check) and repeated (the SHA-256 cache).

    python bench/auth_bearer.py [--duration 5] [--rounds 3] [--connections 8] [--workers 2]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

from read_cpu import environ  # noqa: E402
from read_path import CONTENT_TYPE, SCHEMA, Figures, prepare_registry, run_python, run_wrk, start_gunicorn  # noqa: E402
from support.idp import IdentityProvider  # noqa: E402

AUTH_FILE = """
[authentication]
methods = ["bearer"]

[bearer]
jwks_url = "{jwks_url}"
issuer = "{issuer}"
audience = "sqlregistry"
algorithms = ["RS256"]
groups_claim = "realm_access.roles"
"""


def register(base: str, subject: str, headers: dict[str, str]) -> int:
    body = json.dumps({"schema": SCHEMA}).encode()
    request = urllib.request.Request(f"{base}/subjects/{subject}/versions", data=body, method="POST",
                                     headers={"Content-Type": CONTENT_TYPE, **headers})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.load(reply)["id"]


def verify_cost(idp: IdentityProvider, rounds: int = 200) -> tuple[float, float]:
    """µs per verification of a token seen for the first time, and of one seen before."""
    from app.security.bearer import BearerVerifier
    from app.security.records import BearerSettings

    verifier = BearerVerifier(BearerSettings(algorithms=("RS256",), jwks_url=idp.jwks_url, issuer=idp.issuer,
                                             audience="sqlregistry"))
    tokens = [idp.token(sub=f"user-{i}") for i in range(rounds)]
    verifier.verify(idp.token())  # the JWKS fetch is not part of either figure
    began = time.perf_counter()
    for token in tokens:
        verifier.verify(token)
    first = (time.perf_counter() - began) / rounds
    began = time.perf_counter()
    for _ in range(10):
        for token in tokens:
            verifier.verify(token)
    repeated = (time.perf_counter() - began) / (rounds * 10)
    return first * 1e6, repeated * 1e6


def cpu_per_request(app: Any, path: str, headers: dict[str, str], requests: int) -> float:
    """Process CPU µs per request through the WSGI callable."""
    extra = {"HTTP_" + name.upper().replace("-", "_"): value for name, value in headers.items()}
    statuses: list[str] = []

    def start_response(status: str, response_headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        statuses.append(status)

    began = time.process_time()
    for _ in range(requests):
        b"".join(app({**environ(path), **extra}, start_response))
    if not statuses[-1].startswith("200"):
        raise RuntimeError(f"GET {path}: {statuses[-1]}")
    return (time.process_time() - began) / requests * 1e6


def in_process(database_url: str, auth_file: Path, path: str, bearer: dict[str, str], rounds: int,
               requests: int = 5000) -> tuple[float, float]:
    """Best-of-rounds CPU µs per request, auth off and with the bearer token, interleaved."""
    from app.factory import create_app
    from app.settings import Settings

    plain = create_app(Settings(database_url=database_url)).wsgi_app
    secured = create_app(Settings(database_url=database_url, auth_file=str(auth_file))).wsgi_app
    cpu_per_request(plain, path, {}, 200)
    cpu_per_request(secured, path, bearer, 200)
    off = min(cpu_per_request(plain, path, {}, requests) for _ in range(rounds))
    on = min(cpu_per_request(secured, path, bearer, requests) for _ in range(rounds))
    return off, on


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of load per round and server")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the best of each is kept")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--python-load", action="store_true", help="use the Python generator even if wrk exists")
    args = parser.parse_args()
    drive = run_wrk if shutil.which("wrk") and not args.python_load else run_python

    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-bench-bearer-"))
    idp = IdentityProvider()
    servers = []
    try:
        database_url = f"sqlite:///{workdir / 'registry.db'}"
        prepare_registry(database_url)
        auth_file = workdir / "auth.toml"
        auth_file.write_text(AUTH_FILE.format(jwks_url=idp.jwks_url, issuer=idp.issuer))
        env = {"REGISTRY_DATABASE_URL": database_url, "REGISTRY_LOG_LEVEL": "warning"}
        plain = start_gunicorn("wsgi:app", env, args.workers, args.threads, workdir / "plain.log")
        servers.append(plain)
        secured = start_gunicorn("wsgi:app", {**env, "REGISTRY_AUTH_FILE": str(auth_file)}, args.workers,
                                 args.threads, workdir / "bearer.log")
        servers.append(secured)
        token = idp.token({"realm_access": {"roles": ["payments"]}}, lifetime=3600)
        bearer = {"Authorization": f"Bearer {token}"}
        schema_id = register(secured.url, "bench-value", bearer)
        path = f"/schemas/ids/{schema_id}"
        targets = {"auth off": (plain.url, {}), "bearer token": (secured.url, bearer)}
        best: dict[str, Figures] = {}
        for label, (base, headers) in targets.items():
            drive(base + path, 1, args.connections, headers)  # warm-up: caches, JWKS fetch in each worker
        for _ in range(args.rounds):
            for label, (base, headers) in targets.items():
                figures = drive(base + path, args.duration, args.connections, headers)
                if label not in best or figures.rps > best[label].rps:
                    best[label] = figures
        first_us, repeated_us = verify_cost(idp)
        cpu_off, cpu_on = in_process(database_url, auth_file, path, bearer, args.rounds)
    finally:
        for server in servers:
            server.stop()
        idp.down()
        shutil.rmtree(workdir, ignore_errors=True)

    generator = "wrk" if drive is run_wrk else "python http.client"
    print(f"load: {generator}, {args.connections} keep-alive connections, best of {args.rounds} x "
          f"{args.duration:.0f}s; gunicorn gthread {args.workers} workers x {args.threads} threads; "
          f"{os.cpu_count()} CPUs; SQLite")
    print(f"{'GET ' + path:<28} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'vs off':>7}")
    for label, figures in best.items():
        print(f"{label:<28} {figures.rps:>9.0f} {figures.p50_ms:>8.2f} {figures.p99_ms:>8.2f} "
              f"{figures.rps / best['auth off'].rps:>7.2f}")
    print(f"CPU per request through the WSGI app: auth off {cpu_off:.0f} µs, bearer token {cpu_on:.0f} µs "
          f"(throughput ratio {cpu_off / cpu_on:.2f})")
    print(f"token verification in process (RS256, 2048-bit): first sight {first_us:.0f} µs, "
          f"seen before {repeated_us:.1f} µs")


if __name__ == "__main__":
    main()
