"""Confluent's CEL extensions in our CEL and CEL_FIELD executors: the decimal constructor and
`decimals.*` (Java BigDecimal semantics), `==`/`!=`/`in` on decimals, the extended `timestamp`
and `string`; an Avro decimal field reaches CEL as a Decimal, so a CEL_FIELD rule computes on it
exactly and writes the bytes confluent-kafka's serializer writes."""
from __future__ import annotations

import datetime
import json
import uuid
from decimal import Decimal
from typing import Any

import pytest
from confluent_rules import context, serializer
from google.protobuf.timestamp_pb2 import Timestamp

from app.client import AvroDeserializer, AvroSerializer, RegistryClient, UseLatest
from app.client.errors import RuleFailed
from app.client.records import Rule, RuleSet, Schema
from app.client.rules.cel_executor import run, to_cel
from app.client.rules.executors import RuleError


def cel(expr: str, **variables: Any) -> Any:
    return run(expr, {name: to_cel(value) for name, value in variables.items()})


@pytest.mark.parametrize("expr, expected", [
    ('string(decimals.add(decimal("1.10"), decimal("2.205")))', "3.305"),
    ('string(decimals.sub(decimal("1"), decimal("0.001")))', "0.999"),
    ('string(decimals.mul(decimal("1.5"), decimal("1.50")))', "2.250"),
    ('string(decimals.div(decimal(2), decimal(3)))', "0.66666666666666666666666666666666666667"),
    ('string(decimals.div(decimal("1.00"), decimal(4)))', "0.25"),
    ('string(decimals.mod(decimal("-7.5"), decimal(2)))', "-1.5"),
    ('string(decimals.sqrt(decimal("9.0")))', "3"),
    ('string(decimals.sqrt(decimal(2)))', "1.4142135623730950488016887242096980786"),
    ('string(decimals.round(decimal("2.345"), 2))', "2.35"),
    ('string(decimals.round(decimal("-2.5")))', "-3"),
    ('string(decimals.round(decimal("1234"), -2))', "1200"),
    ('string(decimals.trunc(decimal("-2.789"), 1))', "-2.7"),
    ('string(decimals.trunc(decimal("2.7"), 5))', "2.7"),
    ('string(decimals.floor(decimal("-2.1")))', "-3"),
    ('string(decimals.ceil(decimal("2.1")))', "3"),
    ('string(decimals.neg(decimal("2.10")))', "-2.10"),
    ('string(decimals.abs(decimal("-0.5")))', "0.5"),
    ('decimals.sign(decimal("-0.0001"))', -1),
    ('string(decimals.greatest(decimal("1.0"), decimal("1.5")))', "1.5"),
    ('string(decimals.least(decimal("1.0"), 2))', "1.0"),
    ('decimals.lt(decimal("1.9"), decimal(2)) && decimals.ge(decimal("2.0"), decimal(2))', True),
    ('decimals.eq(decimal("2.50"), decimal("2.5"))', True),
    ('string(decimal(b"\\xff\\x38", 2))', "-2.00"),
    ('string(decimal("-0.00"))', "0.00"),
    ('string(decimal(1.25))', "1.25"),
    ('double(decimal("0.5")) == 0.5', True),
])
def test_decimal_functions_compute_as_bigdecimal(expr: str, expected: Any) -> None:
    assert cel(expr) == expected


@pytest.mark.parametrize("expr", [
    'decimal("NaN")', 'decimal("1_000")', 'decimal(" 1")', 'decimal("1e-2147483648")', 'decimal(null)',
    'decimal(true)', 'decimal(b"\\x01")', 'decimals.div(decimal(1), decimal(0))', 'decimals.mod(decimal(1), 0)',
    'decimals.sqrt(decimal(-1))', 'decimals.round(decimal(1), 1u)', 'decimals.round(decimal(1), 1.0)',
    'decimals.round(decimal(1), 2147483648)', 'decimals.add(decimal("1e2000000000"), decimal(1))',
    'string(null)', 'string([1])', 'double(true)',
])
def test_decimal_misuse_is_a_rule_error(expr: str) -> None:
    with pytest.raises(RuleError):
        cel(expr)


