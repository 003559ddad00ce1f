"""Field decryption on the JVM (`app.pipeline.jvm_decrypt`, `FieldDecryptUdf.java`): the same
records decoded on the JVM path (keys found on the driver, decrypted by the Java UDF) and on the
Python path (decrypted by the client's executor in the Python workers) give the same rows and
the same errors, under onFailure NONE and ERROR, routed and failing; AES256_SIV stays in the
Python workers; the keys reach the executors in an owner-only file and nowhere else."""
from __future__ import annotations

import base64
import io
import json
import logging
import os
import re
import stat
import uuid
from typing import Any

import pytest
from fastavro import parse_schema, schemaless_reader, schemaless_writer
from pyspark.errors import PySparkException

from app.client import AvroSerializer, RegistryClient, UseLatest
from app.client.records import Rule, RuleSet, Schema
from app.client.rules import ExecutorRegistry
from app.client.rules.encryption import FieldEncryptionExecutor
from app.pipeline import decode

pytestmark = pytest.mark.parametrize("live_server", ["sqlite"], indirect=True)

SECRET = "jvm-decrypt-secret"
ADDRESS = {"type": "record", "name": "Address", "fields": [
    {"name": "zip", "type": "string", "confluent:tags": ["PII"]}, {"name": "city", "type": "string"}]}
PERSON = {"type": "record", "name": "Person", "namespace": "jd", "fields": [
    {"name": "name", "type": "string"},
    {"name": "ssn", "type": "string", "confluent:tags": ["PII"]},
    {"name": "photo", "type": "bytes", "confluent:tags": ["PII"]},
    {"name": "nickname", "type": ["null", "string"], "default": None, "confluent:tags": ["PII"]},
    {"name": "address", "type": ["null", ADDRESS], "default": None},
    {"name": "pin", "type": "string", "confluent:tags": ["SECRET"]}]}
PARSED = parse_schema(json.loads(json.dumps(PERSON)))
ANN = {"name": "ann", "ssn": "123-45-6789", "photo": b"\x89PNG", "nickname": "annie",
       "address": {"zip": "75001", "city": "Paris"}, "pin": "1234"}
BOB = {"name": "bob", "ssn": "987-65-4321", "photo": b"", "nickname": None, "address": None, "pin": "0000"}


def rules(kek: str, on_failure: str) -> RuleSet:
    """PII under a rotating DEK, SECRET under a DEK of its own; READ runs SECRET's rule first."""
    def rule(name: str, tag: str, **params: str) -> Rule:
        return Rule(name, "TRANSFORM", "WRITEREAD", "ENCRYPT", (tag,), tuple(sorted({
            "encrypt.kek.name": f"{kek}-{tag}", "encrypt.kms.type": "local-kms",
            "encrypt.kms.key.id": f"{kek}-{tag}-key", **params}.items())), on_failure=on_failure)

    return RuleSet(domain_rules=(rule("encrypt-pii", "PII", **{"encrypt.dek.expiry.days": "1"}),
                                 rule("encrypt-secret", "SECRET")))


def _fields(value: bytes) -> dict[str, Any]:
    return schemaless_reader(io.BytesIO(value[5:]), PARSED, PARSED)


def _frame(header: bytes, record: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    schemaless_writer(out, PARSED, record)
    return header + out.getvalue()


def _flip(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 1])


def _flip_text(text: str) -> str:
    return base64.b64encode(_flip(base64.b64decode(text))).decode()


def _with_version(text: str, version: int) -> str:
    data = base64.b64decode(text)
    return base64.b64encode(data[:1] + version.to_bytes(4, "big") + data[5:]).decode()


def stored_records(client: RegistryClient, subject: str) -> list[bytes | None]:
    """Two good records (DEK versions 1 and 2), then one fault each, as the writer's bytes."""
    now = [0]
    executors = ExecutorRegistry()
    executors.register(FieldEncryptionExecutor(clock=lambda: now[0]))
    write = AvroSerializer(client, subject=subject, writer=UseLatest(), rule_config={"secret": SECRET},
                           rule_executors=executors)
    first = write(dict(ANN))
    kek = f"{client.get_latest_version(subject).schema.rule_set.domain_rules[0].param('encrypt.kek.name')}"
    made = client.transport.request("GET", f"/dek-registry/v1/keks/{kek}/deks/{subject}")
    now[0] = made["ts"] + 2 * 24 * 3600 * 1000  # the PII DEK expired: version 2 from here on
    second = write(dict(BOB))
    not_utf8 = _fields(write({**ANN, "photo": b"\xff\xfe"}))["photo"]  # AES-GCM of bytes that are no text
    header, good = second[:5], _fields(second)
    assert good["ssn"] != BOB["ssn"] and base64.b64decode(good["ssn"])[1:5] == (2).to_bytes(4, "big")
    assert base64.b64decode(_fields(first)["ssn"])[1:5] == (1).to_bytes(4, "big")
    faults = [
        {"ssn": _flip_text(good["ssn"])},                       # tampered: the tag fails
        {"ssn": "not base64!"},                                 # not base64
        {"ssn": good["ssn"] + "\n"},                            # base64 with a line break
        {"photo": _flip(good["photo"])},                        # a tampered bytes field
        {"address": {"zip": _flip_text(_fields(first)["address"]["zip"]), "city": "Lyon"}},  # nested
        {"ssn": _with_version(good["ssn"], 1000)},              # a DEK version the registry lacks
        {"ssn": _with_version(good["ssn"], 2**31 + 5)},         # no version number at all
        {"ssn": _with_version(_fields(first)["ssn"], 0)},       # version 0 reads DEK version 1: clear
        {"ssn": "AAAA"},                                        # too short to carry a version
        {"ssn": base64.b64encode(not_utf8).decode()},           # decrypts, but not to UTF-8
        {"pin": _flip_text(good["pin"]), "ssn": "not base64!"},  # two rules fail: SECRET's runs first
    ]
    return [first, second, *(_frame(header, {**good, **fault}) for fault in faults), None]


