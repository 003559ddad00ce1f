"""Data-contract rules in `decode`: records framed by confluent-kafka's own serializers under an
ENCRYPT rule (local KMS, the DEK registry of our server) come out in clear on both engines'
paths; a READ CEL condition routes or stops the job naming the rule and the record; records of
three versions come out migrated to the reader's by JSONata UPGRADE rules; a JSON Schema
subject runs its rules record by record; a subject without READ rules keeps the JVM path."""
from __future__ import annotations

import json
import logging
import uuid
from typing import Any

import pytest
from pyspark.errors import PySparkException

from app.client import AvroSerializer, JsonSerializer, PinnedVersion, RegistryClient, UseLatest
from app.client.records import JSON, Rule, RuleSet, Schema
from app.pipeline import decode

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)

SECRET = "pipeline-rules-secret"
PERSON = {"type": "record", "name": "Person", "namespace": "shop", "fields": [
    {"name": "name", "type": "string"},
    {"name": "ssn", "type": "string", "confluent:tags": ["PII"]},
    {"name": "age", "type": "int"}]}
JSON_PERSON = {"type": "object", "properties": {
    "name": {"type": "string"}, "ssn": {"type": "string", "confluent:tags": ["PII"]}, "age": {"type": "integer"}}}
PEOPLE = [{"name": f"p{n}", "ssn": f"000-00-{n:04d}", "age": 10 + 5 * n} for n in range(5)]


def encrypt_rule(kek: str, on_failure: str = "ERROR,ERROR") -> Rule:
    return Rule("encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), (
        ("encrypt.kek.name", kek), ("encrypt.kms.key.id", f"{kek}-key"), ("encrypt.kms.type", "local-kms")),
        on_failure=on_failure)


def frame(spark, values: list[bytes | None]) -> Any:
    rows = [(value, "people", 0, offset) for offset, value in enumerate(values)]
    return spark.createDataFrame(rows, "value binary, topic string, partition int, offset long")


def choices(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "app.pipeline"]


def confluent_writer(url: str, topic: str) -> Any:
    """confluent-kafka's AvroSerializer with its own ENCRYPT executor and local KMS, writing
    with the subject's latest version."""
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroSerializer as ConfluentAvroSerializer
    from confluent_kafka.schema_registry.rule_registry import RuleRegistry
    from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import FieldEncryptionExecutor
    from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver
    from confluent_kafka.serialization import MessageField, SerializationContext

    LocalKmsDriver.register()
    rules = RuleRegistry()
    rules.register_executor(FieldEncryptionExecutor())
    write = ConfluentAvroSerializer(SchemaRegistryClient({"url": url}), None,
                                    conf={"auto.register.schemas": False, "use.latest.version": True},
                                    rule_conf={"secret": SECRET}, rule_registry=rules)
    return lambda record: write(record, SerializationContext(topic, MessageField.VALUE))


@pytest.fixture
def encrypted_people(spark, live_server):
    """Five people framed by confluent-kafka's AvroSerializer with its ENCRYPT executor."""
    from tink._kms_clients import reset_kms_clients

    topic = f"people-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    RegistryClient(live_server).register(subject, Schema(json.dumps(PERSON), rule_set=RuleSet(
        domain_rules=(encrypt_rule(f"kek_{uuid.uuid4().hex[:8]}"),))))
    reset_kms_clients()  # confluent-kafka's KMS clients are process-wide (see tests/client/rules)
    try:
        write = confluent_writer(live_server, topic)
        values = [write(dict(person)) for person in PEOPLE]
    finally:
        reset_kms_clients()
    assert not any(person["ssn"].encode() in value for person, value in zip(PEOPLE, values))
    return subject, frame(spark, [*values, None])


def test_fields_confluent_encrypted_come_out_in_clear_on_both_paths(engine, encrypted_people, live_server, caplog):
    subject, df = encrypted_people
    caplog.set_level(logging.INFO, logger="app.pipeline")
    out = decode(df, "value", RegistryClient(live_server), subject=subject, engine=engine,
                 rule_config={"secret": SECRET}).orderBy("offset").collect()
    assert [row["value"].asDict() if row["value"] else None for row in out] == [*PEOPLE, None]
    said = choices(caplog)
    assert any(line.startswith(f"decoding on the {'JVM' if engine == 'jvm' else 'Python'} path") for line in said)
    assert any("then decrypting shop.Person.ssn" in line and "encrypt-pii" in line for line in said)
    assert not any(SECRET in line for line in said)


