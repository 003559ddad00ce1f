"""JSON Schema serializer and deserializer: round trips through the registry under gunicorn
(SQLite and PostgreSQL), `$ref`s to other registered subjects, validation errors, and the
requests the server sees (one per schema id).

Validation rules per draft are exercised through an `InMemoryResolver` holding real
schemas: what is under test there is the deserializer's choice of validator and its error,
not the transport.
"""
from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

import pytest
from support.client_samples import USER_V1
from support.json_samples import (
    ADDRESS,
    CUSTOMER,
    CUSTOMER_WITH_ADDRESS,
    EVENT_V1,
    EVENT_V2,
    EVENT_V3,
    ORDER,
    ORDER_RECORD,
    event_record,
)

from app.client import (
    CONFLUENT,
    SINGLE_OBJECT,
    InMemoryResolver,
    JsonDeserializer,
    JsonSerializer,
    LookupOnly,
    PinnedVersion,
    ReaderVersion,
    RecordInvalid,
    RegistryClient,
    Schema,
    SchemaReference,
    SerializationError,
    UseLatest,
    record_name,
    topic_record_name,
)


def json_schema(text: str | dict[str, Any], *references: SchemaReference) -> Schema:
    return Schema(text if isinstance(text, str) else json.dumps(text), "JSON", references)


class _Identity:
    """Enough of a writer for the Confluent header, which needs only the id."""

    def __init__(self, schema_id: int) -> None:
        self.schema_id = schema_id


def framed(schema_id: int, payload: Any) -> bytes:
    text = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return CONFLUENT.header(_Identity(schema_id)) + text


# ------------------------------------------------------------------ validation, per draft, no registry
DRAFT4 = "http://json-schema.org/draft-04/schema#"
DRAFT6 = "http://json-schema.org/draft-06/schema#"
DRAFT2019 = "https://json-schema.org/draft/2019-09/schema"
DRAFT2020 = "https://json-schema.org/draft/2020-12/schema"

# (case, writer schema, a record it accepts, a record it refuses, the rule broken, where in the record)
VALIDATION_CASES = [
    ("draft 7 by default: required", {"type": "object", "required": ["id"]}, {"id": 1}, {}, "required", "#"),
    ("draft 4: boolean exclusiveMaximum", {"$schema": DRAFT4, "maximum": 10, "exclusiveMaximum": True},
     9, 10, "maximum", "#"),
    ("draft 6: const", {"$schema": DRAFT6, "const": "x"}, "x", "y", "const", "#"),
    ("2019-09: $ref into $defs", {"$schema": DRAFT2019, "$defs": {"pos": {"type": "integer", "minimum": 0}},
                                  "properties": {"n": {"$ref": "#/$defs/pos"}}},
     {"n": 1}, {"n": -1}, "minimum", "#/n"),
    ("2020-12: prefixItems", {"$schema": DRAFT2020, "prefixItems": [{"type": "string"}, {"type": "integer"}]},
     ["a", 1], ["a", "b"], "type", "#/1"),
    ("recursive schema", {"type": "object", "properties": {"name": {"type": "string"},
                                                           "children": {"type": "array", "items": {"$ref": "#"}}}},
     {"name": "a", "children": [{"name": "b"}]}, {"children": [{"name": 5}]}, "type", "#/children/0/name"),
    ("closed content model", json.loads(CUSTOMER), {"id": 1}, {"id": 1, "extra": 0}, "additionalProperties", "#"),
    ("pointer escaping", {"properties": {"a/b~c": {"type": "integer"}}}, {"a/b~c": 1}, {"a/b~c": "x"}, "type",
     "#/a~1b~0c"),
]


@pytest.mark.parametrize("case, schema, good, bad, keyword, path", VALIDATION_CASES,
                         ids=[case[0] for case in VALIDATION_CASES])
def test_records_are_validated_by_the_draft_their_schema_names(case, schema, good, bad, keyword, path):
    source = InMemoryResolver([json_schema(schema)])
    deserialize = JsonDeserializer(source)
    assert deserialize(framed(1, good)) == good
    with pytest.raises(RecordInvalid) as caught:
        deserialize(framed(1, bad))
    assert (caught.value.keyword, caught.value.path) == (keyword, path)
    assert "writer JSON schema id 1" in str(caught.value)


