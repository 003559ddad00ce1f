"""Confluent's CEL variant extension in our CEL executors: the cases of Confluent's Java tests
(CelValidatorVariantTest over a confluent.type.Variant message, VariantPathTest's paths) with
their expected results, typed extraction of every variant type, and an Avro record with a
variant field end to end through our serializer and deserializer against a live registry,
beside confluent-kafka's."""
from __future__ import annotations

import datetime
import json
import struct
import uuid
from decimal import Decimal
from typing import Any

import fastavro.read
import pytest
from confluent_kafka.schema_registry.confluent.type import variant_pb2
from confluent_rules import ConfluentCelFailed, confluent_cel, context, deserializer, serializer

from app.client import AvroDeserializer, AvroSerializer, RegistryClient, UseLatest
from app.client.errors import RuleFailed
from app.client.records import Rule, RuleSet, Schema
from app.client.rules.avro_walker import AvroWalker
from app.client.rules.cel_executor import run, to_cel
from app.client.rules.context import WRITE
from app.client.rules.execution import DOMAIN, RuleRunner
from app.client.rules.executors import RuleError
from app.client.rules.variant_codec import Variant, parse_json
from app.client.rules.variant_path import PathError, Step, parse_path

ERROR = "error"
EMPTY_METADATA = b"\x01\x00\x00"


def proto_variant(text: str) -> Any:
    parsed = parse_json(text)
    return variant_pb2.Variant(metadata=parsed.metadata, value=parsed.value)


def outcome(expr: str, **variables: Any) -> Any:
    try:
        return run(expr, {name: to_cel(value) for name, value in variables.items()})
    except RuleError:
        return ERROR


# CelValidatorVariantTest: (payload of the confluent.type.Variant field `this`, expression, result).
JAVA_CASES = [
    ('{"name":"alice"}', 'variants.as(variants.field(variant(this), "name"), "string") == "alice"', True),
    ('{"name":"bob"}', 'variants.as(variants.field(variant(this), "name"), "string") == "alice"', False),
    ('{"user":{"name":"alice","role":"admin"}}',
     'variants.as(variants.path(variant(this), "$.user.name"), "string") == "alice"', True),
    ('{"name":"alice"}', 'variants.field(variant(this), "missing") == null', True),
    ('{"name":"alice"}', '!variants.isNull(variants.field(variant(this), "missing"))', True),
    ('{"name":"alice"}', '!variants.isNull(variant(this))', True),
    ("null", "variants.isNull(variant(this))", True),
    ('{"explicit": null, "real": "hello"}',
     'variants.field(variant(this), "missing") == null'
     ' && !variants.isNull(variants.field(variant(this), "missing"))'
     ' && !(variants.field(variant(this), "explicit") == null)'
     ' && variants.isNull(variants.field(variant(this), "explicit"))'
     ' && !(variants.field(variant(this), "real") == null)'
     ' && !variants.isNull(variants.field(variant(this), "real"))', True),
    ('{"name":"alice"}',
     'variants.field(variants.field(variant(this), "missing"), "x") == null'
     ' && variants.path(variants.field(variant(this), "missing"), "$.x") == null'
     ' && variants.index(variants.field(variant(this), "missing"), 0) == null'
     ' && variants.tryAs(variants.field(variant(this), "missing"), "string") == null', True),
    ("42", 'variants.field(variant(this), "x") == null', True),
    ('"hello"', "variants.index(variant(this), 0) == null", True),
    ("[1, 2, 3]", "variants.index(variant(this), 4294967296) == null", True),
    ("[1, 2, 3]", "variants.index(variant(this), 99) == null", True),
    ('{"x":1}', 'variants.type(variant(this)) == "object"', True),
    ('{"count":42}', 'variants.as(variants.field(variant(this), "count"), "int") >= 0', True),
    ("42", 'variants.as(variants.path(variant(this), "$"), "int") == 42', True),
    ('{"name":"alice"}', 'variants.field("hello", "x") == null', ERROR),
    ('{"count":42}', 'variants.tryAs(variants.field(variant(this), "count"), "string") == null', True),
    ("{}", 'variants.tryParseJson("this is not json") == null', True),
    ("{}", 'variants.as(variants.tryParseJson("42"), "int") == 42', True),
    ("{}", 'variants.parseJson("not json") == null', ERROR),
    ('{"name":"alice"}', 'variants.as(variants.field(variant(this), "missing"), "string") == null', True),
    ('{"name":"alice"}', 'variants.toJson(variant(this)) == "{\\"name\\":\\"alice\\"}"', True),
    ('{"name":"alice"}',
     '(variants.field(variant(this), "missing") == null ? "absent"'
     ' : variants.toJson(variants.field(variant(this), "missing"))) == "absent"'
     ' && (variants.field(variant(this), "name") == null ? "absent"'
     ' : variants.toJson(variants.field(variant(this), "name"))) == "\\"alice\\""', True),
    ("{}", 'variant(variants.tryParseJson("not json")) == null', True),
    ("{}", 'variants.as(variants.field(variants.parseJson("{\\"name\\":\\"alice\\"}"), "name"), "string") == "alice"',
     True),
]