def test_without_the_secret_a_field_that_does_not_decrypt_is_routed_naming_the_rule(encrypted_people, live_server,
                                                                                   caplog):
    subject, df = encrypted_people
    caplog.set_level(logging.INFO, logger="app.pipeline")
    out = decode(df, "value", RegistryClient(live_server), subject=subject, on_error="route",
                 rule_config={"secret": "not-the-secret"}).orderBy("offset").collect()
    assert all(row["value"] is None for row in out)
    errors = [row["value_error"] for row in out[:5]]
    assert all("RuleFailed" in error and "'encrypt-pii' (ENCRYPT)" in error and f"{subject} version 1" in error
               for error in errors)
    assert out[5]["value_error"] is None and "not-the-secret" not in " ".join(errors)
    # The driver cannot unwrap the DEK either: the Python workers decrypt, and the client decides.
    assert any("then decrypting shop.Person.ssn in Spark's Python workers (the driver cannot plan the decryption: "
               in line for line in choices(caplog)), choices(caplog)
    with pytest.raises(PySparkException, match=r"topic=people, partition=0, offset=\d: .*'encrypt-pii' \(ENCRYPT\)"):
        decode(df, "value", RegistryClient(live_server), subject=subject,
               rule_config={"secret": "not-the-secret"}).collect()


def test_a_read_condition_routes_the_records_it_refuses_and_fail_mode_names_rule_and_record(spark, live_server):
    client = RegistryClient(live_server)
    subject = f"adults-{uuid.uuid4().hex[:8]}-value"
    adult = Rule("adult", "CONDITION", "READ", "CEL", expr="message.age >= 18")
    client.register(subject, Schema(json.dumps(PERSON), rule_set=RuleSet(domain_rules=(adult,))))
    write = AvroSerializer(client, subject=subject, writer=UseLatest())
    df = frame(spark, [write(person) for person in PEOPLE])
    out = decode(df, "value", client, subject=subject, on_error="route", engine="auto").orderBy("offset").collect()
    assert [row["value"]["name"] if row["value"] else None for row in out] == [None, None, "p2", "p3", "p4"]
    assert "READ rule 'adult' (CEL) of " + subject + " version 1 failed" in out[0]["value_error"]
    assert out[2]["value_error"] is None
    with pytest.raises(PySparkException, match=r"topic=people, partition=0, offset=[01]: .*rule 'adult'"):
        decode(df, "value", client, subject=subject).collect()


UP_1_2 = "$merge([$sift($, function($v, $k) {$k != 'age'}), {'years': $.age}])"
UP_2_3 = "$merge([$sift($, function($v, $k) {$k != 'name'}), {'full_name': $uppercase($.name)}])"


def _person(*fields: dict[str, Any]) -> str:
    return json.dumps({"type": "record", "name": "Person", "fields": list(fields)})


def test_records_of_three_versions_come_out_migrated_to_the_reader_version(spark, live_server):
    client = RegistryClient(live_server)
    subject = f"migrating-{uuid.uuid4().hex[:8]}-value"
    client.set_config(subject, compatibility="NONE")
    versions = [
        Schema(_person({"name": "name", "type": "string"}, {"name": "age", "type": "int"})),
        Schema(_person({"name": "name", "type": "string"}, {"name": "years", "type": "int"}),
               rule_set=RuleSet(migration_rules=(Rule("age-to-years", "TRANSFORM", "UPGRADE", "JSONATA",
                                                      expr=UP_1_2),))),
        Schema(_person({"name": "full_name", "type": "string"}, {"name": "years", "type": "int"}),
               rule_set=RuleSet(migration_rules=(Rule("shout-name", "TRANSFORM", "UPGRADE", "JSONATA",
                                                      expr=UP_2_3),))),
    ]
    assert [client.register(subject, schema).version for schema in versions] == [1, 2, 3]
    records = [{"name": "ann", "age": 36}, {"name": "bob", "years": 7}, {"full_name": "CY", "years": 1}]
    values = [AvroSerializer(client, subject=subject, writer=PinnedVersion(n + 1))(record)
              for n, record in enumerate(records)]
    out = decode(frame(spark, values), "value", client, subject=subject, reader=3).orderBy("offset").collect()
    assert [row["value"].asDict() for row in out] == [
        {"full_name": "ANN", "years": 36}, {"full_name": "BOB", "years": 7}, {"full_name": "CY", "years": 1}]