def test_refs_reach_referenced_subjects_by_their_reference_names_transitively():
    source = InMemoryResolver()
    source.add(json_schema(ADDRESS), subject="address")
    source.add(json_schema(CUSTOMER_WITH_ADDRESS, SchemaReference("address.json", "address", 1)), subject="customer")
    order = source.add(json_schema(ORDER, SchemaReference("customer.json", "customer", 1)))
    deserialize = JsonDeserializer(source)
    good = {"buyer": {"id": 3, "address": {"city": "Lyon", "zip": "69001"}}, "total": 1}
    assert deserialize(framed(order.schema_id, good)) == good
    with pytest.raises(RecordInvalid) as caught:  # address.json is only in customer's references
        deserialize(framed(order.schema_id, {"buyer": {"id": 3, "address": {"city": "Lyon", "zip": "x"}}, "total": 1}))
    assert (caught.value.path, caught.value.keyword) == ("#/buyer/address/zip", "pattern")


def test_the_reader_schema_validates_instead_of_the_writers():
    source = InMemoryResolver([json_schema({"type": "object"})])
    deserialize = JsonDeserializer(source, reader={"type": "object", "required": ["id"]})
    assert deserialize(framed(1, {"id": 2, "more": True})) == {"id": 2, "more": True}
    with pytest.raises(RecordInvalid, match="the reader's JSON schema: 'id' is a required property at #"):
        deserialize(framed(1, {"name": "no id"}))


def test_validate_false_reads_whatever_json_the_payload_holds():
    source = InMemoryResolver([json_schema(CUSTOMER)])
    assert JsonDeserializer(source, validate=False)(framed(1, {"id": "not a number"})) == {"id": "not a number"}
    with pytest.raises(RecordInvalid, match="'not a number' is not of type 'integer' at #/id"):
        JsonDeserializer(source)(framed(1, {"id": "not a number"}))


def test_several_violations_report_the_most_relevant_one_and_count_the_others():
    source = InMemoryResolver([json_schema(CUSTOMER)])
    with pytest.raises(RecordInvalid, match=r"'yes' is not of type 'boolean' at #/vip \(rule type at "
                                            r"#/properties/vip/type; 1 more\)"):
        JsonDeserializer(source)(framed(1, {"id": 0, "vip": "yes"}))


@pytest.mark.parametrize("payload, message", [
    (b'{"id": 1', "cannot decode 13 bytes as JSON"),
    (b'{"id": "\xff"}', "cannot decode 16 bytes as JSON"),
])
def test_bytes_that_are_not_json_are_a_serialization_error(payload, message):
    source = InMemoryResolver([json_schema(CUSTOMER)])
    with pytest.raises(SerializationError, match=message):
        JsonDeserializer(source)(framed(1, payload))


def test_a_record_written_with_an_avro_schema_is_refused():
    source = InMemoryResolver([Schema(USER_V1)])
    with pytest.raises(SerializationError, match="schema id 1 is AVRO, not JSON"):
        JsonDeserializer(source, validate=False)(framed(1, {"name": "ada"}))


def test_a_schema_that_breaks_its_metaschema_is_reported_with_its_location():
    source = InMemoryResolver([json_schema({"properties": {"id": {"type": "integer", "minimum": "zero"}}})])
    with pytest.raises(SerializationError, match=r"not a valid Draft7 JSON schema: .* at #/properties/id/minimum"):
        JsonDeserializer(source)(framed(1, {"id": 1}))


def test_a_ref_to_an_undeclared_reference_is_an_error_not_a_pass():
    source = InMemoryResolver([json_schema({"properties": {"buyer": {"$ref": "customer.json"}}})])
    with pytest.raises(SerializationError, match="resolves to nothing"):
        JsonDeserializer(source)(framed(1, {"buyer": {"id": 1}}))


