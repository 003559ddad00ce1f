"""How the JVM path's plans reach the executors: a JSON file added with `SparkContext.addFile`.

A Java UDF's per-row arguments should be small, so what a whole job shares (schemas, the
registry's address) travels once as a file, and each row names it. The file is named for its
content, so the same plan is one file however often a job ships it, and each executor JVM
parses a plan once. Decode and encode ship, register and call their UDFs the same way, here
(`plan_call`).

A stream's decode plan carries the registry's credentials, and whatever file is shipped is what
every executor trusts, so the files live in a folder of the job's own (`PlanFolder`: made by
`mkdtemp`, owner-only, a name no one else can predict or make first), each written exclusively
(never through a file or link already there) and read back and checked against its digest
before it is shipped. The job is the Spark application: its executors fetch every file it ever
added whenever they start (a new executor, a restarted one), so a plan must stay until the
application stops. The folder is removed then: by `remove_plans` (the `pipeline decode` command
calls it after stopping the session it started, failure included), when another application
starts in this process, or when the process exits.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from app.client import RegistryClient, Schema
from app.client.resolver import referenced_schemas

_DIGEST_CHARS = 24


class PlanFileMismatch(RuntimeError):
    """A plan file does not hold what this job wrote there: it is not shipped."""


class PlanFolder:
    """One job's plan files, in a private folder of its own until `remove`."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="sqlregistry-plans-"))  # 0700, an unpredictable name
        # In every file name, so that two folders' files never share a name within one Spark
        # application (a cluster's file server refuses a second path under a name it serves).
        self.token = hashlib.sha256(self.path.name.encode()).hexdigest()[:8]

    def write(self, kind: str, text: str) -> tuple[Path, str]:
        """The checked file holding `text` and its digest; made now unless this job wrote it already."""
        data = text.encode()
        digest = hashlib.sha256(data).hexdigest()[:_DIGEST_CHARS]
        path = self.path / f"sqlregistry-{kind}-{self.token}-{digest}.json"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass  # shipped earlier in this job: checked below like a new one
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
        self.check(path, digest)
        return path, digest

    @staticmethod
    def check(path: Path, digest: str) -> None:
        """Raises PlanFileMismatch unless `path` is a regular file of this user's holding the
        content named by `digest`."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError as exc:
            raise PlanFileMismatch(f"the plan file {path} cannot be read as written: {exc}") from exc
        with os.fdopen(fd, "rb") as found:
            status = os.fstat(found.fileno())
            held = found.read()
        if status.st_uid != os.getuid() or status.st_mode & 0o077:
            raise PlanFileMismatch(f"the plan file {path} is not this user's own (mode {status.st_mode & 0o777:o})")
        if hashlib.sha256(held).hexdigest()[:_DIGEST_CHARS] != digest:
            raise PlanFileMismatch(f"the plan file {path} does not hold the plan written there")

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


_BY_APPLICATION: dict[str, PlanFolder] = {}
_LOCK = threading.Lock()


def plan_folder(spark: SparkSession) -> PlanFolder:
    """The plan folder of `spark`'s application, made on first use."""
    application = spark.sparkContext.applicationId
    with _LOCK:
        folder = _BY_APPLICATION.get(application)
        if folder is None:
            # One Spark application runs in a process at a time: an earlier one's plans are spent.
            for spent in _BY_APPLICATION.values():
                spent.remove()
            _BY_APPLICATION.clear()
            folder = _BY_APPLICATION[application] = PlanFolder()
        return folder


def remove_plans(application: str) -> None:
    """Removes the plan folder of `application` (its applicationId), once it has stopped."""
    with _LOCK:
        folder = _BY_APPLICATION.pop(application, None)
    if folder is not None:
        folder.remove()


@atexit.register
def _remove_every_folder() -> None:
    with _LOCK:
        for folder in _BY_APPLICATION.values():
            folder.remove()
        _BY_APPLICATION.clear()


def ship_plan(spark: SparkSession, kind: str, plan: dict[str, object]) -> tuple[str, str]:
    """The plan's file name on the executors and its digest, once the file is checked and added."""
    path, digest = plan_folder(spark).write(kind, json.dumps(plan, sort_keys=True))
    spark.sparkContext.addFile(str(path))
    return path.name, digest


def schema_texts(registry: RegistryClient, schema: Schema) -> list[str]:
    """`schema`'s references' texts, dependencies first, then its own: the executors parse them
    in this order with one parser, so the names the references define carry over."""
    return [found.text for found in referenced_schemas(registry, schema)] + [schema.text]


def plan_call(spark: SparkSession, kind: str, plan: dict[str, object], java_class: str, result: T.DataType,
              value: Column) -> Column:
    """`java_class`'s UDF applied to `value` with `plan` shipped to the executors; the function
    is registered under a name made from the plan's digest, so two plans in one session never
    take each other's name."""
    name, digest = ship_plan(spark, kind, plan)
    function = f"sqlregistry_avro_{kind}_{digest}"
    spark.udf.registerJavaFunction(function, java_class, result)
    return F.call_function(function, value, F.lit(name))
