"""The records path of a decode with rules: each record through an `app.client` deserializer.

A Python worker keeps one client deserializer per (registry, format, reader, rule
configuration) across tasks (`app.pipeline.formats.writer_cache.kept_in_worker`), built with the
reader's `ReaderVersion` and the job's `rule_config`, so it runs a record exactly as a consumer's
deserializer does: the writer's READ encoding rules on the payload (ENCRYPT_PAYLOAD), the
migrations to the reader's version, then the READ domain rules (ENCRYPT fields decrypted, CEL,
CEL_FIELD, JSONATA). Its caches are per process, so a worker fetches each writer, each DEK and
each KMS unwrap once. The format then puts the record into the reader's Spark shape.

Who is at fault decides what follows. A rule that refuses a record (`RuleFailed`: a false
condition, a value that does not decrypt), like a record that does not decode, is the record's
fault: routed, or the job stops naming the record. A KMS or a registry that cannot be reached,
a missing library or KMS secret, is no record's: the job fails in either mode with one line
naming it (`RuleJobError`), rather than routing every record.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.client import ReaderVersion, Schema, SchemaNotFound, SerializationError
from app.client.errors import RegistryServerError, RegistryUnavailable, RuleFailed, RulesUnavailable
from app.pipeline.formats.format import BadRecordHook
from app.pipeline.rule_plan import DecodeRules

# botocore's names for a KMS endpoint that did not answer (botocore is only there with aws-kms).
_KMS_UNREACHABLE = {"EndpointConnectionError", "ConnectTimeoutError", "ReadTimeoutError", "ConnectionClosedError"}


class RuleJobError(RuntimeError):
    """A failure of a job's rules that no record caused; it fails the job in both modes."""


def _chain(exc: BaseException) -> list[BaseException]:
    """`exc` and what caused it, explicit or implicit (a driver that re-raised `from None`)."""
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def job_failure(exc: BaseException) -> RuleJobError | None:
    """The job's failure behind a rule's failure, when a service it needs did not answer (None:
    the record's own fault)."""
    rule = f" ({exc})" if isinstance(exc, RuleFailed) else ""
    for cause in _chain(exc):
        if isinstance(cause, RulesUnavailable):
            return RuleJobError(str(cause))
        if isinstance(cause, (RegistryUnavailable, RegistryServerError)):
            return RuleJobError(f"the registry cannot be reached for the rules: {cause}{rule}")
        if type(cause).__name__ in _KMS_UNREACHABLE or isinstance(cause, (ConnectionError, TimeoutError)):
            return RuleJobError(f"the KMS cannot be reached: {type(cause).__name__}: {cause}{rule}")
    return None


def rule_reader(reader: Schema, rules: DecodeRules) -> Schema | ReaderVersion:
    """What a client deserializer reads as: the reader's version of the subject (so that
    records of other versions migrate to it), or the reader schema itself when it is none."""
    if rules.subject is not None and rules.reader_version is not None:
        return ReaderVersion(rules.subject, rules.reader_version)
    return reader


class RuleRecordDecoder:
    """Framed bytes -> the client deserializer (rules included) -> the reader's Spark shape."""

    def __init__(self, deserialize: Callable[[bytes], Any], shape: Callable[[Any], Any]) -> None:
        self.deserialize, self.shape = deserialize, shape

    def decode_all(self, values: list[bytes | None], bad: BadRecordHook) -> list[Any]:
        decoded: list[Any] = [None] * len(values)
        deserialize, shape = self.deserialize, self.shape
        for row, data in enumerate(values):
            if data is None:
                continue
            try:
                decoded[row] = shape(deserialize(data))
            except (SerializationError, SchemaNotFound) as exc:
                failure = job_failure(exc)
                if failure is not None:
                    raise failure from exc
                bad(row, exc)
        return decoded
