"""WRITE rules in `encode`: the workers' serializers run the writer version's rules with the
job's `rule_config`, so a field the version encrypts (ENCRYPT, local KMS) leaves the pipeline as
ciphertext that confluent-kafka's own deserializer decrypts; such a writer takes the Python path
(the JVM encoder runs no rules) and says why; a row a CEL condition refuses stops the job with
one line naming the rule and the row."""
from __future__ import annotations

import json
import logging
import uuid

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.schema_registry.rule_registry import RuleRegistry
from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import FieldEncryptionExecutor
from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver
from support.interop import context
from tink._kms_clients import reset_kms_clients

from app.client import RegistryClient
from app.client.records import Rule, RuleSet, Schema
from app.pipeline import encode
from app.pipeline.job import main

ON_SQLITE = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)

SECRET = "pipeline-rules-secret"
PERSON = json.dumps({"type": "record", "name": "Person", "fields": [
    {"name": "name", "type": "string"}, {"name": "ssn", "type": "string", "confluent:tags": ["PII"]}]})


def encrypted_subject(url: str, topic: str) -> str:
    kek = f"kek_{uuid.uuid4().hex[:8]}"
    rule = Rule("encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), {
        "encrypt.kek.name": kek, "encrypt.kms.type": "local-kms", "encrypt.kms.key.id": f"{kek}-key"},
        on_failure="ERROR,NONE")
    RegistryClient(url).register(f"{topic}-value", Schema(PERSON, rule_set=RuleSet(domain_rules=(rule,))))
    return f"{topic}-value"


def confluent_reader(url: str):
    LocalKmsDriver.register()
    rules = RuleRegistry()
    rules.register_executor(FieldEncryptionExecutor())
    return AvroDeserializer(SchemaRegistryClient({"url": url}), rule_conf={"secret": SECRET}, rule_registry=rules)


@ON_SQLITE
def test_an_encrypted_field_leaves_as_ciphertext_that_confluent_kafka_decrypts(spark, live_server, unique_subject,
                                                                              caplog):
    reset_kms_clients()  # Tink's process-wide KMS clients: only this test's secret
    topic = unique_subject("t")
    subject = encrypted_subject(live_server, topic)
    people = [(f"p{n}", f"123-45-{n:04d}") for n in range(4)]
    df = spark.createDataFrame(people, "name string, ssn string")
    with caplog.at_level(logging.INFO, logger="app.pipeline"):
        framed = encode(df, RegistryClient(live_server), subject=subject, version=1,
                        rule_config={"secret": SECRET}).collect()
    assert "encoding on the Python path: the writer schema has WRITE rules" in caplog.text
    assert all(ssn.encode() not in row["value"] for row, (_, ssn) in zip(framed, people))
    read = confluent_reader(live_server)
    assert sorted((record["name"], record["ssn"]) for record in
                  (read(row["value"], context(topic)) for row in framed)) == people
    reset_kms_clients()


@ON_SQLITE
def test_a_row_a_write_condition_refuses_stops_the_command_naming_rule_and_row(spark, live_server, unique_subject,
                                                                              tmp_path, capsys):
    subject = unique_subject()
    condition = Rule("ssn-shape", "CONDITION", "WRITE", "CEL", expr="message.ssn.matches('^[0-9-]+$')")
    RegistryClient(live_server).register(subject, Schema(PERSON, rule_set=RuleSet(domain_rules=(condition,))))
    spark.createDataFrame([("k1", "ann", "1-2"), ("k2", "bob", "n/a")], "key string, name string, ssn string") \
        .write.parquet(str(tmp_path / "rows"))
    assert main(["encode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "rows"),
                 "--writer", "latest", "--rule-config", "unused=1", "--output", str(tmp_path / "framed")]) == 1
    failure = [line for line in capsys.readouterr().err.splitlines() if line.startswith("sqlregistry pipeline: error")]
    assert len(failure) == 1 and "cannot encode the row with key='k2'" in failure[0] and "ssn-shape" in failure[0]


def test_rule_config_is_repeatable_key_value_pairs():
    from app.pipeline.job import parse_args

    common = ["encode", "--subject", "s", "--input", "i", "--output", "o"]
    args = parse_args([*common, "--rule-config", "secret=a=b", "--rule-config", "other="])
    assert args.rule_config == {"secret": "a=b", "other": ""}
    assert parse_args(common).rule_config == {}
    with pytest.raises(SystemExit):
        parse_args([*common, "--rule-config", "novalue"])
