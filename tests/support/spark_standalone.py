"""A real Spark standalone cluster (one Master, one Worker) from PySpark's own install.

PySpark's wheel ships `bin/spark-class` but not `sbin/start-master.sh`, so the daemons are
started as `spark-class` subprocesses, bound to loopback on free ports. The Worker's work
directory is ours, so a test can see what its executors fetched (the decoder jar, plan files)
and their logs. The Master's JSON status (`/json/`) says when the Worker is alive and which
applications ran.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.postgres import free_port


def spark_bin() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin"


def loopback_env(root: Path) -> dict[str, str]:
    """The environment every Spark process of a test runs in: loopback only, scratch under `root`."""
    # The Master and Worker daemons take their JVM options from SPARK_DAEMON_JAVA_OPTS, which
    # tests/conftest.py sets with the others (support/spark_jvm.py).
    return {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOCAL_DIRS": str(root / "local")}


@dataclass
class StandaloneCluster:
    """A running Master and Worker; `url` is what `--master` takes."""

    url: str
    status_url: str
    work_dir: Path
    root: Path
    processes: list[subprocess.Popen[bytes]]

    def status(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.status_url, timeout=5) as reply:
            return json.load(reply)

    def app_dirs(self) -> set[Path]:
        """The executor folders the Worker made, one `app-*` per application that ran on it."""
        return set(self.work_dir.glob("app-*")) if self.work_dir.is_dir() else set()

    def completed_app(self, app_id: str, timeout: float = 20.0) -> dict[str, Any] | None:
        """The Master's record of a finished application (it lands a moment after the driver stops)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for app in self.status().get("completedapps", []):
                if app["id"] == app_id:
                    return app
            time.sleep(0.2)
        return None

    def logs(self) -> str:
        return "\n".join(f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
                         for path in sorted(self.root.glob("*.log")))

    def stop(self) -> None:
        """SIGTERM (the Worker takes its executors down with it), SIGKILL if one hangs."""
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _daemon(root: Path, name: str, arguments: list[str]) -> subprocess.Popen[bytes]:
    log = (root / f"{name}.log").open("wb")
    try:
        return subprocess.Popen([str(spark_bin() / "spark-class"), *arguments], env=loopback_env(root),
                                cwd=root, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    finally:
        log.close()


def start_cluster(root: Path, cores: int = 1, memory: str = "1g", timeout: float = 60.0) -> StandaloneCluster:
    """Start a Master and one Worker under `root`; returns once the Master lists the Worker ALIVE."""
    port, ui, worker_ui = free_port(), free_port(), free_port()
    work_dir = root / "work"
    work_dir.mkdir(parents=True, exist_ok=True)
    master = _daemon(root, "master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                      "--port", str(port), "--webui-port", str(ui)])
    cluster = StandaloneCluster(url=f"spark://127.0.0.1:{port}", status_url=f"http://127.0.0.1:{ui}/json/",
                                work_dir=work_dir, root=root, processes=[master])
    cluster.processes.append(_daemon(root, "worker", [
        "org.apache.spark.deploy.worker.Worker", cluster.url, "--host", "127.0.0.1", "--cores", str(cores),
        "--memory", memory, "--webui-port", str(worker_ui), "--work-dir", str(work_dir)]))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(process.poll() is not None for process in cluster.processes):
            break
        try:
            if cluster.status().get("aliveworkers", 0) >= 1:
                return cluster
        except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
            pass
        time.sleep(0.25)
    cluster.stop()
    raise RuntimeError(f"the standalone cluster did not come up within {timeout:.0f}s:\n{cluster.logs()}")