def test_a_json_schema_subject_runs_its_encrypt_and_condition_rules_record_by_record(spark, live_server, caplog):
    client = RegistryClient(live_server)
    subject = f"json-people-{uuid.uuid4().hex[:8]}-value"
    rules = (encrypt_rule(f"kek_{uuid.uuid4().hex[:8]}"), Rule("adult", "CONDITION", "READ", "CEL",
                                                              expr="message.age >= 18"))
    client.register(subject, Schema(json.dumps(JSON_PERSON), JSON, rule_set=RuleSet(domain_rules=rules)))
    write = JsonSerializer(client, subject=subject, writer=UseLatest(), rule_config={"secret": SECRET})
    values = [write(person) for person in PEOPLE]
    assert not any(person["ssn"].encode() in value for person, value in zip(PEOPLE, values))
    caplog.set_level(logging.INFO, logger="app.pipeline")
    out = decode(frame(spark, values), "value", client, subject=subject, on_error="route",
                 rule_config={"secret": SECRET}).orderBy("offset").collect()
    assert [row["value"].asDict() if row["value"] else None for row in out] == [None, None, *PEOPLE[2:]]
    assert "rule 'adult'" in out[1]["value_error"]
    assert any("decoding on the Python path: every record passes through app.client's rules" in line
               for line in choices(caplog))


def test_a_subject_whose_rules_do_not_run_on_read_keeps_the_jvm_path(engine, spark, live_server, caplog):
    client = RegistryClient(live_server)
    subject = f"writes-{uuid.uuid4().hex[:8]}-value"
    client.register(subject, Schema(json.dumps(PERSON), rule_set=RuleSet(domain_rules=(
        Rule("adult", "CONDITION", "WRITE", "CEL", expr="message.age >= 18"),))))
    write = AvroSerializer(client, subject=subject, writer=UseLatest())
    caplog.set_level(logging.INFO, logger="app.pipeline")
    out = decode(frame(spark, [write(PEOPLE[3])]), "value", client, subject=subject, engine=engine).collect()
    assert out[0]["value"].asDict() == PEOPLE[3]
    said = choices(caplog)
    assert any(line.startswith(f"decoding on the {'JVM' if engine == 'jvm' else 'Python'} path") for line in said)
    assert not any("decrypting" in line or "app.client's rules" in line for line in said)


def test_the_command_takes_the_secret_from_rule_config_and_never_prints_it(encrypted_people, live_server,
                                                                             tmp_path, capsys):
    from app.pipeline.job import main

    subject, df = encrypted_people
    df.write.parquet(str(tmp_path / "dump"))
    assert main(["decode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "dump"),
                 "--output", str(tmp_path / "out"), "--rule-config", f"secret={SECRET}"]) == 0
    rows = df.sparkSession.read.parquet(str(tmp_path / "out")).orderBy("offset").collect()
    assert [row["value"].asDict() if row["value"] else None for row in rows] == [*PEOPLE, None]
    err = capsys.readouterr().err
    assert "sqlregistry pipeline: decoding on the JVM path" in err
    assert "sqlregistry pipeline: then decrypting shop.Person.ssn on the JVM" in err
    assert SECRET not in err


def test_a_missing_rules_library_is_one_line_naming_the_extra_before_any_spark_work(spark, live_server, tmp_path,
                                                                                  capsys, monkeypatch):
    import sys

    from app.client.rules.executors import DEFAULT_EXECUTORS
    from app.pipeline.job import main

    client = RegistryClient(live_server)
    subject = f"uncheckable-{uuid.uuid4().hex[:8]}-value"
    client.register(subject, Schema(json.dumps(PERSON), rule_set=RuleSet(domain_rules=(
        Rule("adult", "CONDITION", "READ", "CEL", expr="message.age >= 18"),))))
    spark.createDataFrame([(b"\x00",)], "value binary").write.parquet(str(tmp_path / "dump"))
    monkeypatch.setattr(DEFAULT_EXECUTORS, "_executors", {})  # as in a process that never ran a CEL rule
    monkeypatch.setitem(sys.modules, "app.client.rules.cel_executor", None)  # as without cel-python
    assert main(["decode", "--registry", live_server, "--subject", subject, "--input", str(tmp_path / "dump"),
                 "--output", str(tmp_path / "out")]) == 1
    failure = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(failure) == 1 and "CEL rules need cel-python" in failure[0]
    assert "pip install 'sqlregistry[rules]'" in failure[0]
    assert not (tmp_path / "out").exists()


