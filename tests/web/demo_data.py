"""A small registry to look at: the fixture of the UI route tests, the browser tests and the
screenshots (`python -m tests.web.screenshots`). Loaded through `RegistryService`, as a
client's registrations would be."""
from __future__ import annotations

import json
from typing import Any

from app.core.registry import RegistryService
from app.core.types import SchemaRequest

ORDER_V1 = {
    "type": "record", "name": "Order", "namespace": "com.acme",
    "fields": [
        {"name": "id", "type": "long", "doc": "Order number"},
        {"name": "amount", "type": "int", "doc": "Total in cents"},
    ],
}
ORDER_V2 = {
    **ORDER_V1,
    "fields": [
        *ORDER_V1["fields"][:1],
        {"name": "amount", "type": "long", "doc": "Total in cents"},
        {"name": "currency", "type": "string", "default": "EUR", "doc": "ISO 4217 code"},
    ],
}
ORDER_V3 = {
    **ORDER_V2,
    "fields": [
        *ORDER_V2["fields"],
        {"name": "address", "default": None, "type": ["null", {
            "type": "record", "name": "Address",
            "fields": [{"name": "city", "type": "string"}, {"name": "zip", "type": "string", "default": ""}],
        }]},
    ],
}
# Not a valid successor of v3 under BACKWARD: a new field without a default.
ORDER_INCOMPATIBLE = {**ORDER_V3, "fields": [*ORDER_V3["fields"], {"name": "priority", "type": "int"}]}
ORDER_COMPATIBLE = {**ORDER_V3, "fields": [*ORDER_V3["fields"], {"name": "priority", "type": "int", "default": 0}]}

CUSTOMER = {
    "type": "record", "name": "Customer", "namespace": "com.acme",
    "fields": [{"name": "name", "type": "string"}, {"name": "email", "type": "string", "doc": "Contact address"}],
}
INVOICE = {
    "type": "record", "name": "Invoice", "namespace": "com.acme",
    "fields": [{"name": "number", "type": "string"}, {"name": "customer", "type": "com.acme.Customer"}],
}
PAYMENT_JSON = {
    "type": "object",
    "properties": {"amount": {"type": "number"}, "method": {"type": "string", "enum": ["card", "transfer"]}},
    "required": ["amount"],
}
ORDER_PROTO = 'syntax = "proto3";\npackage com.acme;\n\nmessage OrderLine {\n  string sku = 1;\n  int32 quantity = 2;\n}\n'

SUBJECT_WITH_SLASH = "com/acme/order.proto"
STAGING_SUBJECT = ":.staging:orders-value"


def register(service: RegistryService, subject: str, schema: Any, schema_type: str = "AVRO",
             references: list[dict[str, Any]] | None = None) -> int:
    text = schema if isinstance(schema, str) else json.dumps(schema)
    done = service.register(subject, SchemaRequest(schema=text, schema_type=schema_type, references=references or []))
    return done.version


def load(service: RegistryService) -> None:
    for schema in (ORDER_V1, ORDER_V2, ORDER_V3):
        register(service, "orders-value", schema)
    register(service, "customers-value", CUSTOMER)
    register(service, "invoices-value", INVOICE,
             references=[{"name": "com.acme.Customer", "subject": "customers-value", "version": 1}])
    register(service, "payments-value", PAYMENT_JSON, "JSON")
    register(service, SUBJECT_WITH_SLASH, ORDER_PROTO, "PROTOBUF")
    register(service, STAGING_SUBJECT, ORDER_V1)
    register(service, "legacy-value", CUSTOMER)
    service.delete_subject("legacy-value")
    service.update_config("payments-value", {"compatibility": "FULL_TRANSITIVE"})
