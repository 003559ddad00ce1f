"""`pipeline decode --table`: a table created, evolved and refused through the command, and read
back from another Spark process through the same Derby metastore (`--warehouse`).

The test process's Spark session has the in-memory catalog (Derby admits one process and the
session fixture is shared): the in-process runs use it, the Hive runs are processes of their own."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from samples import EVENT_V1, EVENT_V2, event

from app.client import AvroSerializer, RegistryClient
from app.pipeline.job import main

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)
REPO = Path(__file__).resolve().parents[2]
# A second process on the same warehouse: its own Hive session, through which the command runs
# (it uses the running session), then what the metastore says of the table.
SECOND = """
import json, sys
from pyspark.sql import SparkSession
from app.pipeline.job import main, warehouse_settings

warehouse, table, argv = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
for key, value in warehouse_settings(warehouse).items():
    builder = builder.config(key, value)
spark = builder.enableHiveSupport().getOrCreate()
seen = sorted(row[1] for row in spark.sql("SHOW TABLES").collect())
code = main(argv)
columns = [{"name": c.name, "comment": c.description, "partition": c.isPartition}
           for c in spark.catalog.listColumns(table)]
rows = [row.asDict() for row in spark.table(table).orderBy("offset").collect()]
print("SEEN " + json.dumps({"before": seen, "code": code, "columns": columns, "rows": rows}))
"""


def dump(spark, path, serializer, version, offsets):
    rows = [(serializer(event(version, n)), n) for n in offsets]
    spark.createDataFrame(rows, "value binary, offset long").write.parquet(str(path))


@pytest.mark.timeout(600)  # two Spark processes of their own
def test_a_table_made_by_one_process_is_evolved_and_read_by_another_through_the_warehouse(
        spark, live_server, unique_subject, tmp_path):
    client = RegistryClient(live_server)
    subject = unique_subject()
    dump(spark, tmp_path / "day1", AvroSerializer(client, EVENT_V1, subject=subject), 1, range(3))
    dump(spark, tmp_path / "day2", AvroSerializer(client, EVENT_V2, subject=subject), 2, range(3, 5))
    warehouse = str(tmp_path / "warehouse")
    common = ["decode", "--registry", live_server, "--subject", subject, "--table", "events"]
    environ = {**os.environ, "PYTHONPATH": str(REPO), "SPARK_LOCAL_IP": "127.0.0.1"}
    first = subprocess.run(
        [sys.executable, "-m", "app.pipeline", *common, "--input", str(tmp_path / "day1"), "--reader", "1",
         "--warehouse", warehouse, "--partition-by", "name", "--master", "local[1]"],
        env=environ, cwd=tmp_path, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "appended to table events (created; reader version 1)"
    second = subprocess.run(
        [sys.executable, "-c", SECOND, warehouse, "events",
         json.dumps([*common, "--input", str(tmp_path / "day2"), "--reader", "latest-seen"])],
        env=environ, cwd=tmp_path, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    seen = json.loads(next(line for line in second.stdout.splitlines() if line.startswith("SEEN "))[5:])
    assert seen["before"] == ["events"] and seen["code"] == 0, second.stderr
    assert [(c["name"], c["partition"]) for c in seen["columns"]] == [
        ("id", False), ("offset", False), ("email", False), ("score", False), ("name", True)]
    assert seen["rows"] == [{**event(1, n), "offset": n, "email": None, "score": 1.5} for n in range(3)] + \
        [{**event(2, n), "offset": n} for n in range(3, 5)]
    assert (tmp_path / "warehouse" / "metastore_db").is_dir() and (tmp_path / "warehouse" / "events").is_dir()


def test_a_version_the_table_cannot_take_exits_1_with_one_line_naming_the_column(
        spark, live_server, unique_subject, tmp_path, database, capsys):
    client = RegistryClient(live_server)
    subject = unique_subject()
    dump(spark, tmp_path / "day1", AvroSerializer(client, EVENT_V2, subject=subject), 2, range(3))
    table = f"{database}.events"
    common = ["decode", "--registry", live_server, "--subject", subject, "--table", table]
    assert main([*common, "--input", str(tmp_path / "day1")]) == 0
    before = spark.table(table).schema
    client.register(subject, EVENT_V1)  # backward compatible (a reader drops fields), a column removed for the table
    dump(spark, tmp_path / "day2", AvroSerializer(client, EVENT_V1, subject=subject), 1, range(3, 5))
    capsys.readouterr()
    assert main([*common, "--input", str(tmp_path / "day2")]) == 1
    failure = [line for line in capsys.readouterr().err.splitlines() if line.startswith("sqlregistry pipeline: error")]
    assert failure == [f"sqlregistry pipeline: error: TableRefused: column 'email' of table {table} is missing from "
                       "these rows (removed from the reader schema or the input) (--debug shows the whole trace)"]
    assert spark.table(table).count() == 3 and spark.table(table).schema == before


def test_a_warehouse_cannot_be_given_to_a_session_already_running(spark, live_server, unique_subject, tmp_path,
                                                                  capsys):
    subject = unique_subject()
    RegistryClient(live_server).register(subject, EVENT_V1)
    assert main(["decode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "dump"),
                 "--table", "events", "--warehouse", str(tmp_path / "warehouse")]) == 1
    err = capsys.readouterr().err
    assert "error: ValueError: a Spark session already runs in this process (warehouse " in err
    assert not (tmp_path / "warehouse").exists()