def test_decimals_compare_as_numbers_in_eq_ne_and_in() -> None:
    assert cel('value == decimal("12.340")', value=Decimal("12.34")) is True
    assert cel('value != decimal("12.34")', value=Decimal("12.340")) is False
    assert cel('value in [decimal("1"), decimal("12.3400")]', value=Decimal("12.34")) is True
    assert cel('[value] == [decimal("12.340")]', value=Decimal("12.34")) is True
    assert cel('value == 12.34', value=Decimal("12.34")) is False  # a decimal never equals a double
    assert cel('1 == 1 && "a" in ["a"]') is True  # decimal-free comparisons are CEL's own


def test_an_avro_decimal_reaches_cel_as_a_decimal() -> None:
    assert cel('string(decimals.add(value, decimal("0.01")))', value=Decimal("0.1")) == "0.11"
    assert cel("value", value=Decimal("1.10")) == Decimal("1.10")


@pytest.mark.parametrize("expr, expected", [
    ("string(timestamp(1700000000))", "2023-11-14T22:13:20Z"),
    ("string(timestamp(1700000000123, 3))", "2023-11-14T22:13:20.123Z"),
    ("string(timestamp(1700000000123456, 6))", "2023-11-14T22:13:20.123456Z"),
    ("string(timestamp(-1500000001, 9))", "1969-12-31T23:59:58.499999Z"),
    ("string(timestamp(0, 0))", "1970-01-01T00:00:00Z"),
    ('string(timestamp("2023-11-14T22:13:20.5+01:00"))', "2023-11-14T21:13:20.500Z"),
    ("timestamp(1700000000) > timestamp(1699999999999, 3)", True),
])
def test_timestamp_takes_epochs_at_a_precision_and_renders_its_fraction(expr: str, expected: Any) -> None:
    assert cel(expr) == expected


@pytest.mark.parametrize("expr", ["timestamp(1, 2)", "timestamp(1u)", "timestamp(true)", "timestamp(1.5, 3)",
                                  "timestamp(null)", "timestamp(9223372036854775807, 3)"])
def test_timestamp_misuse_is_a_rule_error(expr: str) -> None:
    with pytest.raises(RuleError):
        cel(expr)


def test_timestamp_takes_zoned_datetimes_and_protobuf_timestamps_but_not_naive_ones() -> None:
    zoned = datetime.datetime(2024, 5, 6, 7, 8, 9, 10_000, tzinfo=datetime.timezone.utc)
    assert cel("string(timestamp(value))", value=zoned) == "2024-05-06T07:08:09.010Z"
    proto = Timestamp(seconds=1_700_000_000, nanos=123_456_789)
    assert cel("string(timestamp(value))", value=proto) == "2023-11-14T22:13:20.123456Z"
    with pytest.raises(RuleError, match="naive"):
        run("timestamp(value)", {"value": datetime.datetime(2024, 5, 6)})


PAYMENT = {"type": "record", "name": "Payment", "fields": [
    {"name": "id", "type": "string"},
    {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2},
     "confluent:tags": ["MONEY"]}]}
PAYMENT_RULES = (
    Rule("positive", "CONDITION", "WRITE", "CEL", expr='decimals.gt(message.amount, decimal("0"))'),
    Rule("fee", "TRANSFORM", "WRITE", "CEL_FIELD", ("MONEY",),
         expr='decimals.round(decimals.mul(value, decimal("1.015")), 2)'),
)


def test_a_decimal_field_rule_writes_the_bytes_confluent_writes(live_server: str) -> None:
    topic = f"pay-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    client = RegistryClient(live_server)
    client.register(subject, Schema(json.dumps(PAYMENT), rule_set=RuleSet(domain_rules=PAYMENT_RULES)))
    ours = AvroSerializer(client, subject=subject, writer=UseLatest())
    theirs = serializer("AVRO", live_server)
    record = {"id": "p1", "amount": Decimal("200.00")}
    data = ours(dict(record))
    assert data == theirs(dict(record), context(topic))
    assert AvroDeserializer(client, subject=subject)(data)["amount"] == Decimal("203.00")
    with pytest.raises(RuleFailed):
        ours({"id": "p2", "amount": Decimal("-1.00")})


