"""`write_table`: decoded rows into a catalog table the reader schema creates and evolves, on
the test session's own catalog (one database per test, in the test's folder)."""
from __future__ import annotations

import json

import pytest
from samples import EVENT_V1, EVENT_V2, event

from app.client import Schema
from app.pipeline.tables import TableRefused, field_notes, write_table
from app.pipeline.types import avro_to_spark

DOCUMENTED_V1 = json.dumps({"type": "record", "name": "Event", "namespace": "shop", "fields": [
    {"name": "id", "type": "long", "doc": "the event's id"},
    {"name": "name", "type": "string", "doc": "who it's about"},
]})
DOCUMENTED_V2 = json.dumps({**json.loads(DOCUMENTED_V1), "fields": [
    *json.loads(DOCUMENTED_V1)["fields"],
    {"name": "email", "type": ["null", "string"], "default": None, "doc": "where to write"},
    {"name": "score", "type": "double", "default": 1.5},
]})
RETYPED = json.dumps({"type": "record", "name": "Event", "fields": [
    {"name": "id", "type": "string"}, {"name": "name", "type": "string"},
]})


def decoded(spark, reader_text, records, offsets):
    """What `decode` gives: the record as the `value` struct, the dump's other columns as they were."""
    value = avro_to_spark(reader_text).data_type
    schema = f"value {value.simpleString()}, offset long"
    return spark.createDataFrame([(record, n) for record, n in zip(records, offsets)], schema)


def comments(spark, table):
    return {column.name: column.description for column in spark.catalog.listColumns(table)}


def test_the_first_write_creates_the_table_with_field_docs_as_comments_partitioned_when_asked(spark, database):
    table = f"{database}.events"
    rows = decoded(spark, DOCUMENTED_V1, [event(1, n) for n in range(3)], range(3))
    written = write_table(rows, Schema(DOCUMENTED_V1), table, partition_by="name")
    assert written.created and written.added == ()
    assert comments(spark, table) == {"id": "the event's id", "name": "who it's about", "offset": None}
    assert [c.name for c in spark.catalog.listColumns(table) if c.isPartition] == ["name"]
    got = [row.asDict() for row in spark.table(table).orderBy("offset").collect()]
    assert got == [{**event(1, n), "offset": n} for n in range(3)]


def test_a_version_adding_fields_adds_columns_and_older_rows_read_the_default_or_null(spark, database):
    table = f"{database}.events"
    write_table(decoded(spark, DOCUMENTED_V1, [event(1, n) for n in range(2)], range(2)), DOCUMENTED_V1, table)
    written = write_table(decoded(spark, DOCUMENTED_V2, [event(2, n) for n in range(2, 4)], range(2, 4)),
                          Schema(DOCUMENTED_V2), table)
    assert not written.created and written.added == ("email", "score")
    assert spark.table(table).columns == ["id", "name", "offset", "email", "score"]
    assert comments(spark, table)["email"] == "where to write"
    got = [row.asDict() for row in spark.table(table).orderBy("offset").collect()]
    assert got == [{**event(1, n), "offset": n, "email": None, "score": 1.5} for n in range(2)] + \
        [{**event(2, n), "offset": n} for n in range(2, 4)]


@pytest.mark.parametrize(("second", "named"), [(RETYPED, "'id'"), (EVENT_V1, "'email'")],
                         ids=["a-column-retyped", "a-column-removed"])
def test_a_version_the_table_cannot_take_is_refused_naming_the_column_and_nothing_changes(
        spark, database, second, named):
    table = f"{database}.events"
    write_table(decoded(spark, EVENT_V2, [event(2, n) for n in range(3)], range(3)), EVENT_V2, table)
    before = spark.table(table).schema
    records = [{"id": str(n), "name": "x"} if second == RETYPED else event(1, n) for n in range(3, 5)]
    with pytest.raises(TableRefused, match=named):
        write_table(decoded(spark, second, records, range(3, 5)), second, table)
    assert spark.table(table).count() == 3
    assert spark.table(table).schema == before


def test_a_partition_column_other_than_the_tables_is_refused(spark, database):
    table = f"{database}.events"
    write_table(decoded(spark, EVENT_V1, [event(1, 0)], [0]), EVENT_V1, table, partition_by="name")
    with pytest.raises(TableRefused, match="partitioned by \\['name'\\], not by 'id'"):
        write_table(decoded(spark, EVENT_V1, [event(1, 1)], [1]), EVENT_V1, table, partition_by="id")
    assert spark.table(table).count() == 1


def test_json_schema_descriptions_and_defaults_are_the_field_notes():
    text = json.dumps({"type": "object", "properties": {
        "id": {"type": "integer", "description": "the id"},
        "tier": {"type": "string", "default": "basic"},
    }})
    notes = field_notes(Schema(text, "JSON"))
    assert notes["id"].doc == "the id" and not notes["id"].has_default
    assert notes["tier"].default == "basic" and notes["tier"].has_default


ORDER_PROTO = """syntax = "proto3";
package shop;
// An order.
message Order {
  // The order's id.
  // Unique per shop.
  int64 id = 1;

  // a detached note, not the item's

  string item = 2; // trailing, not leading
  /* What it cost,
   * in cents. */
  int64 cents = 3;
  oneof paid_by {
    // the card's last digits
    string card = 4;
  }
  message Line {
    // not a field of Order
    string sku = 1;
  }
}
"""


def test_protobuf_leading_comments_become_column_comments(spark, database):
    table = f"{database}.orders"
    rows = spark.createDataFrame([((1, "pen", 250, "1234"), 0)],
                                 "value struct<id:bigint,item:string,cents:bigint,card:string>, offset long")
    write_table(rows, Schema(ORDER_PROTO, "PROTOBUF"), table)
    described = {row["col_name"]: row["comment"] for row in spark.sql(f"DESCRIBE TABLE {table}").collect()}
    assert described == {"id": "The order's id. Unique per shop.", "item": None, "cents": "What it cost, in cents.",
                         "card": "the card's last digits", "offset": None}
    assert field_notes(Schema(ORDER_PROTO, "PROTOBUF"), "shop.Order.Line")["sku"].doc == "not a field of Order"


def test_a_field_added_inside_a_struct_column_is_refused_naming_the_nested_field(spark, database):
    table = f"{database}.nested"
    first = spark.createDataFrame([((1, (2,)), 0)], "value struct<id:bigint,s:struct<a:int>>, offset long")
    write_table(first, json.dumps({"type": "record", "name": "N", "fields": []}), table)
    before = spark.table(table).schema
    wider = spark.createDataFrame([((1, (2, 3)), 1)], "value struct<id:bigint,s:struct<a:int,b:int>>, offset long")
    with pytest.raises(TableRefused, match=r"column 's' of table .*: field s\.b added; Spark's catalog cannot change "
                                           r"the type of a column inside a struct"):
        write_table(wider, json.dumps({"type": "record", "name": "N", "fields": []}), table)
    assert spark.table(table).schema == before and spark.table(table).count() == 1
