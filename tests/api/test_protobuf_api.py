"""`schemaType: "PROTOBUF"` through the HTTP API, on both databases: registration, lookup,
references resolving imports, `format=serialized`, normalization and protoc's refusals."""
from __future__ import annotations

import base64

import pytest
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from api_client import Api

CUSTOMER = 'syntax = "proto3";\npackage acme;\n\nmessage Customer {\n  string name = 1;\n}\n'
ORDER = (
    'syntax = "proto3";\npackage shop;\n\nimport "acme/customer.proto";\nimport "google/protobuf/timestamp.proto";\n\n'
    "message Order {\n  acme.Customer customer = 1;\n  google.protobuf.Timestamp placed = 2;\n\n"
    "  message Line {\n    string sku = 1;\n  }\n}\n"
)
CUSTOMER_REF = {"name": "acme/customer.proto", "subject": "acme/customer.proto", "version": 1}


def proto(api: Api, subject: str, schema: str, **fields) -> dict:
    return api.registered(subject, schema, schemaType="PROTOBUF", **fields)


@pytest.fixture
def order(api: Api) -> dict:
    proto(api, "acme/customer.proto", CUSTOMER)
    return proto(api, "orders-value", ORDER, references=[CUSTOMER_REF])


def test_schema_types_lists_protobuf(api: Api) -> None:
    assert "PROTOBUF" in api.get("/schemas/types").json


def test_registration_stores_the_canonical_text(api: Api) -> None:
    registered = proto(api, "s", 'syntax="proto3";message A{string a=1;}')
    body = api.get(f"/schemas/ids/{registered['id']}").json
    assert body["schemaType"] == "PROTOBUF"
    assert body["schema"] == 'syntax = "proto3";\n\nmessage A {\n  string a = 1;\n}\n'


def test_a_reference_resolves_the_import_and_is_kept(api: Api, order: dict) -> None:
    version = api.version("orders-value", 1).json
    assert version["references"] == [CUSTOMER_REF]
    assert version["schema"] == ORDER
    assert api.get("/subjects/acme%2Fcustomer.proto/versions/1/referencedby").json == [order["id"]]


def test_an_import_without_its_reference_is_42201_with_protocs_message(api: Api) -> None:
    reply = api.register("orders-value", ORDER, schemaType="PROTOBUF")
    assert reply.status == 422 and reply.error_code == 42201
    assert 'schema.proto:4:1: Import "acme/customer.proto" was not found or had errors.' in reply.json["message"]


def test_a_semantic_error_is_42201_with_line_and_column(api: Api) -> None:
    reply = api.register("s", 'syntax = "proto3";\nmessage A {\n  Unknown u = 1;\n}\n', schemaType="PROTOBUF")
    assert reply.error_code == 42201
    assert reply.json["message"] == 'Invalid schema of type PROTOBUF, details: schema.proto:3:3: "Unknown" is not defined.'


def test_format_serialized_serves_the_descriptor_confluent_kafka_loads(api: Api, order: dict) -> None:
    for path in (f"/schemas/ids/{order['id']}", "/subjects/orders-value/versions/1"):
        served = api.get(path, format="serialized").json["schema"]
        file = FileDescriptorProto.FromString(base64.b64decode(served))
        assert list(file.dependency) == ["acme/customer.proto", "google/protobuf/timestamp.proto"]
        assert [m.name for m in file.message_type] == ["Order"]
        assert file.message_type[0].field[0].type_name == ".acme.Customer"


def test_an_unknown_format_serves_the_canonical_text(api: Api, order: dict) -> None:
    assert api.get(f"/schemas/ids/{order['id']}", format="resolved").json["schema"] == ORDER


def test_a_base64_descriptor_registers_as_the_same_schema_as_its_text(api: Api, order: dict) -> None:
    served = api.get(f"/schemas/ids/{order['id']}", format="serialized").json["schema"]
    again = proto(api, "orders-value", served, references=[CUSTOMER_REF])
    assert (again["id"], again["version"]) == (order["id"], 1)


def test_lookup_finds_the_schema_from_differently_spelled_text(api: Api, order: dict) -> None:
    respelled = ORDER.replace("acme.Customer", ".acme.Customer").replace("\n\n", "\n// a comment\n")
    found = api.post("/subjects/orders-value", {"schema": respelled, "schemaType": "PROTOBUF", "references": [CUSTOMER_REF]})
    assert found.status == 200 and found.json["id"] == order["id"]


