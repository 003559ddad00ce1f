"""Grants on KEKs through HTTP: the registry under gunicorn with a real auth file (Basic
users), on SQLite and PostgreSQL, and confluent-kafka's own field encryption working with
the grants a team's producer holds.

alice writes the `alice.` subjects and the `alice_` KEKs, bob the `bob.` subjects and the
`bob_` KEKs; ops administers the server. Before grants on KEKs, alice had bob's raw key
back by posting bob's wrapped key as a DEK of her own subject under bob's KEK, or under any
other shared KEK (the local KMS wraps every KEK's DEKs with one key).
"""
from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from dek_support import SECRET, live_registry

from app.security.passwords import hash_password
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.rule_registry import RuleRegistry
from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import FieldEncryptionExecutor
from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver
from confluent_kafka.schema_registry.schema_registry_client import Rule, RuleKind, RuleMode, RuleParams, RuleSet
from confluent_kafka.serialization import MessageField, SerializationContext

pytestmark = pytest.mark.slow

ROOT = "/dek-registry/v1"
PASSWORDS = {"ops": "ops-secret", "alice": "alice-secret", "bob": "bob-secret"}
TEST_LN = 14  # the cheapest scrypt cost the loader accepts
AUTH_FILE = """
[authentication]
methods = ["basic"]

{users}
[[grants]]
principal = "user:ops"
role = "admin"
scope = "global"

[[grants]]
principal = "user:alice"
role = "write"
subjects = ["prefix:alice."]
keks = ["prefix:alice_"]

[[grants]]
principal = "user:bob"
role = "write"
subjects = ["prefix:bob."]
keks = ["prefix:bob_"]
"""
AVRO = json.dumps({"type": "record", "name": "Person", "fields": [
    {"name": "name", "type": "string"}, {"name": "ssn", "type": "string", "confluent:tags": ["PII"]}]})


def auth_file_text() -> str:
    users = "".join(f'[[users]]\nname = "{name}"\npassword = "{hash_password(password, ln=TEST_LN)}"\n\n'
                    for name, password in PASSWORDS.items())
    return AUTH_FILE.format(users=users)


@pytest.fixture(scope="module", params=[
    pytest.param("sqlite", id="sqlite"), pytest.param("postgres", id="postgres", marks=pytest.mark.postgres)])
def server_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp(f"kek-grants-{request.param}")
    auth = workdir / "auth.toml"
    auth.write_text(auth_file_text())
    with live_registry(request, workdir, {"REGISTRY_KMS_LOCAL_SECRET": SECRET,
                                          "REGISTRY_AUTH_FILE": str(auth)}) as url:
        yield url


class Caller:
    def __init__(self, url: str, name: str) -> None:
        self.url = url
        self.header = "Basic " + base64.b64encode(f"{name}:{PASSWORDS[name]}".encode()).decode()

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": self.header, "Content-Type": "application/vnd.schemaregistry.v1+json"})
        try:
            with urllib.request.urlopen(request) as reply:
                raw = reply.read()
                return reply.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


def test_a_subject_writer_cannot_have_another_teams_key_unwrapped_under_any_kek(server_url: str) -> None:
    ops, alice, bob = (Caller(server_url, name) for name in ("ops", "alice", "bob"))
    for kek in ("bob_kek", "alice_kek", "common"):
        status, _ = ops.call("POST", ROOT + "/keks", {"name": kek, "kmsType": "local-kms", "kmsKeyId": f"{kek}-id",
                                                      "shared": True})
        assert status == 200
    status, bobs = bob.call("POST", ROOT + "/keks/bob_kek/deks/bob.orders", {})
    assert status == 200 and "keyMaterial" in bobs
    replayed = {"encryptedKeyMaterial": bobs["encryptedKeyMaterial"]}
    answers = [alice.call("GET", ROOT + "/keks/bob_kek/deks/bob.orders"),
               alice.call("POST", ROOT + "/keks/bob_kek/deks/alice.o", replayed),
               alice.call("POST", ROOT + "/keks/common/deks/alice.o", replayed),
               alice.call("POST", ROOT + "/keks/alice_kek/deks/alice.o", replayed)]
    assert [(status, body["error_code"]) for status, body in answers] == [
        (403, 40301), (403, 40301), (403, 40301), (422, 42271)]
    assert answers[1][1]["message"] == "User is denied operation Write on Kek: bob_kek"
    assert all(bobs["keyMaterial"] not in json.dumps(body) for _, body in answers)
    for kek in ("bob_kek", "alice_kek", "common"):
        assert ops.call("GET", ROOT + f"/keks/{kek}/deks?deleted=true") == (200, ["bob.orders"] if kek == "bob_kek"
                                                                           else [])
    assert [who.call("GET", ROOT + "/keks")[1] for who in (ops, alice, bob)] == [
        ["alice_kek", "bob_kek", "common"], ["alice_kek"], ["bob_kek"]]