def test_circular_references_between_subjects_are_refused():
    source = InMemoryResolver()
    source.add(json_schema({"$ref": "b.json"}, SchemaReference("b.json", "b", 1)), subject="a")
    source.add(json_schema({"$ref": "a.json"}, SchemaReference("a.json", "a", 1)), subject="b")
    with pytest.raises(SerializationError, match="circular schema references"):
        JsonDeserializer(source, reader=ReaderVersion("a", 1))


def test_the_single_object_encoding_is_refused_for_json():
    with pytest.raises(ValueError, match="single-object"):
        JsonDeserializer(InMemoryResolver(), framing=SINGLE_OBJECT)


# ------------------------------------------------------------------ through the registry under gunicorn
def test_records_round_trip_as_compact_json_behind_the_confluent_header(ours, unique_subject):
    subject = unique_subject()
    serialize = JsonSerializer(ours, EVENT_V3, subject=subject)
    records = [event_record(3, i) for i in range(20)]
    data = [serialize(record) for record in records]
    schema_id = serialize.writer.schema_id
    assert data[1] == b"\x00" + schema_id.to_bytes(4, "big") + b'{"name":"event-1","count":1,"tags":["t1","\xc3\xbc"]}'
    consumer = RegistryClient(ours.urls)
    assert consumer.get_schema(schema_id).schema_type == "JSON"
    assert [JsonDeserializer(consumer)(item) for item in data] == records


def test_a_schema_referencing_another_subject_validates_through_the_reference(ours, unique_subject):
    customer_subject = unique_subject("customer")
    ours.register(customer_subject, json_schema(CUSTOMER))
    order = json_schema(ORDER, SchemaReference("customer.json", customer_subject, 1))
    serialize = JsonSerializer(ours, order, subject=unique_subject())
    data = serialize(ORDER_RECORD)
    assert JsonDeserializer(RegistryClient(ours.urls))(data) == ORDER_RECORD
    with pytest.raises(RecordInvalid) as caught:
        serialize({"buyer": {"id": 0}, "total": 1})
    assert (caught.value.path, caught.value.keyword) == ("#/buyer/id", "minimum")
    assert f"JSON schema id {serialize.writer.schema_id} of {serialize.subject}" in str(caught.value)


def test_transitive_references_resolve_through_the_registry(ours, unique_subject):
    address, customer = unique_subject("address"), unique_subject("customer")
    ours.register(address, json_schema(ADDRESS))
    ours.register(customer, json_schema(CUSTOMER_WITH_ADDRESS, SchemaReference("address.json", address, 1)))
    serialize = JsonSerializer(ours, json_schema(ORDER, SchemaReference("customer.json", customer, 1)),
                               subject=unique_subject())
    record = {"buyer": {"id": 5, "address": {"city": "Gent"}}, "total": 0}
    assert JsonDeserializer(RegistryClient(ours.urls))(serialize(record)) == record
    with pytest.raises(RecordInvalid, match="at #/buyer/address/city"):
        serialize({"buyer": {"id": 5, "address": {"city": ""}}, "total": 0})


@pytest.mark.parametrize("bad, keyword, path", [
    ({"name": 7}, "type", "#/name"),
    ({"count": 1}, "required", "#"),
    ({"name": "x", "tags": ["a", 2]}, "type", "#/tags/1"),
])
def test_a_record_breaking_the_writer_schema_is_refused_before_it_is_written(ours, unique_subject, bad, keyword, path):
    serialize = JsonSerializer(ours, EVENT_V3, subject=unique_subject())
    with pytest.raises(RecordInvalid) as caught:
        serialize(bad)
    assert (caught.value.keyword, caught.value.path) == (keyword, path)


def test_without_validation_any_json_is_written_and_only_a_validating_reader_objects(ours, unique_subject):
    data = JsonSerializer(ours, EVENT_V1, subject=unique_subject(), validate=False)({"name": 7})
    consumer = RegistryClient(ours.urls)
    assert JsonDeserializer(consumer, validate=False)(data) == {"name": 7}
    with pytest.raises(RecordInvalid, match="7 is not of type 'string' at #/name"):
        JsonDeserializer(consumer)(data)


