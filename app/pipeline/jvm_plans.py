"""How the JVM path's plans reach the executors: a JSON file added with `SparkContext.addFile`.

A Java UDF's per-row arguments should be small, so what a whole job shares (schemas, the
registry's address) travels once as a file, and each row names it. The file is named for its
content, so the same plan is one file however often it is shipped, and each executor JVM
parses a plan once. It is owner-only: a stream's decode plan carries the registry credentials.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from pyspark.sql import SparkSession

PLAN_DIR = Path(tempfile.gettempdir()) / f"sqlregistry-pipeline-plans-{os.getuid()}"


def ship_plan(spark: SparkSession, kind: str, plan: dict[str, object]) -> str:
    """The plan's file name on the executors (`sqlregistry-{kind}-{digest}.json`)."""
    text = json.dumps(plan, sort_keys=True)
    name = f"sqlregistry-{kind}-{hashlib.sha256(text.encode()).hexdigest()[:24]}.json"
    PLAN_DIR.mkdir(mode=0o700, exist_ok=True)
    path = PLAN_DIR / name
    if not path.is_file():
        partial = path.with_suffix(f".{os.getpid()}.part")
        with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as out:
            out.write(text)
        partial.replace(path)
    spark.sparkContext.addFile(str(path))
    return name