@pytest.mark.parametrize("payload, expr, expected", JAVA_CASES)
def test_confluents_java_cases_give_their_results(payload: str, expr: str, expected: Any) -> None:
    assert outcome(expr, this=proto_variant(payload)) == expected


# VariantPathTest: a path's steps, or the words of its error.
PATH_CASES = [
    ("$", ()), ("$.foo", (Step("foo"),)), ("$.foo.bar.baz", (Step("foo"), Step("bar"), Step("baz"))),
    ("$[3]", (Step(None, 3),)), ("$.items[0].name", (Step("items"), Step(None, 0), Step("name"))),
    ('$["foo bar"]', (Step("foo bar"),)), ("$['foo bar']", (Step("foo bar"),)),
    ("$.foo_bar.x_123", (Step("foo_bar"), Step("x_123"))), ('$["123abc"]', (Step("123abc"),)),
    ('$["a\\"b"]', (Step('a"b'),)), ('$["a\\\\b"]', (Step("a\\b"),)), ('$["café"]', (Step("café"),)),
    ("$[-1]", "negative"), ("", "must start with '$'"), (".foo", "$"), ("$.", "expected identifier"),
    ("$[0", "expected ']'"), ("$[", "unexpected end of input"), ('$["foo', "unterminated quoted key"),
    ("$[]", "expected integer index"), ("$+foo", "unexpected character"), ("$.123abc", "expected identifier"),
    ('$["foo\\', "unterminated escape"), ('$["a\\nb"]', "unsupported escape"),
    ('$["caf\\u00e9"]', "unsupported escape"),
    ("$[2147483648]", "index out of int range"), ("$[" + "9" * 5000 + "]", "index out of int range"),
]


@pytest.mark.parametrize("path, expected", PATH_CASES)
def test_paths_parse_as_confluents_path_subset(path: str, expected: Any) -> None:
    if isinstance(expected, str):
        with pytest.raises(PathError, match=expected.replace("$", r"\$").replace("[", r"\[")):
            parse_path(path)
    else:
        assert parse_path(path) == expected


def test_a_malformed_path_fails_the_rule_and_a_path_that_misses_is_null() -> None:
    doc = parse_json('{"a": [{"b c": 1}], "n": null}')
    assert outcome('variants.as(variants.path(v, "$.a[0][\'b c\']"), "int")', v=doc) == 1
    assert outcome('variants.path(v, "$.a[1]") == null && variants.path(v, "$.a.b") == null', v=doc) is True
    assert outcome('variants.isNull(variants.path(v, "$.n"))', v=doc) is True
    assert outcome('variants.path(v, "$.a[-1]") == null', v=doc) == ERROR
    assert outcome('variants.tryAs(variants.path(v, "a"), "int") == null', v=doc) == ERROR


def scalar(header: int, payload: bytes) -> Variant:
    return Variant(bytes([header]) + payload, EMPTY_METADATA)


