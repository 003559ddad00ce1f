"""A fleet of real processes for tests/fleet: several `sqlregistry serve` instances on one
database, and Debian's nginx in front of them running deploy/nginx.conf itself.

nginx runs in the foreground as a child of the test (its own prefix, pid file, logs and
temporary directories under the test's directory), never as the system service.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from support.live import REPO_ROOT, LiveServer, answers, launch, start_server
from support.postgres import free_port

DEPLOY_NGINX = REPO_ROOT / "deploy" / "nginx.conf"


class NginxUnavailable(RuntimeError):
    """No nginx binary on this machine."""


def find_nginx() -> str:
    for candidate in (shutil.which("nginx"), "/usr/sbin/nginx"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise NginxUnavailable("nginx is not installed (apt-get install -y nginx-light)")


def render_nginx(upstreams: list[str], port: int, workdir: Path) -> str:
    """deploy/nginx.conf with this fleet's instances, port and paths; nothing else changed."""
    text = DEPLOY_NGINX.read_text()
    servers = re.findall(r"^(\s*)server \S+:\d+ (.*);$", text, flags=re.M)
    if not servers:
        raise ValueError("deploy/nginx.conf has no upstream `server host:port ...;` lines")
    indent, options = servers[0]
    text = re.sub(r"^\s*server \S+:\d+ .*;\n", "", text, flags=re.M)
    lines = "".join(f"{indent}server {u} {options};\n" for u in upstreams)
    text = re.sub(r"(upstream sqlregistry \{\n(?:\s*#.*\n|\s*zone .*\n)*)", lambda m: m.group(1) + lines, text, count=1)
    text = re.sub(r"listen \d+;", f"listen 127.0.0.1:{port};", text)
    text = text.replace("/var/log/nginx/sqlregistry-error.log", str(workdir / "error.log"))
    temp_paths = "".join(
        f"    {kind}_temp_path {workdir / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    text = text.replace("http {\n", "http {\n" + temp_paths, 1)
    text = text.replace("worker_processes auto;", "worker_processes 2;")
    return text


@dataclass
class Nginx:
    process: subprocess.Popen[bytes]
    url: str
    workdir: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: finish in-flight requests
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def error_log(self) -> str:
        try:
            return (self.workdir / "error.log").read_text(errors="replace")[-4000:]
        except OSError:
            return ""


def start_nginx(upstreams: list[str], workdir: Path, timeout: float = 15.0) -> Nginx:
    binary = find_nginx()
    workdir.mkdir(parents=True, exist_ok=True)
    workdir.chmod(0o755)  # nginx's workers may run as another user when the test runs as root
    port = free_port()
    conf = workdir / "nginx.conf"
    conf.write_text(render_nginx(upstreams, port, workdir))
    command = [binary, "-p", str(workdir), "-e", str(workdir / "error.log"), "-c", str(conf),
               "-g", f"daemon off; pid {workdir / 'nginx.pid'};"]
    log = (workdir / "stdout.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    log.close()
    nginx = Nginx(process, f"http://127.0.0.1:{port}", workdir)
    if answers(process, nginx.url + "/health/live", timeout):
        return nginx
    if process.poll() is not None:
        raise RuntimeError(f"nginx exited with {process.returncode}:\n{nginx.error_log()}")
    nginx.stop()
    raise RuntimeError(f"nginx did not answer within {timeout:.0f}s:\n{nginx.error_log()}")


@dataclass
class Fleet:
    """Instances on one database, and nginx balancing them."""

    database_url: str
    workdir: Path
    instances: list[LiveServer]
    nginx: Nginx
    workers: int = 2
    ports: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.nginx.url

    def kill(self, index: int) -> None:
        """SIGKILL an instance's master and its workers: no graceful anything."""
        server = self.instances[index]
        children = _children(server.process.pid)
        server.process.kill()
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        server.process.wait()

    def restart(self, index: int) -> None:
        """Start instance `index` again on its old port (nginx's upstream lists it)."""
        port = self.ports[index]
        self.instances[index] = launch(
            _serve_command(self.database_url, port, self.workers), port,
            self.workdir / f"instance-{index}-again.log", {"REGISTRY_LOG_LEVEL": "warning"},
        )

    def stop(self) -> None:
        self.nginx.stop()
        for server in self.instances:
            server.stop()


def _serve_command(database_url: str, port: int, workers: int) -> list[str]:
    return [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--workers", str(workers), "--database-url", database_url]


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def start_fleet(database_url: str, workdir: Path, count: int = 3, workers: int = 2) -> Fleet:
    """Start `count` instances at once (on an empty database they race to migrate) and nginx."""
    find_nginx()
    workdir.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(count) as pool:
        futures = [
            pool.submit(start_server, database_url, workdir / f"instance-{i}.log", workers)
            for i in range(count)
        ]
        instances = []
        errors = []
        for future in futures:
            try:
                instances.append(future.result())
            except Exception as exc:  # noqa: BLE001 - stop the others, then report
                errors.append(exc)
    if errors:
        for server in instances:
            server.stop()
        raise errors[0]
    ports = [int(server.url.rsplit(":", 1)[1]) for server in instances]
    try:
        nginx = start_nginx([f"127.0.0.1:{p}" for p in ports], workdir / "nginx")
    except Exception:
        for server in instances:
            server.stop()
        raise
    return Fleet(database_url, workdir, instances, nginx, workers, ports)