@pytest.mark.parametrize("expr, expected", [
    ('"%s owes %.2f".format(["ann", 12.345])', "ann owes 12.35"),
    ('"%d%% %x %X %o %b".format([50, 255, "hi", 8, 5])', "50% ff 6869 10 101"),
    ('"%e|%.1e".format([1234.5, 0.25])', "1.234500e+03|2.5e-01"),
    ('"%s".format([["a\\n", 1u, b"\\x01"]])', '["a\\n", 1, 01]'),
    ('"%.3f".format([7])', "7"),  # an int under %f is written as it is, as Confluent's executor does
    ('"%s".format([value])', "1.50"),
])
def test_format_writes_printf_style_as_confluents_executor(expr: str, expected: str) -> None:
    assert cel(expr, value=Decimal("1.50")) == expected


@pytest.mark.parametrize("expr", ['"%d".format([])', '"%d".format([1, 2])', '"%q".format([1])', '"%".format([1])',
                                  '"%d".format(["x"])', '"%s".format(1)'])
def test_format_misuse_is_a_rule_error(expr: str) -> None:
    with pytest.raises(RuleError):
        cel(expr)


def payment_class(package: str) -> Any:
    """A Payment message with a confluent.type.Decimal `amount` and a google.protobuf.Timestamp
    `at`, in a pool of its own."""
    from confluent_kafka.schema_registry.confluent.type import decimal_pb2
    from google.protobuf import descriptor_pb2, descriptor_pool, timestamp_pb2
    from google.protobuf.message_factory import GetMessageClass

    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    pool.AddSerializedFile(decimal_pb2.DESCRIPTOR.serialized_pb)
    file = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto3",
                                              dependency=["google/protobuf/timestamp.proto",
                                                          "confluent/type/decimal.proto"])
    message = file.message_type.add(name="Payment")
    kinds = descriptor_pb2.FieldDescriptorProto
    message.field.add(name="id", number=1, type=kinds.TYPE_STRING, label=kinds.LABEL_OPTIONAL)
    message.field.add(name="amount", number=2, type=kinds.TYPE_MESSAGE, type_name=".confluent.type.Decimal",
                      label=kinds.LABEL_OPTIONAL)
    message.field.add(name="at", number=3, type=kinds.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp",
                      label=kinds.LABEL_OPTIONAL)
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName(f"{package}.Payment"))


def test_protobuf_decimals_and_timestamps_reach_cel_as_values_and_write_back_as_confluents(live_server: str) -> None:
    from confluent_kafka.schema_registry.confluent.type.decimal_utils import to_proto_decimal
    from confluent_rules import protobuf_serializer

    from app.client import ProtobufSerializer
    from app.client.records import PROTOBUF

    package = f"pay{uuid.uuid4().hex[:8]}"
    topic = f"paypb-{package}"
    proto = (f'syntax = "proto3";\npackage {package};\n\nimport "google/protobuf/timestamp.proto";\n'
             f'import "confluent/type/decimal.proto";\n\nmessage Payment {{\n  string id = 1;\n'
             f'  confluent.type.Decimal amount = 2;\n  google.protobuf.Timestamp at = 3;\n}}\n')
    rules = (Rule("recent", "CONDITION", "WRITE", "CEL",
                  expr='decimals.gt(message.amount, decimal(0)) && message.at > timestamp(1600000000)'),
             Rule("fee", "TRANSFORM", "WRITE", "CEL", expr=(
                 "{'id': message.id + '@' + string(message.at), "
                 "'amount': decimals.mul(message.amount, decimal(\"1.5\")), "
                 "'at': timestamp(1700000000123, 3)}")))
    client = RegistryClient(live_server)
    client.register(f"{topic}-value", Schema(proto, PROTOBUF, rule_set=RuleSet(domain_rules=rules)))
    payment = payment_class(package)
    record = payment(id="p1")
    record.amount.MergeFromString(to_proto_decimal(Decimal("2.50")).SerializeToString())
    record.at.FromDatetime(datetime.datetime(2024, 1, 2, 3, 4, 5, 600_000, tzinfo=datetime.timezone.utc))
    ours = ProtobufSerializer(client, payment, subject=f"{topic}-value", writer=UseLatest())(record)
    assert ours == protobuf_serializer(payment, live_server, {})(record, context(topic))
    written = payment.FromString(ours[6:])
    assert written.id == "p1@2024-01-02T03:04:05.600Z" and written.at.ToMilliseconds() == 1700000000123
    assert (written.amount.value, written.amount.scale) == (to_proto_decimal(Decimal("3.750")).value, 3)