@pytest.mark.parametrize("variant, label, extracted", [
    (scalar(14 << 2, struct.pack("<f", 1.5)), "double", 1.5),
    (scalar(8 << 2, b"\x02" + struct.pack("<i", 1234)), "decimal", Decimal("12.34")),
    (scalar(12 << 2, struct.pack("<q", 1_700_000_000_123_456)), "timestamp",
     datetime.datetime(2023, 11, 14, 22, 13, 20, 123_456, tzinfo=datetime.timezone.utc)),
    (scalar(18 << 2, struct.pack("<q", -1)), "timestamp",  # nanos floor to micros, as Java floors
     datetime.datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=datetime.timezone.utc)),
    (scalar(15 << 2, struct.pack("<I", 2) + b"\x00\xff"), "bytes", b"\x00\xff"),
    (parse_json("true"), "boolean", True), (parse_json("70000"), "int", 70000), (parse_json('"x"'), "string", "x"),
])
def test_as_extracts_each_type_and_type_names_its_label(variant: Variant, label: str, extracted: Any) -> None:
    assert outcome(f'variants.as(v, "{label}")', v=variant) == extracted
    assert outcome("variants.type(v)", v=variant) == label
    other = "string" if label != "string" else "int"
    assert outcome(f'variants.tryAs(v, "{other}") == null', v=variant) is True
    assert outcome(f'variants.as(v, "{other}")', v=variant) == ERROR


@pytest.mark.parametrize("variant, label", [
    (scalar(11 << 2, struct.pack("<i", 1)), "date"), (scalar(17 << 2, struct.pack("<q", 1)), "time"),
    (scalar(20 << 2, uuid.UUID(int=7).bytes), "uuid"), (parse_json("null"), "null"), (parse_json("[]"), "array"),
])
def test_types_without_a_cel_value_are_named_but_never_extracted(variant: Variant, label: str) -> None:
    assert outcome("variants.type(v)", v=variant) == label
    assert outcome(f'variants.as(v, "{label}")', v=variant) == ERROR
    assert outcome(f'variants.tryAs(v, "{label}")', v=variant) == ERROR


def test_a_timestamp_outside_cels_range_fails_as_and_is_null_for_try_as() -> None:
    far = scalar(12 << 2, struct.pack("<q", 2**62))
    assert outcome('variants.as(v, "timestamp")', v=far) == ERROR
    assert outcome('variants.tryAs(v, "timestamp") == null', v=far) is True


@pytest.mark.parametrize("expr, expected", [
    ('variant(b"\\x0c\\x05", b"\\x01\\x00\\x00") == variants.parseJson("5")', True),
    ("variants.type(variant(b'\\x00', b'\\x01\\x00\\x00'))", "null"),
    ('variant(null) == null && variants.type(null) == null && variants.toJson(null) == null', True),
    ("!variants.isNull(null) && !variants.isNull(1)", True),
    ("variants.as(variant({'metadata': b'\\x01\\x00\\x00', 'value': b'\\x05\\x78'}), 'string')", "x"),
    ('variant("{}")', ERROR), ("variant(1)", ERROR), ("variant({'value': b'\\x00'})", ERROR),
    ('variant(b"", b"")', ERROR), ('variant(b"\\x00", b"\\x02\\x00\\x00")', ERROR),
    ('variants.toJson(variant(b"\\x02\\x05\\x00", b"\\x01\\x00\\x00"))', ERROR),
    ("variants.parseJson(1)", ERROR), ("variants.tryParseJson(1)", ERROR),
    ('variants.index(variants.parseJson("[]"), 0u)', ERROR),
    ('variants.field(variants.parseJson("{}"), 1)', ERROR), ('variants.as(variants.parseJson("1"), 1)', ERROR),
])
def test_constructor_null_handling_and_misuse(expr: str, expected: Any) -> None:
    assert outcome(expr) == expected


