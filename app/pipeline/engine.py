"""Which decoder runs a `decode`: the JVM one (Java UDF, `app.pipeline.jvm`) or the Python one.

`engine="auto"` (the default) takes the JVM path when its jar can be built and loaded into the
session, else the Python path; `"jvm"` insists (an error says why it cannot), `"python"` never
tries. Every choice is one log line on the `app.pipeline` logger saying which path and why.
A batch's writers are resolved on the driver from the data's headers; a stream's cannot be seen
ahead, so on a stream the executors fetch them from the registry (the log line says so).
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from pyspark.sql import SparkSession

from app.pipeline.jvm import UDF_CLASS, JvmUnavailable, jar_path

ENGINES = ("auto", "jvm", "python")
LOG = logging.getLogger("app.pipeline")
_LOADED: set[tuple[int, int]] = set()
_LOCK = threading.Lock()


@dataclass(frozen=True)
class EngineChoice:
    """The path a decode (or encode: `work="encoding"`) runs on and the reason, as logged."""

    engine: str
    reason: str
    work: str = "decoding"

    @property
    def jvm(self) -> bool:
        return self.engine == "jvm"

    def __str__(self) -> str:
        return f"{self.work} on the {'JVM' if self.jvm else 'Python'} path: {self.reason}"


def _class_visible(spark: SparkSession) -> bool:
    jvm = spark.sparkContext._jvm
    try:
        jvm.java.lang.Class.forName(UDF_CLASS, False, jvm.java.lang.Thread.currentThread().getContextClassLoader())
    except Exception:  # py4j relays ClassNotFoundException as Py4JJavaError
        return False
    return True


def load_jvm_decoder(spark: SparkSession) -> str:
    """Make the decoder's class visible to this session's driver thread and its executors;
    returns where it came from. A session started with the jar in `spark.jars` (spark-submit
    --jars) has it already; otherwise the jar is built and added (`ADD JAR` ships it to every
    executor, local or on a cluster)."""
    key = (id(spark), threading.get_ident())
    with _LOCK:
        if key in _LOADED or _class_visible(spark):
            _LOADED.add(key)
            return "the decoder jar is on the session's classpath"
    path = jar_path()
    try:
        spark.sql(f"ADD JAR '{path}'")
    except Exception as exc:
        raise JvmUnavailable(f"the session refused the decoder jar {path}: {exc}") from exc
    if not _class_visible(spark):
        raise JvmUnavailable(f"{UDF_CLASS} is not visible after adding {path}")
    with _LOCK:
        _LOADED.add(key)
    return f"added {path.name} to the session"


def choose_engine(spark: SparkSession, engine: str = "auto", *, streaming: bool = False,
                  work: str = "decoding", python_only: str | None = None) -> EngineChoice:
    """The path a decode (or an encode) takes, logged; `engine="jvm"` raises JvmUnavailable
    rather than fall back. `python_only`: why the JVM path cannot take this work at all (a
    format its decoder does not read)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    if python_only is not None:
        if engine == "jvm":
            raise JvmUnavailable(python_only)
        choice = EngineChoice("python", python_only, work)
    elif engine == "python":
        choice = EngineChoice("python", "asked for (engine='python')", work)
    else:
        try:
            reason = load_jvm_decoder(spark)
            if streaming:
                reason += "; a stream's writers are fetched by the executors from the registry"
            choice = EngineChoice("jvm", reason, work)
        except JvmUnavailable as exc:
            if engine == "jvm":
                raise
            choice = EngineChoice("python", f"no JVM decoder: {exc}", work)
    LOG.info("%s", choice)
    return choice