@pytest.mark.parametrize("record, message", [
    ({"name": "x", "count": math.nan}, "cannot be written as JSON"),
    ({"name": "x", "tags": {"a"}}, "cannot be written as JSON"),
])
def test_values_json_cannot_hold_are_a_serialization_error(ours, unique_subject, record, message):
    with pytest.raises(SerializationError, match=message):
        JsonSerializer(ours, EVENT_V3, subject=unique_subject(), validate=False)(record)


def test_writer_choices_and_record_naming(ours, unique_subject):
    topic = unique_subject("t")
    v1 = JsonSerializer(ours, EVENT_V1, topic=topic, subject_name_strategy=topic_record_name)
    assert v1.subject == f"{topic}-Event"
    first = v1({"name": "a"})
    ours.register(v1.subject, json_schema(EVENT_V2))
    assert JsonSerializer(ours, EVENT_V1, subject=v1.subject, writer=LookupOnly())({"name": "a"}) == first
    assert JsonSerializer(ours, subject=v1.subject, writer=PinnedVersion(1))({"name": "a"}) == first
    latest = JsonSerializer(ours, subject=v1.subject, writer=UseLatest())
    assert latest.writer.version == 2 and latest({"name": "a", "count": 1})[:5] != first[:5]
    assert JsonSerializer(ours, EVENT_V1, topic=topic, subject_name_strategy=record_name).subject == "Event"


def test_a_reader_version_holds_records_of_newer_writers_to_its_own_rules(ours, unique_subject):
    subject = unique_subject()
    old = JsonSerializer(ours, EVENT_V1, subject=subject)({"name": "a"})
    new = JsonSerializer(ours, EVENT_V2, subject=subject)
    reader_v1 = JsonDeserializer(RegistryClient(ours.urls), reader=ReaderVersion(subject, 1))
    assert reader_v1(old) == {"name": "a"}
    assert reader_v1(new({"name": "b"})) == {"name": "b"}
    with pytest.raises(RecordInvalid, match="the reader's JSON schema: Additional properties are not allowed"):
        reader_v1(new({"name": "c", "count": 3}))  # v1 is closed: it has no `count`
    assert JsonDeserializer(ours, reader=ReaderVersion(subject))(new({"name": "c", "count": 3}))["count"] == 3


def test_using_the_latest_version_of_an_avro_subject_is_refused(ours, unique_subject):
    subject = unique_subject()
    ours.register(subject, USER_V1)
    with pytest.raises(SerializationError, match="is AVRO, not JSON"):
        JsonSerializer(ours, subject=subject, writer=UseLatest())({"name": "ada"})


# ------------------------------------------------------------------ what the server sees
RECORDS = 20_000


def test_records_of_several_schemas_cost_one_request_per_schema_id(counting_registry):
    producer = RegistryClient(counting_registry.url)
    producer.register("customers", json_schema(CUSTOMER))
    order = json_schema(ORDER, SchemaReference("customer.json", "customers", 1))
    serializers = [JsonSerializer(producer, text, subject="events-value") for text in (EVENT_V1, EVENT_V2, EVENT_V3)]
    serializers.append(JsonSerializer(producer, order, subject="orders-value"))
    records = [[event_record(n, i) for i in range(100)] for n in (1, 2, 3)] + [[ORDER_RECORD] * 100]
    counting_registry.middleware.reset()

    consumer = RegistryClient(counting_registry.url)
    deserialize = JsonDeserializer(consumer)
    for i in range(RECORDS):
        which = i % 4
        assert deserialize(serializers[which](records[which][i % 100])) == records[which][i % 100]

    seen = Counter(counting_registry.requests)
    ids = {serializer.writer.schema_id for serializer in serializers}
    assert len(ids) == 4
    registrations = [target for (method, target), n in seen.items() for _ in range(n) if method == "POST"]
    assert sorted(registrations) == sorted(["/subjects/events-value/versions?normalize=false"] * 3
                                           + ["/subjects/orders-value/versions?normalize=false"])
    assert {target: n for (_, target), n in seen.items() if target.startswith("/schemas/ids/")} == {
        f"/schemas/ids/{schema_id}": 1 for schema_id in ids}
    # The order's reference: once for the producer's validator, once for the consumer's.
    assert seen[("GET", "/subjects/customers/versions/1")] == 2
    assert sum(seen.values()) == 4 + 4 + 2
