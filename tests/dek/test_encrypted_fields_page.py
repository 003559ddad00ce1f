"""The subject page names the fields its ENCRYPT rules encrypt and the KEK of each rule, for
Avro, JSON Schema and Protobuf, and shows no key material (both databases)."""
from __future__ import annotations

import json

import pytest
from dek_support import DekApi
from flask import Flask

from app.formats import FORMATS

RULE_SET = {"domainRules": [
    {"name": "encrypt-pii", "kind": "TRANSFORM", "mode": "WRITEREAD", "type": "ENCRYPT", "tags": ["PII"],
     "params": {"encrypt.kek.name": "people_kek", "encrypt.kms.type": "local-kms",
                "encrypt.kms.key.id": "people_kek-key"}},
    {"name": "checks", "kind": "CONDITION", "mode": "WRITE", "type": "CEL", "expr": "true"},
]}
SCHEMAS = {
    "AVRO": (json.dumps({"type": "record", "name": "Person", "namespace": "acme", "fields": [
        {"name": "name", "type": "string"}, {"name": "ssn", "type": "string", "confluent:tags": ["PII"]},
        {"name": "home", "type": {"type": "record", "name": "Home", "fields": [
            {"name": "zip", "type": "string", "confluent:tags": ["LOC", "PII"]}]}}]}),
        ["acme.Person.ssn", "acme.Home.zip"]),
    "JSON": (json.dumps({"type": "object", "properties": {
        "name": {"type": "string"}, "ssn": {"type": "string", "confluent:tags": ["PII"]},
        "home": {"type": "object", "properties": {"zip": {"type": "string", "confluent:tags": ["LOC"]}}}}}),
        ["ssn"]),
    "PROTOBUF": ('syntax = "proto3";\npackage acme;\nimport "confluent/meta.proto";\n'
                 'message Person {\n  string name = 1;\n  string ssn = 2 [(confluent.field_meta).tags = "PII"];\n'
                 '  message Home { string zip = 1 [(confluent.field_meta) = {tags: ["LOC", "PII"]}]; }\n}\n',
                 ["acme.Person.ssn", "acme.Person.Home.zip"]),
}


@pytest.mark.parametrize("schema_type", sorted(SCHEMAS))
def test_the_subject_page_lists_the_encrypted_fields_and_their_kek(
    dek_app: Flask, deks: DekApi, schema_type: str,
) -> None:
    text, fields = SCHEMAS[schema_type]
    client = dek_app.test_client()
    subject = f"people-{schema_type.lower()}"
    registered = client.post(f"/subjects/{subject}/versions", json={
        "schema": text, "schemaType": schema_type, "ruleSet": RULE_SET,
        "metadata": {"tags": {"acme.Person.name_*": ["PII"]}}})
    assert registered.status_code == 200, registered.get_data(as_text=True)
    deks.kek("people_kek", shared=True)
    material = deks.post(f"/keks/people_kek/deks/{subject}", {}).json["keyMaterial"]
    page = client.get(f"/ui/subjects/{subject}").get_data(as_text=True)
    section = page[page.index('data-section="encryption"'):]
    section = section[:section.index("</section>")]
    assert "encrypt-pii" in section and "people_kek (local-kms)" in section and "checks" not in section
    assert [f for f in fields if f"<code>{f}</code>" in section] == fields
    assert "<code>acme.Person.name_*</code>" in section  # a metadata tag path, as written
    assert "name</code>" not in section.replace("name_*</code>", "")
    assert material not in page


def test_a_subject_without_encrypt_rules_has_no_encryption_section(dek_app: Flask) -> None:
    """A PII-tagged field and rules of other kinds: the page shows the subject's schema, and no
    encryption section, since no rule encrypts."""
    client = dek_app.test_client()
    rules = {"domainRules": [RULE_SET["domainRules"][1],
                             {"name": "mask", "kind": "TRANSFORM", "mode": "WRITE", "type": "CEL_FIELD",
                              "tags": ["PII"], "expr": "value"}]}
    registered = client.post("/subjects/plain/versions", json={
        "schema": SCHEMAS["AVRO"][0], "ruleSet": rules, "metadata": {"tags": {"acme.Person.name": ["PII"]}}})
    assert registered.status_code == 200, registered.get_data(as_text=True)
    page = client.get("/ui/subjects/plain")
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert "Latest schema: version 1," in body and "&#34;Person&#34;" in body
    assert 'data-section="encryption"' not in body and "Encrypted fields" not in body


def test_each_format_names_its_tagged_fields() -> None:
    for schema_type, (text, fields) in SCHEMAS.items():
        fmt = FORMATS[schema_type]
        tags = fmt.field_tags(fmt.parse(text, {}))
        assert [path for path, found in tags.items() if "PII" in found] == fields, schema_type
    protobuf = FORMATS["PROTOBUF"]
    assert protobuf.field_tags(protobuf.parse(SCHEMAS["PROTOBUF"][0], {}))["acme.Person.Home.zip"] == ("LOC", "PII")