def test_variant_functions_work_inside_macros() -> None:
    """(confluent-kafka 2.16's executor cannot call them there: `undeclared reference to 'isNull'`)."""
    items = [parse_json("null"), parse_json('{"a": null}')]
    assert outcome('items.all(v, variants.isNull(v) || variants.isNull(variants.field(v, "a")))', items=items) is True
    assert outcome('items.exists(v, variants.type(v) == "object")', items=items) is True
    assert outcome('items.map(v, variants.toJson(v))', items=items) == ["null", '{"a":null}']


def test_an_empty_variant_message_is_null_and_a_cel_transform_writes_a_variant_back() -> None:
    assert outcome("this == null", this=variant_pb2.Variant()) is True
    written = run('variants.path(variants.parseJson("{\\"a\\":{\\"b\\":[true]}}"), "$.a")', {})
    assert Variant(written["value"], written["metadata"]).to_json() == '{"b":[true]}'


DOC = {"type": "record", "name": "Doc", "namespace": "test", "fields": [
    {"name": "id", "type": "string"},
    {"name": "payload", "type": {"type": "record", "name": "VariantRecord", "logicalType": "variant", "fields": [
        {"name": "metadata", "type": "bytes"}, {"name": "value", "type": "bytes"}]}},
    {"name": "history", "type": {"type": "array", "items": ["null", "test.VariantRecord"]}, "default": []},
]}
DOC_RULES = (
    Rule("adult", "CONDITION", "WRITEREAD", "CEL",
         expr='variants.as(variants.path(message.payload, "$.user.age"), "int") >= 18'
              ' && variants.type(variants.field(message.payload, "user")) == "object"'),
    Rule("history-recorded", "CONDITION", "WRITE", "CEL",
         expr='message.history.size() == 0'
              ' || variants.isNull(variants.field(message.history[message.history.size() - 1], "gone"))'),
    Rule("variant-of-map", "CONDITION", "WRITE", "CEL",
         expr='variants.toJson(variant(message.payload)) == variants.toJson(message.payload)'),
)


def doc(json_text: str, *history: str | None) -> dict[str, Any]:
    def record(text: str) -> dict[str, bytes]:
        parsed = parse_json(text)
        return {"metadata": parsed.metadata, "value": parsed.value}
    return {"id": "d1", "payload": record(json_text),
            "history": [None if item is None else record(item) for item in history]}