def _proto_person(package: str, fields: tuple[tuple[str, str, int], ...]) -> tuple[str, Any]:
    """A Person message's `.proto` text and its class, in a pool of its own."""
    from google.protobuf import descriptor_pb2, descriptor_pool
    from google.protobuf.message_factory import GetMessageClass

    lines = "\n".join(f"  {kind} {name} = {number};" for kind, name, number in fields)
    text = f'syntax = "proto3";\npackage {package};\n\nmessage Person {{\n{lines}\n}}\n'
    file = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto3")
    message = file.message_type.add(name="Person")
    kinds = {"string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
             "int32": descriptor_pb2.FieldDescriptorProto.TYPE_INT32}
    for kind, name, number in fields:
        message.field.add(name=name, number=number, type=kinds[kind],
                          label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return text, GetMessageClass(pool.FindMessageTypeByName(f"{package}.Person"))


def test_protobuf_records_of_an_older_version_come_out_migrated_to_the_reader_version(spark, live_server):
    from app.client import ProtobufSerializer
    from app.client.records import PROTOBUF

    client = RegistryClient(live_server)
    package = f"pipemig{uuid.uuid4().hex[:8]}"
    subject = f"{package}-value"
    client.set_config(subject, compatibility="NONE")
    v1_text, v1 = _proto_person(package, (("string", "name", 1), ("int32", "age", 2)))
    v2_text, v2 = _proto_person(package, (("string", "name", 1), ("int32", "years", 3)))
    client.register(subject, Schema(v1_text, PROTOBUF))
    client.register(subject, Schema(v2_text, PROTOBUF, rule_set=RuleSet(migration_rules=(
        Rule("age-to-years", "TRANSFORM", "UPGRADE", "JSONATA", expr=UP_1_2),))))
    values = [ProtobufSerializer(client, v1, subject=subject, writer=PinnedVersion(1))(v1(name="ann", age=36)),
              ProtobufSerializer(client, v2, subject=subject, writer=PinnedVersion(2))(v2(name="bob", years=7))]
    out = decode(frame(spark, values), "value", client, subject=subject, reader=2).orderBy("offset").collect()
    assert [row["value"].asDict() for row in out] == [{"name": "ann", "years": 36}, {"name": "bob", "years": 7}]


def test_a_stream_of_encrypted_records_comes_out_in_clear_on_both_paths(engine, encrypted_people, live_server,
                                                                           tmp_path):
    subject, df = encrypted_people
    df.coalesce(1).write.parquet(str(tmp_path / "dumps" / "part-0"))
    stream = df.sparkSession.readStream.schema(df.schema).parquet(str(tmp_path / "dumps" / "part-0"))
    decoded = decode(stream, "value", RegistryClient(live_server), subject=subject, engine=engine,
                     on_error="route", rule_config={"secret": SECRET})
    name = f"people_{engine}_{uuid.uuid4().hex[:8]}"
    query = (decoded.writeStream.format("memory").queryName(name).outputMode("append")
             .option("checkpointLocation", str(tmp_path / "checkpoint")).start())
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    out = df.sparkSession.sql(f"select * from {name} order by offset").collect()
    assert [row["value"].asDict() if row["value"] else None for row in out] == [*PEOPLE, None]
    assert all(row["value_error"] is None for row in out)


def test_an_unreachable_kms_fails_the_job_even_when_bad_records_are_routed(spark, live_server):
    """Records encrypted under an AWS KMS key (moto on loopback); the job is pointed at a KMS
    endpoint where nothing listens: no record is at fault, so routing does not hide it (the fail
    mode fails anyway, so it is not run too; on the Python path, since on the JVM's the driver
    would first try to find the keys before it leaves the decryption to the workers, as the
    wrong-secret test shows)."""
    import boto3
    from moto.server import ThreadedMotoServer
    from support.postgres import free_port

    port = free_port()
    kms = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    kms.start()
    try:
        credentials = {"access.key.id": "testing", "secret.access.key": "testing"}
        arn = boto3.client("kms", region_name="us-east-1", endpoint_url=f"http://127.0.0.1:{port}",
                           aws_access_key_id="testing", aws_secret_access_key="testing"
                           ).create_key(Description="pipeline rules")["KeyMetadata"]["Arn"]
        client = RegistryClient(live_server)
        subject = f"aws-people-{uuid.uuid4().hex[:8]}-value"
        client.register(subject, Schema(json.dumps(PERSON), rule_set=RuleSet(domain_rules=(Rule(
            "encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), (
                ("encrypt.kek.name", f"aws_{uuid.uuid4().hex[:8]}"), ("encrypt.kms.key.id", arn),
                ("encrypt.kms.type", "aws-kms"))),))))
        write = AvroSerializer(client, subject=subject, writer=UseLatest(),
                               rule_config={**credentials, "endpoint.url": f"http://127.0.0.1:{port}"})
        values = [write(dict(person)) for person in PEOPLE[:3]]
    finally:
        kms.stop()
    nowhere = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(PySparkException, match="the KMS cannot be reached"):
        decode(frame(spark, values), "value", RegistryClient(live_server), subject=subject, on_error="route",
               engine="python", rule_config={**credentials, "endpoint.url": nowhere}).collect()
