"""How the JVM path's plans reach the executors: a JSON file added with `SparkContext.addFile`.

A Java UDF's per-row arguments should be small, so what a whole job shares (schemas, the
registry's address) travels once as a file, and each row names it. The file is named for its
content, so the same plan is one file however often it is shipped, and each executor JVM
parses a plan once. It is owner-only: a stream's decode plan carries the registry credentials.
Decode and encode ship, register and call their UDFs the same way, here (`plan_call`).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from app.client import RegistryClient, Schema
from app.client.resolver import referenced_schemas

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


def schema_texts(registry: RegistryClient, schema: Schema) -> list[str]:
    """`schema`'s references' texts, dependencies first, then its own: the executors parse them
    in this order with one parser, so the names the references define carry over."""
    return [found.text for found in referenced_schemas(registry, schema)] + [schema.text]


def plan_call(spark: SparkSession, kind: str, plan: dict[str, object], java_class: str, result: T.DataType,
              value: Column) -> Column:
    """`java_class`'s UDF applied to `value` with `plan` shipped to the executors; the function
    is registered under a name made from the plan's digest, so two plans in one session never
    take each other's name."""
    name = ship_plan(spark, kind, plan)
    function = f"sqlregistry_avro_{kind}_" + name.rsplit("-", 1)[-1].split(".")[0]
    spark.udf.registerJavaFunction(function, java_class, result)
    return F.call_function(function, value, F.lit(name))
