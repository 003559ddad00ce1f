"""A DEK is fetched once per Python worker and key, never per record, batch or task: the
workers keep their rule-running decoders (and the client's per-process caches) across tasks.
Counted on a real HTTP registry in-process (support/counting.py), which records which process
sent each request, over jobs of several partitions and dozens of Arrow batches, on both rule
paths (ENCRYPT'd columns after the JVM decode, AES256_SIV so that the Python workers decrypt
them; every record through the client). When the JVM decrypts (AES-GCM), the driver fetches
each DEK once and no worker asks for it."""
from __future__ import annotations

import json
import os
import uuid
from collections import Counter

import pytest
from test_worker_schema_fetches import command_of, python_workers

from app.client import AvroSerializer, RegistryClient, UseLatest
from app.client.records import Rule, RuleSet, Schema
from app.pipeline import decode

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

SECRET = "dek-count-secret"
RECORDS, TASKS = 600, 6
PERSON = json.dumps({"type": "record", "name": "Person", "fields": [
    {"name": "name", "type": "string"}, {"name": "ssn", "type": "string", "confluent:tags": ["PII"]},
    {"name": "age", "type": "int"}]})


def encrypted(spark, url: str, subject: str, *extra: Rule, algorithm: str = "AES256_GCM"):
    kek = f"kek_{uuid.uuid4().hex[:8]}"
    client = RegistryClient(url)
    client.register(subject, Schema(PERSON, rule_set=RuleSet(domain_rules=(Rule(
        "encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), (
            ("encrypt.dek.algorithm", algorithm), ("encrypt.kek.name", kek), ("encrypt.kms.key.id", "k"),
            ("encrypt.kms.type", "local-kms"))), *extra))))
    write = AvroSerializer(client, subject=subject, writer=UseLatest(), rule_config={"secret": SECRET})
    rows = [(n, write({"name": f"p{n}", "ssn": f"ssn-{n}", "age": n % 90})) for n in range(RECORDS)]
    return spark.createDataFrame(rows, "n long, value binary").repartition(TASKS)


def test_each_dek_is_fetched_at_most_once_per_worker_on_both_rule_paths(spark, counting_registry):
    fields = encrypted(spark, counting_registry.url, "dek-fields-value", algorithm="AES256_SIV")
    records = encrypted(spark, counting_registry.url, "dek-records-value",
                        Rule("any-age", "CONDITION", "READ", "CEL", expr="message.age >= 0"))
    counting_registry.identify_senders()
    previous = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "25")  # several batches per task
    try:
        for subject, df in (("dek-fields-value", fields), ("dek-records-value", records)):
            out = decode(df, "value", RegistryClient(counting_registry.url), subject=subject,
                         rule_config={"secret": SECRET}).collect()
            assert sorted(row["value"]["ssn"] for row in out) == sorted(f"ssn-{n}" for n in range(RECORDS))
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", previous)
    deks = [s for s in counting_registry.sent if s.method == "GET" and "/deks/" in s.target]
    per_worker = Counter((s.pid, s.target) for s in deks)
    assert {target.split("/deks/")[1].split("/")[0] for _, target in per_worker} == {"dek-fields-value",
                                                                                     "dek-records-value"}
    assert set(per_worker.values()) == {1}, per_worker
    senders = {s.pid for s in deks}
    assert os.getpid() not in senders and all("pyspark.daemon" in command_of(pid) for pid in senders), senders
    assert len(senders) <= python_workers() < TASKS


def test_when_the_jvm_decrypts_the_driver_fetches_each_dek_once_and_no_worker_asks(spark, counting_registry):
    df = encrypted(spark, counting_registry.url, "dek-jvm-value")
    counting_registry.identify_senders()
    out = decode(df, "value", RegistryClient(counting_registry.url), subject="dek-jvm-value", engine="jvm",
                 rule_config={"secret": SECRET}).collect()
    assert sorted(row["value"]["ssn"] for row in out) == sorted(f"ssn-{n}" for n in range(RECORDS))
    deks = [s for s in counting_registry.sent if s.method == "GET" and "/deks/" in s.target]
    assert [s.pid for s in deks] == [os.getpid()], deks