@pytest.fixture
def local_kms() -> Iterator[None]:
    """confluent-kafka's local KMS for this test's clients; afterwards its global rule registry
    forgets the executors registered here (they hold this test's clients)."""
    LocalKmsDriver.register()
    yield
    RuleRegistry.get_global_instance().clear()


def alices_client(url: str) -> SchemaRegistryClient:
    FieldEncryptionExecutor.register()
    return SchemaRegistryClient({"url": url, "basic.auth.user.info": f"alice:{PASSWORDS['alice']}"})


def test_a_producer_and_a_consumer_granted_the_kek_encrypt_and_decrypt_a_field(server_url: str,
                                                                               local_kms: None) -> None:
    """Confluent's executor reads the KEK (read), makes the DEK under it (write) and reads it
    back: what a team's grant on its subjects and its KEKs allows, with no global grant."""
    subject, context = "alice.people-value", SerializationContext("alice.people", MessageField.VALUE)
    Caller(server_url, "ops").call("POST", ROOT + "/keks", {"name": "alice_fields", "kmsType": "local-kms",
                                                            "kmsKeyId": "alice_fields-id", "shared": True})
    rule = Rule("encrypt-pii", "", RuleKind.TRANSFORM, RuleMode.WRITEREAD, "ENCRYPT", ["PII"], RuleParams(
        {"encrypt.kek.name": "alice_fields", "encrypt.kms.type": "local-kms",
         "encrypt.kms.key.id": "alice_fields-id"}), None, None, "ERROR,NONE", False)
    alices_client(server_url).register_schema(subject, Schema(AVRO, "AVRO", [], None, RuleSet(None, [rule])))
    writer = AvroSerializer(alices_client(server_url), None,
                            conf={"auto.register.schemas": False, "use.latest.version": True}, rule_conf={})
    data = writer({"name": "ann", "ssn": "123-45-6789"}, context)
    assert b"123-45-6789" not in data
    reader = AvroDeserializer(alices_client(server_url), rule_conf={})
    assert reader(data, context) == {"name": "ann", "ssn": "123-45-6789"}


def test_rewrap_and_the_kek_listings_parameters_keep_to_the_grants(server_url: str) -> None:
    """`?rewrap=true` needs what a create needs (write on the subject and the KEK), and
    `subjectPrefix`, `offset` and `limit` page only the KEKs the caller may read (issue 40)."""
    ops, alice, bob = (Caller(server_url, name) for name in ("ops", "alice", "bob"))
    for kek in ("alice_rw", "alice_rw2"):
        assert ops.call("POST", ROOT + "/keks", {"name": kek, "kmsType": "local-kms", "kmsKeyId": f"{kek}-id",
                                                 "shared": True})[0] == 200
    status, first = alice.call("POST", ROOT + "/keks/alice_rw/deks/alice.rewrapped", {})
    assert status == 200
    status, again = alice.call("POST", ROOT + "/keks/alice_rw/deks/alice.rewrapped?rewrap=true", {})
    assert status == 200 and again["keyMaterial"] == first["keyMaterial"] and again["version"] == 1
    assert again["encryptedKeyMaterial"] != first["encryptedKeyMaterial"]
    status, refused = bob.call("POST", ROOT + "/keks/alice_rw/deks/alice.rewrapped?rewrap=true", {})
    assert (status, refused["error_code"]) == (403, 40301)
    assert alice.call("GET", ROOT + "/keks?subjectPrefix=alice.rewr") == (200, ["alice_rw"])
    assert bob.call("GET", ROOT + "/keks?subjectPrefix=alice.") == (200, [])
    assert ops.call("GET", ROOT + "/keks?subjectPrefix=alice.rewr&subjectPrefix=alice.none") == (200, ["alice_rw"])
    names = alice.call("GET", ROOT + "/keks")[1]
    assert alice.call("GET", ROOT + "/keks?offset=1&limit=1") == (200, names[1:2])
