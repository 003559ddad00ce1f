"""General unions decode as Spark's own Avro reader shapes them: a struct of `member0`,
`member1`, ... (one per non-null member, in the reader's order) with exactly the member the
record was written with set. Several record members, an enum beside a string, a fixed beside
bytes, int beside long, arrays and maps; a writer's plain field read through a reader union;
a reader that reorders the members. Checked value for value against fastavro in a plain loop
(its `return_named_type` names the named member; the rest differ by Python type here)."""
from __future__ import annotations

import io
import json

import pytest
from fastavro import parse_schema, schemaless_reader
from pyspark.sql import types as T

from app.client import AvroSerializer, RegistryClient
from app.pipeline import avro_to_spark, decode

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)

CIRCLE = {"type": "record", "name": "Circle", "fields": [{"name": "r", "type": "double"}]}
SQUARE = {"type": "record", "name": "Square", "fields": [
    {"name": "side", "type": "double"}, {"name": "label", "type": ["null", "string"], "default": None}]}
COLOUR = {"type": "enum", "name": "Colour", "symbols": ["RED", "GREEN"]}
HASH = {"type": "fixed", "name": "Hash", "size": 2}
V1_SHAPE = ["null", CIRCLE, SQUARE, "string", "int", "long", COLOUR, HASH, "bytes",
            {"type": "array", "items": "int"}, {"type": "map", "values": "string"}]
V1 = {"type": "record", "name": "Drawing", "namespace": "u", "fields": [
    {"name": "id", "type": "long"},
    {"name": "shape", "type": V1_SHAPE},
    {"name": "ratio", "type": ["float", "double"]},
    {"name": "count", "type": ["null", "int", "long"]},
    {"name": "frame", "type": "Circle"},
]}
# The reader reorders the members, reads the plain `frame` through a union, and adds a field
# whose default is its union's first member.
V2 = {"type": "record", "name": "Drawing", "namespace": "u", "fields": [
    {"name": "id", "type": "long"},
    {"name": "shape", "type": ["null", "string", SQUARE, CIRCLE, "long", "int", {"type": "map", "values": "string"},
                               {"type": "array", "items": "int"}, "bytes", HASH, COLOUR]},
    {"name": "ratio", "type": ["float", "double"]},
    {"name": "count", "type": ["null", "int", "long"]},
    {"name": "frame", "type": ["u.Square", "u.Circle"]},
    {"name": "extra", "type": ["u.Square", "null", "u.Circle"], "default": {"side": 2.0, "label": "d"}},
]}
SHAPES = [None, ("u.Circle", {"r": 1.5}), ("u.Square", {"side": 2.0, "label": "sq"}), "text", 7, 2**40 + 3,
          ("u.Colour", "GREEN"), ("u.Hash", b"ab"), b"\x00\xff\x10", [1, 2, 3], {"k": "v"},
          ("u.Square", {"side": 0.5, "label": None})]


def drawing(n: int) -> dict:
    return {"id": n, "shape": SHAPES[n % len(SHAPES)], "ratio": n / 8, "count": None if n % 3 == 0 else n * 2**33,
            "frame": {"r": float(n)}}


def identity(value) -> str:
    """Which member fastavro says a union value is: the name of a named type, else its Avro
    type by Python type (the test data is chosen so that this is unambiguous)."""
    if isinstance(value, tuple):
        return value[0]
    if isinstance(value, int):
        return "int" if -2**31 <= value < 2**31 else "long"
    return {str: "string", bytes: "bytes", list: "array", dict: "map"}[type(value)]


def member_names(union: list) -> list[str]:
    names = []
    for member in union:
        if member == "null":
            continue
        if isinstance(member, dict):
            names.append(f"u.{member['name']}" if "name" in member else member["type"])
        else:
            names.append(member if "." in member or member in ("string", "int", "long", "bytes") else f"u.{member}")
    return names