def test_normalize_makes_reordered_schemas_one(api: Api) -> None:
    first = proto(api, "n", 'syntax = "proto3";\nmessage A {\n  int32 b = 2;\n  int32 a = 1;\n}\n', params={"normalize": "true"})
    second = proto(api, "n", 'syntax = "proto3";\nmessage A {\n  int32 a = 1;\n  int32 b = 2;\n}\n', params={"normalize": "true"})
    assert first["id"] == second["id"]
    stored = api.get(f"/schemas/ids/{first['id']}").json["schema"]
    assert stored == 'syntax = "proto3";\n\nmessage A {\n  int32 a = 1;\n  int32 b = 2;\n}\n'


def test_well_known_imports_register_without_references(api: Api) -> None:
    text = (
        'syntax = "proto3";\nimport "google/type/money.proto";\nimport "confluent/type/decimal.proto";\n'
        "message Price {\n  google.type.Money money = 1;\n  confluent.type.Decimal exact = 2;\n}\n"
    )
    assert proto(api, "prices", text)["version"] == 1


def test_a_protobuf_schema_can_reference_a_schema_with_its_own_reference(api: Api, order: dict) -> None:
    text = 'syntax = "proto3";\nimport "shop/order.proto";\nmessage Batch {\n  repeated shop.Order orders = 1;\n}\n'
    ref = {"name": "shop/order.proto", "subject": "orders-value", "version": 1}
    batch = proto(api, "batches", text, references=[ref])
    assert api.version("batches", 1).json["references"] == [ref]
    served = FileDescriptorProto.FromString(base64.b64decode(api.get(f"/schemas/ids/{batch['id']}", format="serialized").json["schema"]))
    assert served.message_type[0].field[0].type_name == ".shop.Order"


def test_an_incompatible_change_is_409_naming_confluents_change_types(api: Api) -> None:
    proto(api, "c", 'syntax = "proto3";\nmessage A {\n  int32 a = 1;\n  Inner i = 2;\n  message Inner {\n    string s = 1;\n  }\n}\n')
    changed = 'syntax = "proto3";\nmessage A {\n  string a = 1;\n}\n'
    verbose = api.post("/compatibility/subjects/c/versions/latest", {"schema": changed, "schemaType": "PROTOBUF"}, verbose="true").json
    assert verbose["is_compatible"] is False
    assert verbose["messages"][:2] == [
        "{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path '#/A/1' "
        "in the new schema does not match its kind in the old schema\"}",
        "{errorType:\"MESSAGE_REMOVED\", description:\"The new schema is missing a MESSAGE type at path "
        "'#/A/Inner' in the old schema\"}",
    ]
    refused = api.register("c", changed, schemaType="PROTOBUF")
    assert refused.status == 409 and 'errorType:"FIELD_SCALAR_KIND_CHANGED"' in refused.json["message"]


def test_a_compatible_change_registers_as_version_2(api: Api) -> None:
    proto(api, "c", 'syntax = "proto3";\nmessage A {\n  int32 a = 1;\n}\n')
    added = proto(api, "c", 'syntax = "proto3";\nmessage A {\n  int32 a = 1;\n  string b = 2;\n}\n')
    assert added["version"] == 2


def test_a_reserved_field_name_in_the_first_message_is_refused_with_validate_fields(api: Api) -> None:
    api.set_config("r", compatibility="NONE", validateFields=True)
    metadata = {"properties": {"confluent:reserved": "secret"}}
    reply = api.register("r", 'syntax = "proto3";\nmessage A {\n  string secret = 1;\n}\n', schemaType="PROTOBUF", metadata=metadata)
    assert reply.error_code == 40901
    assert "The new schema has field that conflicts with the reserved field secret." in reply.json["message"]


def test_serialized_replies_load_into_a_descriptor_pool_as_the_python_deserializer_loads_them(
    api: Api, order: dict
) -> None:
    """confluent-kafka's deserializer builds a pool from the well-known files it bundles, each
    reference fetched with format=serialized and added under its reference name, then the
    schema itself under the name "default"; a message type from that pool must decode what
    the writer encoded."""
    from google.protobuf import descriptor_pool, message_factory, timestamp_pb2

    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    for ref in api.get(f"/schemas/ids/{order['id']}").json["references"]:
        served = api.version(ref["subject"], ref["version"], format="serialized").json["schema"]
        dep = FileDescriptorProto.FromString(base64.b64decode(served))
        dep.name = ref["name"]
        pool.Add(dep)
    own = FileDescriptorProto.FromString(base64.b64decode(api.get(f"/schemas/ids/{order['id']}", format="serialized").json["schema"]))
    own.name = "default"
    pool.Add(own)
    order_type = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Order"))
    sent = order_type()
    sent.customer.name = "Ada"
    sent.placed.seconds = 1_700_000_000
    received = order_type.FromString(sent.SerializeToString())
    assert (received.customer.name, received.placed.seconds) == ("Ada", 1_700_000_000)
    assert pool.FindMessageTypeByName("shop.Order.Line").full_name == "shop.Order.Line"
