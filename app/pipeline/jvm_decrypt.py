"""The fields path's decryption on the JVM: AES-GCM field values decrypted by a Java UDF.

Decrypting in the Python workers costs a round trip of every record through Arrow, more than
the decode itself, and so does any Python UDF left in the plan, even one fed nulls. So when the
decode runs on the JVM and every ENCRYPT rule of the job uses an AES-GCM DEK (AES256_GCM,
AES128_GCM), the JVM does it all, as the client would, from what the driver finds once before
any Spark work:

- the keys a client reading these records uses, through the client's own executor
  (`FieldEncryptionExecutor.gcm_keys`: KEK, DEK version 1, or every version the DEK API lists
  when DEKs rotate, KMS unwrap);
- what each rule does with a value that does not decrypt, and how the client words it: the
  driver runs one probe record per rule (a value that fails the tag) and, when DEKs rotate,
  probes of DEK versions the registry lacks, through the very code the Python workers run
  (`FieldDecryptor`), and keeps the answer: none (onFailure NONE keeps the rule's stored
  values) or the row's error, whose reason then varies only by the client's fixed texts
  (`app.client.rules.encryption`: not base64, too short for a version, not authentic, not
  UTF-8) and by the DEK version.

The keys and texts travel as the decoder's plans do (`app.pipeline.jvm_plans`: an owner-only
file added with `SparkContext.addFile`, named by a digest of its content); keys are never in a
Spark expression, a log line, an exception or a repr. The Java UDF (`FieldDecryptUdf.java`)
returns the record's fields in clear and the error, as the Python UDF does.

The Python workers decrypt instead (the log line says why) when the driver cannot find the keys
(a KMS only the workers reach, no KEK), a rule uses AES256_SIV (Tink's alone here), a rule's
onFailure is an action the probes do not show, or the input is a stream whose DEKs rotate: a
DEK version made after the job started is one the driver could not see.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Mapping

from pyspark.sql import Column, SparkSession
from pyspark.sql import types as T

from app.client import RegistryClient, Schema
from app.client.rules.encryption import DEK_ALGORITHM, GCM_ALGORITHMS, NO_VERSION, NOT_BASE64, NOT_UTF8, \
    UNDECRYPTABLE, GcmKeys
from app.pipeline.field_decryption import FieldDecryptor
from app.pipeline.jvm_plans import plan_call
from app.pipeline.rule_plan import DecodeRules, EncryptedField

DECRYPT_CLASS = "org.sqlregistry.pipeline.FieldDecryptUdf"
_TAG_AND_IV = 28
# DEK versions no registry holds, in the two ranges a registry may answer differently (a version
# above 2**31 - 1 is no valid version number at all): each range is probed twice.
_ABSENT_PROBES = ((2**31 - 3, 2**31 - 2), (2**31, 2**32 - 1))


class NotOnJvm(Exception):
    """Why the JVM cannot decrypt a job's fields as the client would: the Python workers do."""


@dataclass(frozen=True)
class JvmDecryption:
    """Whether the JVM decrypts a job's fields and why (as logged); `plan` is what its
    executors read, key material included (None: the Python workers decrypt)."""

    reason: str
    plan: Mapping[str, object] | None = field(default=None, repr=False)


def plan_jvm_decryption(registry: RegistryClient, reader: Schema, rules: DecodeRules, *,
                        streaming: bool) -> JvmDecryption:
    """The JVM's plan for the fields of `rules`, found on the driver, or why there is none."""
    assert reader.rule_set is not None
    decryptor = FieldDecryptor(registry, reader, rules)
    used = {found.rule for found in rules.fields}
    # In the order READ runs them (the reverse of the rule set's), as the client's runner does.
    order = [rule.name for rule in reversed(reader.rule_set.domain_rules) if rule.name in used]
    planned: list[dict[str, object]] = []
    try:
        for name in order:
            planned.append(_rule_plan(decryptor, name, streaming))
    except NotOnJvm as exc:
        return JvmDecryption(str(exc))
    except Exception as exc:  # noqa: BLE001 - what stops the driver may not stop the workers
        return JvmDecryption(f"the driver cannot plan the decryption: {type(exc).__name__}: {exc}")
    plan = {"rules": planned,
            "fields": [{"rule": order.index(found.rule), "binary": found.binary} for found in rules.fields]}
    return JvmDecryption("the driver found the AES-GCM keys of " + ", ".join(repr(name) for name in order), plan)