def as_struct(value, union: list) -> dict | None:
    """fastavro's union value as Spark's struct of members for the reader union."""
    if value is None:
        return None
    names = member_names(union)
    bare = value[1] if isinstance(value, tuple) else value
    out = {f"member{i}": None for i in range(len(names))}
    out[f"member{names.index(identity(value))}"] = bare
    return out


def spark_plain(value):
    if hasattr(value, "asDict"):
        return {k: spark_plain(v) for k, v in value.asDict().items()}
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, list):
        return [spark_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: spark_plain(v) for k, v in value.items()}
    return value


@pytest.fixture
def drawings(spark, live_server, unique_subject):
    client = RegistryClient(live_server)
    subject = unique_subject()
    serialize = AvroSerializer(client, json.dumps(V1), subject=subject)
    values = [serialize(drawing(n)) for n in range(3 * len(SHAPES))]
    client.register(subject, json.dumps(V2))
    df = spark.createDataFrame(list(enumerate(values)), "n int, value binary")
    return client, subject, values, df


def fastavro_loop(values: list[bytes]) -> list[dict]:
    """The independent decoder: fastavro alone, the writer parsed once, no app code."""
    writer = parse_schema(json.loads(json.dumps(V1)))
    return [schemaless_reader(io.BytesIO(data[5:]), writer, return_named_type=True) for data in values]


def test_spark_type_of_general_unions_and_the_widened_numeric_pairs(live_server):
    shape = avro_to_spark(json.dumps(V2)).data_type
    members = shape["shape"].dataType
    assert shape["shape"].nullable and [f.name for f in members.fields] == [f"member{i}" for i in range(10)]
    assert [f.dataType for f in members.fields][:6] == [
        T.StringType(), avro_to_spark(json.dumps(SQUARE)).data_type, avro_to_spark(json.dumps(CIRCLE)).data_type,
        T.LongType(), T.IntegerType(), T.MapType(T.StringType(), T.StringType(), False)]
    assert all(f.nullable for f in members.fields)
    assert (shape["ratio"].dataType, shape["ratio"].nullable) == (T.DoubleType(), False)
    assert (shape["count"].dataType, shape["count"].nullable) == (T.LongType(), True)
    assert [f.name for f in shape["frame"].dataType.fields] == ["member0", "member1"]


def test_each_record_sets_exactly_the_member_it_was_written_with_as_written(engine, spark, drawings):
    client, subject, values, df = drawings
    rows = decode(df, "value", client, subject=subject, reader=1, engine=engine).orderBy("n").collect()
    expected = fastavro_loop(values)
    assert len(rows) == len(expected)
    for row, want in zip(rows, expected):
        got = spark_plain(row["value"])
        assert got["shape"] == as_struct(want["shape"], V1_SHAPE), row["n"]
        if got["shape"] is not None:
            assert sum(v is not None for v in got["shape"].values()) == 1
        assert got["ratio"] == want["ratio"] and got["count"] == want["count"] and got["frame"] == want["frame"]


def test_projection_onto_a_reader_that_reorders_members_and_widens_a_field_into_a_union(engine, spark, drawings):
    client, subject, values, df = drawings
    rows = decode(df, "value", client, subject=subject, reader="latest", engine=engine).orderBy("n").collect()
    # fastavro's own resolution cannot be the reference here: it takes the first reader member
    # a value can be promoted to (a bytes value into `string`, an int into `long`), where
    # Java's resolver, hence Spark, takes the member of the value's own type. So fastavro reads
    # as written and the member is found in the reader's order by that type.
    expected = fastavro_loop(values)
    for row, want in zip(rows, expected):
        got = spark_plain(row["value"])
        assert got["shape"] == as_struct(want["shape"], V2["fields"][1]["type"]), row["n"]
        # A plain writer field read through a reader union: always the member it resolves to.
        assert got["frame"] == {"member0": None, "member1": want["frame"]}
        # A default from the reader schema is the union's first member.
        assert got["extra"] == {"member0": {"side": 2.0, "label": "d"}, "member1": None}
        assert got["id"] == want["id"] and got["ratio"] == want["ratio"]
