"""The confluent-kafka client against a registry with Basic authentication, configured the
two ways producers already are: `basic.auth.user.info`, and credentials in the URL. A wrong
password surfaces as SchemaRegistryError 401/401, which the client's users already handle."""
from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from auth_support import hashed, serve_with_auth_file
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from support.interop import context

PASSWORD = "p@ss:wörd/1"  # a colon, a non-ASCII letter and URL-reserved characters
AUTH_FILE = f"""
[[users]]
name = "producer"
password = "{hashed(PASSWORD)}"

[[grants]]
principal = "user:producer"
role = "write"
subjects = ["*"]
"""
REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = '{"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]}'


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    live = serve_with_auth_file(tmp_path_factory.mktemp("client-auth"), AUTH_FILE)
    try:
        yield live.url
    finally:
        live.stop()


def with_user_info(url: str, password: str = PASSWORD) -> SchemaRegistryClient:
    return SchemaRegistryClient({"url": url, "basic.auth.user.info": f"producer:{password}"})


def with_url_credentials(url: str, password: str = PASSWORD) -> SchemaRegistryClient:
    host = url.removeprefix("http://")
    return SchemaRegistryClient({"url": f"http://producer:{quote(password, safe='')}@{host}"})


@pytest.mark.parametrize("make", [with_user_info, with_url_credentials], ids=["user-info", "url"])
def test_the_client_registers_and_reads_back_with_basic_credentials(server_url: str, make, unique_subject):
    client = make(server_url)
    try:
        subject = unique_subject()
        schema_id = client.register_schema(subject, Schema(SCHEMA, "AVRO"))
        assert client.get_schema(schema_id).schema_str.replace(" ", "") == SCHEMA
        assert client.get_latest_version(subject).schema_id == schema_id
        assert subject in client.get_subjects()
    finally:
        client.close()


@pytest.mark.parametrize("make", [with_user_info, with_url_credentials], ids=["user-info", "url"])
def test_serializers_work_through_an_authenticated_client(server_url: str, make, unique_subject):
    client = make(server_url)
    try:
        topic = unique_subject("topic")
        serializer = AvroSerializer(client, SCHEMA)
        data = serializer({"id": 42}, context(topic))
        assert AvroDeserializer(client)(data, context(topic)) == {"id": 42}
    finally:
        client.close()


@pytest.mark.parametrize("make", [with_user_info, with_url_credentials], ids=["user-info", "url"])
def test_a_wrong_password_is_schema_registry_error_401_401(server_url: str, make, unique_subject):
    client = make(server_url, "not-the-password")
    try:
        with pytest.raises(SchemaRegistryError) as caught:
            client.register_schema(unique_subject(), Schema(SCHEMA, "AVRO"))
        assert (caught.value.http_status_code, caught.value.error_code) == (401, 401)
        assert caught.value.error_message == "Unauthorized"
    finally:
        client.close()


def test_no_credentials_is_schema_registry_error_401_401(server_url: str):
    client = SchemaRegistryClient({"url": server_url})
    try:
        with pytest.raises(SchemaRegistryError) as caught:
            client.get_subjects()
        assert (caught.value.http_status_code, caught.value.error_code) == (401, 401)
    finally:
        client.close()


def test_plain_gunicorn_wsgi_app_with_an_auth_file(tmp_path, unique_subject):
    """The issue's start-up form (without TLS): `python -m gunicorn -b ... -w 2 wsgi:app`
    with REGISTRY_AUTH_FILE and REGISTRY_DATABASE_URL in the environment."""
    from auth_support import write_file
    from support.live import launch
    from support.postgres import free_port

    port = free_port()
    database_url = f"sqlite:///{tmp_path / 'registry.db'}"
    subprocess.run([sys.executable, "-m", "app.cli", "db", "upgrade", "--database-url", database_url],
                   cwd=REPO_ROOT, check=True, capture_output=True)
    env = {"REGISTRY_AUTH_FILE": str(write_file(tmp_path / "auth.toml", AUTH_FILE)),
           "REGISTRY_DATABASE_URL": database_url}
    live = launch([sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "2", "wsgi:app"], port,
                  tmp_path / "server.log", env)
    try:
        client, intruder = with_user_info(live.url), with_user_info(live.url, "wrong")
        try:
            assert client.register_schema(unique_subject(), Schema(SCHEMA, "AVRO")) >= 1
            with pytest.raises(SchemaRegistryError) as caught:
                intruder.get_subjects()
            assert (caught.value.http_status_code, caught.value.error_code) == (401, 401)
        finally:
            client.close()
            intruder.close()
    finally:
        live.stop()
