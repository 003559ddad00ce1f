"""The `aws-kms` driver: KEKs in AWS KMS, reached through boto3.

The key id is the key's ARN (`arn:aws:kms:REGION:ACCOUNT:key/ID`), whose region the client
uses. Credentials come from the rule configuration (`access.key.id` and
`secret.access.key`, or `profile`), else boto3's own chain (environment, files, instance
role); `AWS_ENDPOINT_URL_KMS` (or `endpoint.url` in the configuration) points it elsewhere,
as tests point it at a KMS on loopback. DEKs are wrapped with no encryption context, as
Confluent's driver wraps them, so either client unwraps the other's.
"""
from __future__ import annotations

from typing import Any, Mapping

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from app.client.rules.executors import RuleError


class _AwsKeyAead:
    def __init__(self, client: Any, key_arn: str) -> None:
        self._client = client
        self._key_arn = key_arn

    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes:
        try:
            return bytes(self._client.encrypt(KeyId=self._key_arn, Plaintext=plaintext,
                                              EncryptionContext=_context(associated_data))["CiphertextBlob"])
        except (ClientError, BotoCoreError) as exc:
            raise RuleError(f"AWS KMS refused to wrap a DEK with {self._key_arn}: {exc}") from None

    def decrypt(self, ciphertext: bytes, associated_data: bytes) -> bytes:
        try:
            return bytes(self._client.decrypt(KeyId=self._key_arn, CiphertextBlob=ciphertext,
                                              EncryptionContext=_context(associated_data))["Plaintext"])
        except (ClientError, BotoCoreError) as exc:
            raise RuleError(f"AWS KMS refused to unwrap a DEK with {self._key_arn}: {exc}") from None


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
        return _AwsKeyAead(client, key_id)