def test_cel_conditions_over_an_avro_variant_field_run_end_to_end(live_server: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    topic = f"variant-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    client = RegistryClient(live_server)
    client.register(subject, Schema(json.dumps(DOC), rule_set=RuleSet(domain_rules=DOC_RULES)))
    ours = AvroSerializer(client, subject=subject, writer=UseLatest())
    record = doc('{"user": {"name": "ann", "age": 31}}', None, '{"gone": null}')
    data = ours(record)
    assert data == serializer("AVRO", live_server)(dict(record), context(topic))  # confluent-kafka agrees
    for refused in (doc('{"user": {"age": 17}}'), doc('{"user": {"age": "31"}}'), doc('{"user": 5}'),
                    doc('{"user": {"age": 31}}', '{"gone": 1}')):
        with pytest.raises(RuleFailed):
            ours(refused)
    # READ: the field comes out of fastavro as the {metadata, value} record, or as confluent-kafka's
    # Variant where its fastavro hook for the logical type is installed (it is, once imported).
    read = AvroDeserializer(client, subject=subject)(data)
    assert Variant(bytes(read["payload"].standalone_value_bytes()), read["payload"].metadata) == parse_json(
        '{"user": {"name": "ann", "age": 31}}')
    assert deserializer("AVRO", live_server)(data, context(topic))["id"] == "d1"
    monkeypatch.delitem(fastavro.read.LOGICAL_READERS, "record-variant")
    assert AvroDeserializer(client, subject=subject)(data)["payload"] == record["payload"]


def run_rule(rule: Rule, record: dict[str, Any], schema: dict[str, Any] = DOC) -> Any:
    target = Schema(json.dumps(schema), rule_set=RuleSet(domain_rules=(rule,)))
    return RuleRunner().run(WRITE, DOMAIN, "docs-value", 1, None, target, record, AvroWalker(schema))


def test_an_avro_variant_field_is_a_variant_in_cel_and_a_transform_writes_one_back() -> None:
    record = doc('{"user": {"name": "ann", "age": 31}}', None, '{"gone": null}')
    same = Rule("same", "CONDITION", "WRITE", "CEL", expr=(
        'message.payload == variants.parseJson("{\\"user\\": {\\"name\\": \\"ann\\", \\"age\\": 31}}")'
        ' && message.history[0] == null && variants.isNull(variants.field(message.history[1], "gone"))'))
    assert run_rule(same, record) is record
    narrowed = run_rule(Rule("narrow", "TRANSFORM", "WRITE", "CEL", expr=(
        "{'id': message.id, 'payload': variants.path(message.payload, '$.user'), 'history': message.history}")), record)
    assert Variant(narrowed["payload"]["value"], narrowed["payload"]["metadata"]).to_json() == '{"age":31,"name":"ann"}'
    assert narrowed["history"] == record["history"]
    assert record == doc('{"user": {"name": "ann", "age": 31}}', None, '{"gone": null}')  # the producer's, unchanged


def test_a_record_of_two_bytes_fields_without_the_logical_type_stays_a_map() -> None:
    plain = json.loads(json.dumps(DOC).replace('"logicalType": "variant", ', ""))
    record = doc("1")
    assert AvroWalker(plain).with_variants(record) is record
    assert isinstance(AvroWalker(DOC).with_variants(record)["payload"], Variant)
    as_map = Rule("map", "CONDITION", "WRITE", "CEL", expr="size(message.payload) == 2")
    assert run_rule(as_map, record, plain) is record


def theirs(expr: str, variables: dict[str, Any]) -> Any:
    """confluent-kafka 2.16's CEL executor over the same expression and variables."""
    try:
        return comparable(confluent_cel(expr, variables))
    except ConfluentCelFailed:
        return ERROR


def comparable(value: Any) -> Any:
    """Results as comparable values: a variant (ours as the record it writes, theirs as their
    object) as its JSON, a CEL value as its plain Python type and value."""
    if isinstance(value, dict) and set(value) == {"metadata", "value"}:
        return ("variant", Variant(value["value"], value["metadata"]).to_json())
    if callable(getattr(value, "standalone_value_bytes", None)):
        return ("variant", Variant(value.standalone_value_bytes(), value.metadata).to_json())
    if isinstance(value, datetime.datetime):
        return ("timestamp", value.isoformat())
    for plain in (bool, int, float, str, bytes, Decimal):
        if isinstance(value, plain):
            return (plain.__name__, plain(value))
    return (type(value).__name__, value)


def test_random_variant_expressions_agree_with_confluents_executor() -> None:
    """Random payloads parse to the same bytes in both codecs, and random chains of variants.*
    calls over them give the same result in our executor and confluent-kafka 2.16's, or an
    error in both."""
    from confluent_kafka.schema_registry.confluent.type import variant_utils
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    keys = st.sampled_from(["a", "b", "name", "missing", "é k"])
    # Doubles and strings where both print alike: confluent-kafka prints 1e7 as 10000000.0, 1e-4
    # as 0.0001 and U+001F as \u001f, where Java's Jackson (and we) print 1.0E7, 1.0E-4 and \u001F.
    doubles = st.floats(-1e6, 1e6).filter(lambda number: number == 0 or abs(number) >= 1e-3)
    texts = st.text(st.characters(min_codepoint=0x20, exclude_categories=("Cs",)), max_size=5)
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), doubles, texts)
    payloads = st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                            st.dictionaries(keys, inner, max_size=4)), max_leaves=12)
    paths = st.sampled_from(["$", "$.a", "$.a[0]", "$['é k']", "$.name.a", "$[1].b", "$[-1]", "a", "$..a", "$[0"])
    labels = st.sampled_from(["string", "int", "double", "boolean", "decimal", "timestamp", "bytes", "object",
                              "null", "nope"])
    step = st.one_of(
        st.builds(lambda key: f'variants.field({{}}, "{key}")', keys),
        st.builds(lambda index: f"variants.index({{}}, {index})", st.sampled_from(["0", "1", "5", "-1", "1u"])),
        st.builds(lambda path: f'variants.path({{}}, "{path}")', paths))
    end = st.sampled_from(["variants.type({})", "variants.toJson({})", "variants.isNull({})", "{} == null",
                           'variants.as({}, "{label}")', 'variants.tryAs({}, "{label}")', "{}", "variant({})"])

    results: list[Any] = []

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(payloads, st.lists(step, max_size=3), end, labels)
    def same(payload: Any, steps: list[str], last: str, label: str) -> None:
        text = json.dumps(payload)
        ours_parsed, their_parsed = parse_json(text), variant_utils.parse_json(text)
        assert (ours_parsed.value, ours_parsed.metadata) == (their_parsed.value, their_parsed.metadata)
        expr = "v"
        for template in steps:
            expr = template.format(expr)
        expr = last.replace("{label}", label).format(expr)
        result = outcome(expr, v=ours_parsed)
        assert (ERROR if result == ERROR else comparable(result)) == theirs(expr, {"v": their_parsed}), expr
        results.append(result)

    same()
    assert sum(result != ERROR for result in results) > len(results) // 2  # values were compared, not only errors


