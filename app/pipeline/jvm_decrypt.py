"""The fields path's decryption on the JVM: AES-GCM field values decrypted by a Java UDF.

Decrypting in the Python workers costs a round trip of every encrypted value through Arrow,
more than the decode itself. So when the decode runs on the JVM and every ENCRYPT rule of the
job uses an AES-GCM DEK (AES256_GCM, AES128_GCM), the driver finds, once before any Spark
work, the keys a client reading these records would use, through the client's own executor
(`FieldEncryptionExecutor.gcm_keys`: KEK, DEK versions, KMS unwrap), and the Java UDF
(`FieldDecryptUdf.java`) decrypts each record's fields with them. The keys travel as the
decoder's plans do (`app.pipeline.jvm_plans`: an owner-only file added with
`SparkContext.addFile`, named by a digest of its content); they are never in a Spark
expression, a log line, an exception or a repr.

The UDF gives a record's fields in clear, or null when any of them does not decrypt there (not
base64, a tampered value, a DEK version made after the job was planned, as a stream may meet).
Only those records' values go on to the Python workers (`app.pipeline.field_decryption`), where
the client decides and words the outcome, so the result is the client's to the byte.

When the driver cannot find the keys (AES256_SIV, which Tink alone decrypts here; a KMS the
driver cannot reach but the workers may; no KEK), the job decrypts in the Python workers as
before, and the log line says why.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from pyspark.sql import Column, SparkSession
from pyspark.sql import types as T

from app.client import RegistryClient, Schema
from app.client.rules.encryption import DEK_ALGORITHM, GCM_ALGORITHMS
from app.pipeline.field_decryption import FieldDecryptor
from app.pipeline.jvm_plans import plan_call
from app.pipeline.rule_plan import DecodeRules, EncryptedField

DECRYPT_CLASS = "org.sqlregistry.pipeline.FieldDecryptUdf"


@dataclass(frozen=True)
class JvmDecryption:
    """Whether the JVM decrypts a job's fields and why (as logged); `plan` is what its
    executors read, key material included (None: the Python workers decrypt everything)."""

    reason: str
    plan: Mapping[str, object] | None = field(default=None, repr=False)


def plan_jvm_decryption(registry: RegistryClient, reader: Schema, rules: DecodeRules) -> JvmDecryption:
    """The JVM's plan for the fields of `rules`, keys found on the driver, or why there is none."""
    decryptor = FieldDecryptor(registry, reader, rules)
    index: dict[str, int] = {}
    keyed: list[dict[str, object]] = []
    for found, ctx in zip(rules.fields, decryptor.contexts):
        if found.rule in index:
            continue
        algorithm = ctx.parameter(DEK_ALGORITHM) or "AES256_GCM"
        if algorithm not in GCM_ALGORITHMS:
            return JvmDecryption(f"rule {found.rule!r} uses {algorithm}, which the JVM does not decrypt")
        try:
            keys = decryptor.executor.gcm_keys(ctx)
        except Exception as exc:  # noqa: BLE001 - what stops the driver may not stop the workers
            return JvmDecryption(f"the driver cannot find rule {found.rule!r}'s keys: {type(exc).__name__}: {exc}")
        index[found.rule] = len(keyed)
        keyed.append({"versioned": keys.versioned,
                      "keys": {str(version): key.hex() for version, key in sorted(keys.keys.items())}})
    plan = {"rules": keyed, "fields": [{"rule": index[found.rule], "binary": found.binary} for found in rules.fields]}
    return JvmDecryption("the driver found the AES-GCM keys of " + ", ".join(repr(name) for name in index), plan)


def clear_type(fields: tuple[EncryptedField, ...]) -> T.StructType:
    """The struct of the fields' values in clear (bytes or strings), `f0`, `f1`, ... in order."""
    return T.StructType([T.StructField(f"f{index}", T.BinaryType() if found.binary else T.StringType(), True)
                         for index, found in enumerate(fields)])


def jvm_clear(spark: SparkSession, decryption: JvmDecryption, fields: tuple[EncryptedField, ...],
              stored: Column) -> Column:
    """The Java UDF over `stored` (a struct of the fields' stored values, in order): their
    values in clear, or null for a record the JVM leaves to the Python workers."""
    assert decryption.plan is not None
    return plan_call(spark, "decrypt", dict(decryption.plan), DECRYPT_CLASS, clear_type(fields), stored)