def _rule_plan(decryptor: FieldDecryptor, name: str, streaming: bool) -> dict[str, object]:
    index = next(index for index, found in enumerate(decryptor.fields) if found.rule == name)
    ctx = decryptor.contexts[index]
    algorithm = ctx.parameter(DEK_ALGORITHM) or "AES256_GCM"
    if algorithm not in GCM_ALGORITHMS:
        raise NotOnJvm(f"rule {name!r} uses {algorithm}, which the JVM does not decrypt")
    keys = decryptor.executor.gcm_keys(ctx)
    if keys.versioned and streaming:
        raise NotOnJvm(f"rule {name!r} rotates DEKs (encrypt.dek.expiry.days), and a stream may meet a DEK "
                       "version made after the job started")
    plan: dict[str, object] = {"versioned": keys.versioned,
                               "keys": {str(version): key.hex() for version, key in sorted(keys.keys.items())}}
    known = min(keys.keys, default=1)
    error = _probe(decryptor, index, _stored(keys, known, bytes(_TAG_AND_IV)))
    if error is None:
        plan["fail"] = None  # onFailure NONE: the rule's values stay as stored
        return plan
    if not error.endswith(UNDECRYPTABLE):
        raise NotOnJvm(f"rule {name!r} fails a record with an action the JVM does not take: {error}")
    prefix = error[:-len(UNDECRYPTABLE)]
    fail: dict[str, Any] = {"not_base64": prefix + NOT_BASE64, "no_version": prefix + NO_VERSION,
                            "undecryptable": error, "not_utf8": prefix + NOT_UTF8}
    if keys.versioned:
        fail["no_dek"] = [_absent(decryptor, index, keys, name, pair) for pair in _ABSENT_PROBES]
    plan["fail"] = fail
    return plan


def _stored(keys: GcmKeys, version: int, body: bytes) -> bytes:
    return b"\x00" + version.to_bytes(4, "big") + body if keys.versioned else body


def _probe(decryptor: FieldDecryptor, index: int, stored: bytes) -> str | None:
    """The error the Python workers give a record whose only value is `stored` in field
    `index`; None when they keep the record (its values as stored)."""
    found = decryptor.fields[index]
    value: bytes | str = stored if found.binary else base64.b64encode(stored).decode("ascii")
    columns: list[list[Any]] = [[value if number == index else None] for number in range(len(decryptor.fields))]
    errors: list[str] = []
    clear = decryptor.decrypt(columns, lambda row, exc: errors.append(f"{type(exc).__name__}: {exc}"))
    if errors:
        return errors[0]
    if clear != columns:
        raise NotOnJvm(f"rule {found.rule!r} decrypted a probe that should not decrypt")
    return None


def _absent(decryptor: FieldDecryptor, index: int, keys: GcmKeys, name: str, pair: tuple[int, int]) -> list[str]:
    """The error for a DEK version the plan lacks, as the parts around the version's digits,
    checked on two versions of the range."""
    first, second = pair
    if first in keys.keys or second in keys.keys:
        raise NotOnJvm(f"rule {name!r} has DEK version {first} or {second}")
    found = [_probe(decryptor, index, _stored(keys, version, bytes(_TAG_AND_IV))) for version in pair]
    if found[0] is None or found[1] is None:
        raise NotOnJvm(f"rule {name!r} keeps a record whose DEK version is missing but fails a tampered one")
    parts = found[0].split(str(first))
    if len(parts) < 2 or str(second).join(parts) != found[1]:
        raise NotOnJvm(f"rule {name!r} words a missing DEK version in a way the JVM cannot repeat: {found[1]}")
    return parts


def clear_type(fields: tuple[EncryptedField, ...]) -> T.StructType:
    """The JVM's result: the fields' values in clear (`f0`, `f1`, ... in order) and the error."""
    return T.StructType([T.StructField(f"f{index}", T.BinaryType() if found.binary else T.StringType(), True)
                         for index, found in enumerate(fields)] + [T.StructField("error", T.StringType(), True)])


def jvm_clear(spark: SparkSession, decryption: JvmDecryption, fields: tuple[EncryptedField, ...],
              stored: Column) -> Column:
    """The Java UDF over `stored` (a struct of the fields' stored values, in order)."""
    assert decryption.plan is not None
    return plan_call(spark, "decrypt", dict(decryption.plan), DECRYPT_CLASS, clear_type(fields), stored)
