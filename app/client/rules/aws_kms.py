"""The `aws-kms` driver: KEKs in AWS KMS, reached through boto3.

The key id is the key's ARN (`arn:aws:kms:REGION:ACCOUNT:key/ID`), whose region the client
uses. Credentials come from the rule configuration (`access.key.id` and
`secret.access.key`, or `profile`), else boto3's own chain (environment, files, instance
role); `AWS_ENDPOINT_URL_KMS` (or `endpoint.url` in the configuration) points it elsewhere,
as tests point it at a KMS on loopback. DEKs are wrapped with no encryption context, as
Confluent's driver wraps them, so either client unwraps the other's.

A KMS reply is read up to `MAX_REPLY_BYTES` (a wrap or unwrap answer is a few hundred bytes):
a longer one, from a wrong or hostile endpoint, fails the call instead of filling a producer's
or a Spark worker's memory, and an answer without the key material fails it too.
"""
from __future__ import annotations

from typing import Any, Mapping

import boto3
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.exceptions import BotoCoreError, ClientError

from app.client.rules.executors import RuleError

MAX_REPLY_BYTES = 64 * 1024


class KmsReplyTooLarge(BotoCoreError):
    fmt = "the KMS at {url} answered more than {limit} bytes"


class _Body:
    """A reply body already read, in the shape AWSResponse reads one from."""

    def __init__(self, content: bytes) -> None:
        self._content = content

    def stream(self, **_: Any) -> Any:
        yield self._content


def _bounded(send: Any) -> Any:
    """botocore's send, reading the reply as a stream up to MAX_REPLY_BYTES instead of whole."""

    def bounded_send(request: AWSPreparedRequest) -> AWSResponse:
        streamed = request.stream_output
        request.stream_output = True
        try:
            response = send(request)
        finally:
            request.stream_output = streamed
        if streamed:
            return response
        content = response.raw.read(MAX_REPLY_BYTES + 1)
        if len(content) > MAX_REPLY_BYTES:
            response.raw.close()
            raise KmsReplyTooLarge(url=request.url, limit=MAX_REPLY_BYTES)
        return AWSResponse(response.url, response.status_code, response.headers, _Body(content))

    return bounded_send


def _key_material(reply: Any, name: str, key_arn: str) -> bytes:
    value = reply.get(name) if isinstance(reply, dict) else None
    if not isinstance(value, (bytes, bytearray)) or not value:
        raise RuleError(f"AWS KMS answered without {name} for {key_arn}")
    return bytes(value)


class _AwsKeyAead:
    def __init__(self, client: Any, key_arn: str) -> None:
        self._client = client
        self._key_arn = key_arn

    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes:
        try:
            reply = self._client.encrypt(KeyId=self._key_arn, Plaintext=plaintext,
                                         EncryptionContext=_context(associated_data))
        except (ClientError, BotoCoreError) as exc:
            raise RuleError(f"AWS KMS refused to wrap a DEK with {self._key_arn}: {exc}") from None
        return _key_material(reply, "CiphertextBlob", self._key_arn)

    def decrypt(self, ciphertext: bytes, associated_data: bytes) -> bytes:
        try:
            reply = self._client.decrypt(KeyId=self._key_arn, CiphertextBlob=ciphertext,
                                         EncryptionContext=_context(associated_data))
        except (ClientError, BotoCoreError) as exc:
            raise RuleError(f"AWS KMS refused to unwrap a DEK with {self._key_arn}: {exc}") from None
        return _key_material(reply, "Plaintext", self._key_arn)


def _context(associated_data: bytes) -> dict[str, str]:
    return {"associatedData": associated_data.hex()} if associated_data else {}


class AwsKmsDriver:
    kms_type = "aws-kms"

    def aead(self, key_id: str, config: Mapping[str, str]) -> Any:
        parts = key_id.split(":")
        if len(parts) < 6 or parts[0] != "arn":
            raise RuleError(f"an aws-kms key id is a key ARN (arn:aws:kms:REGION:ACCOUNT:key/ID), got {key_id!r}")
        region = parts[3]
        access_key, secret_key = config.get("access.key.id"), config.get("secret.access.key")
        if access_key and secret_key:
            session = boto3.Session(region_name=region, aws_access_key_id=access_key,
                                    aws_secret_access_key=secret_key)
        elif config.get("profile"):
            session = boto3.Session(region_name=region, profile_name=config["profile"])
        else:
            session = boto3.Session(region_name=region)
        endpoint = config.get("endpoint.url")
        client = session.client("kms", endpoint_url=endpoint) if endpoint else session.client("kms")
        http = client._endpoint.http_session  # botocore has no public hook that bounds a read
        http.send = _bounded(http.send)
        return _AwsKeyAead(client, key_id)