def event_class(package: str) -> Any:
    """An Event message with a confluent.type.Variant `payload`, in a pool of its own."""
    from google.protobuf import descriptor_pb2, descriptor_pool
    from google.protobuf.message_factory import GetMessageClass

    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(variant_pb2.DESCRIPTOR.serialized_pb)
    file = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto3",
                                              dependency=["confluent/type/variant.proto"])
    message = file.message_type.add(name="Event")
    kinds = descriptor_pb2.FieldDescriptorProto
    message.field.add(name="id", number=1, type=kinds.TYPE_STRING, label=kinds.LABEL_OPTIONAL)
    message.field.add(name="payload", number=2, type=kinds.TYPE_MESSAGE, type_name=".confluent.type.Variant",
                      label=kinds.LABEL_OPTIONAL)
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName(f"{package}.Event"))


def test_a_protobuf_variant_field_reaches_cel_as_a_variant_and_a_transform_writes_one_back(live_server: str) -> None:
    from confluent_rules import protobuf_serializer

    from app.client import ProtobufSerializer
    from app.client.records import PROTOBUF

    package = f"ev{uuid.uuid4().hex[:8]}"
    topic = f"evpb-{package}"
    proto = (f'syntax = "proto3";\npackage {package};\n\nimport "confluent/type/variant.proto";\n\n'
             f'message Event {{\n  string id = 1;\n  confluent.type.Variant payload = 2;\n}}\n')
    rules = (Rule("typed", "CONDITION", "WRITE", "CEL",
                  expr='variants.as(variants.path(message.payload, "$.kind"), "string") == "click"'),
             Rule("narrow", "TRANSFORM", "WRITE", "CEL",
                  expr="{'id': message.id, 'payload': variants.path(message.payload, '$.at')}"))
    client = RegistryClient(live_server)
    client.register(f"{topic}-value", Schema(proto, PROTOBUF, rule_set=RuleSet(domain_rules=rules)))
    event = event_class(package)
    parsed = parse_json('{"kind": "click", "at": [1, 2]}')
    record = event(id="e1", payload={"metadata": parsed.metadata, "value": parsed.value})
    serialize = ProtobufSerializer(client, event, subject=f"{topic}-value", writer=UseLatest())
    ours = serialize(record)
    assert ours == protobuf_serializer(event, live_server, {})(record, context(topic))
    written = event.FromString(ours[6:]).payload
    assert Variant(written.value, written.metadata).to_json() == "[1,2]"
    refused = parse_json('{"kind": 7}')
    with pytest.raises(RuleFailed):
        serialize(event(id="e2", payload={"metadata": refused.metadata, "value": refused.value}))