def frame(spark, values: list[bytes | None]) -> Any:
    rows = [(value, "people", 0, offset) for offset, value in enumerate(values)]
    return spark.createDataFrame(rows, "value binary, topic string, partition int, offset long")


def as_rows(rows: list[Any]) -> list[tuple[Any, Any]]:
    return [(row["value"].asDict(recursive=True) if row["value"] else None,
             row["value_error"] if "value_error" in row else None) for row in sorted(rows, key=lambda r: r["offset"])]


def failure_line(exc: BaseException) -> str:
    found = re.search(r"cannot decode value at [^\n]*", str(exc))
    assert found, exc
    return found.group(0)


@pytest.mark.parametrize("on_failure", ["ERROR,ERROR", "ERROR,NONE"])
def test_the_jvm_and_the_python_path_give_the_same_rows_and_errors(spark, live_server, on_failure, caplog):
    client = RegistryClient(live_server)
    subject = f"jd-{uuid.uuid4().hex[:8]}-value"
    client.register(subject, Schema(json.dumps(PERSON), rule_set=rules(f"kek_{uuid.uuid4().hex[:8]}", on_failure)))
    values = stored_records(client, subject)
    df = frame(spark, values)
    caplog.set_level(logging.INFO, logger="app.pipeline")

    def run(engine: str, on_error: str, data: Any = df) -> list[Any]:
        return decode(data, "value", client, subject=subject, engine=engine, on_error=on_error,
                      rule_config={"secret": SECRET}).collect()  # sorted here: no sampling job

    routed = {engine: as_rows(run(engine, "route")) for engine in ("jvm", "python")}
    assert routed["jvm"] == routed["python"]
    said = [record.getMessage() for record in caplog.records if record.name == "app.pipeline"]
    assert any("then decrypting jd.Person.ssn, jd.Person.photo, jd.Person.nickname, jd.Address.zip, jd.Person.pin "
               "on the JVM" in line for line in said), said
    rows = routed["jvm"]
    assert [value for value, _ in rows[:2]] == [ANN, BOB] and rows[-1] == (None, None)
    assert rows[9] == ({**BOB, "ssn": ANN["ssn"]}, None)
    if on_failure == "ERROR,NONE":
        assert all(error is None for _, error in rows)
        assert rows[2][0]["ssn"] == _fields(values[2])["ssn"]  # kept as stored: encrypted
        assert rows[2][0]["nickname"] is None and rows[2][0]["pin"] == "0000"
        failing = {engine: run(engine, "fail") for engine in ("jvm", "python")}
        assert as_rows(failing["jvm"]) == as_rows(failing["python"]) == [(value, None) for value, _ in rows]
        return
    errors = [error for number, (_, error) in enumerate(rows[:-1]) if number not in (0, 1, 9)]
    assert all(error and error.startswith("RuleFailed: READ rule 'encrypt-") for error in errors), errors
    assert "'encrypt-secret' (ENCRYPT)" in errors[-1]
    assert "no DEK for KEK" in errors[5] and errors[5].endswith("version 1000")
    pair = frame(spark, [values[0], values[2]])
    messages = {}
    for engine in ("jvm", "python"):
        with pytest.raises(PySparkException) as raised:
            run(engine, "fail", pair)
        messages[engine] = failure_line(raised.value)
    assert messages["jvm"] == messages["python"]
    assert messages["jvm"].startswith("cannot decode value at topic=people, partition=0, offset=1: RuleFailed")


