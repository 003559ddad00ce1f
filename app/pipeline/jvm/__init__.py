"""The pipeline's JVM decoder: Java source shipped in the package, compiled here into a small jar.

The jar is built with `javac` against the jars PySpark's wheel ships (`pyspark/jars`: Spark's
SQL API and Apache Avro's Java library), never downloaded, so it matches the Spark it runs in.
It is built once per (source, PySpark version) into `build/` next to this file, or into
`~/.cache/sqlregistry` when the package is not writable; `python -m app.pipeline.jvm build`
builds it ahead of time and prints its path (for `spark-submit --jars`).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import zipfile
from pathlib import Path

SOURCE = Path(__file__).parent / "src"
UDF_CLASS = "org.sqlregistry.pipeline.AvroDecodeUdf"
_LOCK = threading.Lock()


class JvmUnavailable(RuntimeError):
    """The JVM decoder cannot be built or loaded; the message says why (the Python path runs)."""


class JvmBuildFailed(JvmUnavailable):
    """javac refused the decoder's own source: a defect of this package, not a machine without
    Java, so the tests fail on it wherever they run and `python -m app.pipeline.jvm build`
    exits 2 (scripts/test stops on it) instead of reading as "no JVM"."""


def _pyspark_jars() -> Path:
    try:
        import pyspark
    except ImportError as exc:
        raise JvmUnavailable(f"pyspark is not installed ({exc})") from exc
    jars = Path(pyspark.__file__).parent / "jars"
    if not any(jars.glob("avro-*.jar")):
        raise JvmUnavailable(f"PySpark's jars ({jars}) have no Apache Avro library to compile against")
    return jars


def _sources() -> list[Path]:
    return sorted(SOURCE.rglob("*.java"))


def _digest(jars: Path) -> str:
    digest = hashlib.sha256()
    for path in _sources():
        digest.update(path.relative_to(SOURCE).as_posix().encode() + b"\0" + path.read_bytes())
    digest.update(",".join(sorted(p.name for p in jars.glob("*.jar"))).encode())
    return digest.hexdigest()[:16]


def _build_dir() -> Path:
    here = Path(__file__).parent / "build"
    try:
        here.mkdir(exist_ok=True)
        if os.access(here, os.W_OK):
            return here
    except OSError:
        pass
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sqlregistry"
    cache.mkdir(parents=True, exist_ok=True)
    return cache


def jar_path() -> Path:
    """The jar for these sources and this PySpark, built if it is not there yet."""
    jars = _pyspark_jars()
    name = f"sqlregistry-pipeline-{_digest(jars)}.jar"
    for folder in (Path(__file__).parent / "build", _build_dir()):
        if (folder / name).is_file():
            return folder / name
    with _LOCK:
        target = _build_dir() / name
        if not target.is_file():
            _compile(jars, target)
    return target


def _compile(jars: Path, target: Path) -> None:
    javac = shutil.which("javac") or (os.path.join(os.environ["JAVA_HOME"], "bin", "javac")
                                      if os.environ.get("JAVA_HOME") else None)
    if javac is None or not os.access(javac, os.X_OK):
        raise JvmUnavailable("no Java compiler (javac) to build the JVM decoder; "
                             "apt-get install openjdk-17-jdk-headless")
    with tempfile.TemporaryDirectory() as classes:
        done = subprocess.run(
            [javac, "-nowarn", "--release", "17", "-encoding", "UTF-8", "-cp", str(jars / "*"), "-d", classes,
             *map(str, _sources())], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise JvmBuildFailed(f"javac failed: {done.stderr.strip()[-2000:]}")
        # Written beside the target and renamed: a concurrent reader sees a whole jar or none.
        partial = target.with_suffix(f".{os.getpid()}.part")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: sqlregistry\r\n\r\n")
            for path in sorted(Path(classes).rglob("*.class")):
                jar.write(path, path.relative_to(classes).as_posix())
        partial.replace(target)
