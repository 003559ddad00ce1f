"""The aws-kms driver against a real KMS API on loopback (moto in server mode), both ways with
confluent-kafka's AWS driver: a DEK our serializer wraps under an AWS key, confluent-kafka's
deserializer unwraps, and the other way round, through the registry under gunicorn."""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import boto3
import pytest
from confluent_rules import context, deserializer, serializer
from moto.server import ThreadedMotoServer
from support.postgres import free_port

from app.client import AvroDeserializer, AvroSerializer, RegistryClient, UseLatest
from app.client.records import AVRO, Rule, RuleSet, Schema

pytestmark = pytest.mark.slow

SSN = "123-45-6789"
PERSON = json.dumps({"type": "record", "name": "Person", "fields": [
    {"name": "name", "type": "string"}, {"name": "ssn", "type": "string", "confluent:tags": ["PII"]}]})
CREDENTIALS = {"access.key.id": "testing", "secret.access.key": "testing"}


@pytest.fixture(scope="module")
def kms_url() -> Iterator[str]:
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture
def key_arn(kms_url: str) -> str:
    kms = boto3.client("kms", region_name="us-east-1", endpoint_url=kms_url, aws_access_key_id="testing",
                       aws_secret_access_key="testing")
    return str(kms.create_key(Description="rules interop")["KeyMetadata"]["Arn"])


@pytest.fixture
def confluent_aws(kms_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """confluent-kafka's AWS driver, pointed at the loopback KMS through boto3's endpoint variable."""
    from confluent_kafka.schema_registry.rules.encryption.awskms.aws_driver import AwsKmsDriver

    AwsKmsDriver.register()
    monkeypatch.setenv("AWS_ENDPOINT_URL_KMS", kms_url)


def setup(url: str, key_arn: str) -> tuple[str, str]:
    topic = f"aws-{uuid.uuid4().hex[:8]}"
    rule = Rule("encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), tuple(sorted({
        "encrypt.kek.name": f"aws_{uuid.uuid4().hex[:8]}", "encrypt.kms.type": "aws-kms",
        "encrypt.kms.key.id": key_arn}.items())))
    RegistryClient(url).register(f"{topic}-value", Schema(PERSON, AVRO, rule_set=RuleSet(domain_rules=(rule,))))
    return topic, f"{topic}-value"


def test_a_dek_we_wrap_with_aws_kms_confluent_unwraps(live_server: str, kms_url: str, key_arn: str,
                                                      confluent_aws: None) -> None:
    topic, subject = setup(live_server, key_arn)
    data = AvroSerializer(RegistryClient(live_server), subject=subject, writer=UseLatest(),
                          rule_config={**CREDENTIALS, "endpoint.url": kms_url})({"name": "ann", "ssn": SSN})
    assert SSN.encode() not in data
    assert deserializer(AVRO, live_server, CREDENTIALS)(data, context(topic)) == {"name": "ann", "ssn": SSN}


def test_a_dek_confluent_wraps_with_aws_kms_we_unwrap(live_server: str, kms_url: str, key_arn: str,
                                                      confluent_aws: None) -> None:
    topic, subject = setup(live_server, key_arn)
    data = serializer(AVRO, live_server, CREDENTIALS)({"name": "bob", "ssn": SSN}, context(topic))
    read = AvroDeserializer(RegistryClient(live_server), subject=subject,
                            rule_config={**CREDENTIALS, "endpoint.url": kms_url})
    assert read(data) == {"name": "bob", "ssn": SSN}