def test_an_aes256_siv_rule_decrypts_in_the_python_workers_after_a_jvm_decode(spark, live_server, caplog):
    client = RegistryClient(live_server)
    subject = f"jd-siv-{uuid.uuid4().hex[:8]}-value"
    kek = f"kek_{uuid.uuid4().hex[:8]}"
    person = {"type": "record", "name": "Person", "namespace": "siv", "fields": [
        {"name": "ssn", "type": "string", "confluent:tags": ["PII"]}]}
    client.register(subject, Schema(json.dumps(person), rule_set=RuleSet(domain_rules=(Rule(
        "encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), (
            ("encrypt.dek.algorithm", "AES256_SIV"), ("encrypt.kek.name", kek), ("encrypt.kms.key.id", f"{kek}-key"),
            ("encrypt.kms.type", "local-kms"))),))))
    write = AvroSerializer(client, subject=subject, writer=UseLatest(), rule_config={"secret": SECRET})
    values = [write({"ssn": "123-45-6789"}), write({"ssn": "123-45-6789"})]
    assert values[0] == values[1]  # deterministic
    caplog.set_level(logging.INFO, logger="app.pipeline")
    out = decode(frame(spark, values), "value", client, subject=subject, engine="jvm",
                 rule_config={"secret": SECRET}).collect()
    assert [row["value"]["ssn"] for row in out] == ["123-45-6789"] * 2
    said = [record.getMessage() for record in caplog.records if record.name == "app.pipeline"]
    assert any(line.startswith("decoding on the JVM path") for line in said)
    assert any("then decrypting siv.Person.ssn in Spark's Python workers (rule 'encrypt-pii' uses AES256_SIV"
               in line for line in said), said


def test_the_keys_travel_in_an_owner_only_plan_file_and_nowhere_else(spark, live_server, caplog, capsys):
    from app.pipeline.jvm_decrypt import plan_jvm_decryption
    from app.pipeline.jvm_plans import plan_folder
    from app.pipeline.rule_plan import plan_rules

    client = RegistryClient(live_server)
    subject = f"jd-keys-{uuid.uuid4().hex[:8]}-value"
    client.register(subject, Schema(json.dumps(PERSON), rule_set=rules(f"kek_{uuid.uuid4().hex[:8]}", "ERROR,ERROR")))
    write = AvroSerializer(client, subject=subject, writer=UseLatest(), rule_config={"secret": SECRET})
    caplog.set_level(logging.DEBUG)
    decoded = decode(frame(spark, [write(dict(ANN))]), "value", client, subject=subject, engine="jvm",
                     rule_config={"secret": SECRET})
    assert decoded.collect()[0]["value"].asDict(recursive=True) == ANN
    decoded.explain(True)
    explained = capsys.readouterr().out
    assert "FieldDecryptUdf" in explained or "sqlregistry_avro_decrypt_" in explained
    plans = sorted(plan_folder(spark).path.glob("sqlregistry-decrypt-*.json"))
    keys = [key for path in plans for rule in json.loads(path.read_text())["rules"] for key in rule["keys"].values()]
    assert len(keys) >= 2 and all(len(key) == 64 for key in keys)  # AES-256 keys, as hex
    assert all(stat.S_IMODE(os.stat(path).st_mode) == 0o600 for path in plans)
    assert stat.S_IMODE(os.stat(plan_folder(spark).path).st_mode) == 0o700
    logged = "\n".join(f"{record.getMessage()} {record.args!r}" for record in caplog.records)
    schema = client.get_latest_version(subject)
    planned = plan_jvm_decryption(client, schema.schema, plan_rules(client, subject, schema.schema, schema.version,
                                                                    {"secret": SECRET}), streaming=False)
    for key in keys:
        for text in (explained.lower(), logged.lower(), repr(planned).lower()):
            assert key not in text



def test_a_stream_whose_deks_rotate_is_decrypted_in_the_python_workers(live_server):
    """A DEK version made after a stream started is one the driver could not give the JVM."""
    from app.pipeline.jvm_decrypt import plan_jvm_decryption
    from app.pipeline.rule_plan import plan_rules

    client = RegistryClient(live_server)
    subject = f"jd-stream-{uuid.uuid4().hex[:8]}-value"
    client.register(subject, Schema(json.dumps(PERSON), rule_set=rules(f"kek_{uuid.uuid4().hex[:8]}", "ERROR,ERROR")))
    AvroSerializer(client, subject=subject, writer=UseLatest(), rule_config={"secret": SECRET})(dict(ANN))
    schema = client.get_latest_version(subject)
    planned = plan_rules(client, subject, schema.schema, schema.version, {"secret": SECRET})
    assert plan_jvm_decryption(client, schema.schema, planned, streaming=False).plan is not None
    streamed = plan_jvm_decryption(client, schema.schema, planned, streaming=True)
    assert streamed.plan is None
    assert streamed.reason == ("rule 'encrypt-pii' rotates DEKs (encrypt.dek.expiry.days), and a stream may meet "
                               "a DEK version made after the job started")
