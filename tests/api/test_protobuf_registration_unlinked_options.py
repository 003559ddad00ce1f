"""A Protobuf schema that sets custom options nothing defines, as Confluent accepts it,
through the HTTP API on both databases: registered with its options in the stored text,
found again by that text, served serialized for Python's descriptor pool, checked for
compatibility, and imported by another schema."""
from __future__ import annotations

import base64

from google.protobuf import descriptor_pool
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from api_client import Api

SENT = ('syntax = "proto3";\npackage shop;\noption (team) = "orders";\n'
        'message Order {\n  option (msg_opt) = true;\n  int64 id = 1 [(pii) = false, deprecated = true];\n'
        '  oneof pay {\n    option (oneof_opt) = 1;\n    string card = 2;\n  }\n}\n'
        'enum Status {\n  NEW = 0 [(label) = "new"];\n}\n')
STORED = ('syntax = "proto3";\npackage shop;\n\noption (team) = "orders";\n\n'
          'message Order {\n  option (msg_opt) = true;\n\n  int64 id = 1 [deprecated = true, (pii) = false];\n'
          '  oneof pay {\n    option (oneof_opt) = 1;\n    string card = 2;\n  }\n}\n'
          'enum Status {\n  NEW = 0 [(label) = "new"];\n}\n')


def test_it_registers_and_the_stored_text_keeps_the_options(api: Api) -> None:
    registered = api.registered("orders-value", SENT, schemaType="PROTOBUF")
    assert api.get(f"/schemas/ids/{registered['id']}").json["schema"] == STORED
    found = api.post("/subjects/orders-value", {"schema": SENT, "schemaType": "PROTOBUF"})
    assert found.json["id"] == registered["id"]
    again = api.registered("orders-value", STORED, schemaType="PROTOBUF")
    assert again["id"] == registered["id"]


def test_the_serialized_form_loads_in_pythons_descriptor_pool(api: Api) -> None:
    registered = api.registered("orders-value", SENT, schemaType="PROTOBUF")
    serialized = api.get(f"/schemas/ids/{registered['id']}", format="serialized").json["schema"]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(FileDescriptorProto.FromString(base64.b64decode(serialized)))
    assert pool.FindMessageTypeByName("shop.Order").fields_by_name["id"].GetOptions().deprecated


def test_compatibility_is_checked_through_them(api: Api) -> None:
    api.registered("orders-value", SENT, schemaType="PROTOBUF")
    added = SENT.replace("  int64 id = 1", "  string note = 3 [(pii) = true];\n  int64 id = 1")
    reply = api.post("/compatibility/subjects/orders-value/versions/latest", {"schema": added, "schemaType": "PROTOBUF"})
    assert reply.json == {"is_compatible": True}
    changed = SENT.replace("int64 id = 1", "string id = 1")
    reply = api.post("/compatibility/subjects/orders-value/versions/latest", {"schema": changed, "schemaType": "PROTOBUF"})
    assert reply.json == {"is_compatible": False}


def test_another_schema_imports_it_by_reference(api: Api) -> None:
    api.registered("shop/order.proto", SENT, schemaType="PROTOBUF")
    importer = 'syntax = "proto3";\nimport "shop/order.proto";\nmessage Basket {\n  repeated shop.Order orders = 1;\n}\n'
    reference = {"name": "shop/order.proto", "subject": "shop/order.proto", "version": 1}
    assert "id" in api.registered("basket-value", importer, schemaType="PROTOBUF", references=[reference])


def test_a_syntax_error_is_still_refused_with_line_and_column(api: Api) -> None:
    before = api.snapshot()
    reply = api.register("orders-value", SENT.replace('(team) = "orders"', "(team) ="), schemaType="PROTOBUF")
    assert reply.status == 422 and reply.json["error_code"] == 42201
    assert "schema.proto:3:16: Expected option value." in reply.json["message"]
    assert api.snapshot() == before
