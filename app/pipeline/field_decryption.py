"""The fields path of a decode with rules: ENCRYPT'd field columns decrypted after the decode.

When the only READ rules are field-level ENCRYPT rules (`app.pipeline.rule_plan`), records
decode as they would without rules (on the JVM for Avro), the encrypted fields coming out as
stored (base64 text for a string, the bytes for bytes), and then only those field columns are
decrypted and the decoded struct is rebuilt with `withField`: by the JVM when the driver could
plan it (`app.pipeline.jvm_decrypt`, which also runs this module's `FieldDecryptor` on the
driver to learn how the client words a failure), else in Spark's Python workers, a batch at a
time, in one Arrow UDF. No row crosses into Python whole.

Each worker keeps one `FieldDecryptor` per (registry, reader, fields, rule configuration)
across tasks. Each column goes through its rule's `app.client` ENCRYPT executor whole
(`FieldEncryptionExecutor.decrypt_column`: the client's DEK lookups, KMS unwrap and Tink
primitives, each DEK version's primitive found once per batch, and the client's per-process
caches, so a DEK is fetched and unwrapped once per worker and key). A value that does not
decrypt is left as it was and its row runs again alone through the client's own `RuleRunner`
(a `ColumnWalker` over that row's values): the rule's onFailure action then decides exactly as
in a client deserializer (NONE keeps the stored value; ERROR fails the row: routed, or the job
stops naming the record).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from app.client import RegistryClient, Schema, SchemaNotFound, SerializationError
from app.client.records import Rule
from app.client.rules.context import READ, FieldTransform, FieldType, RuleContext
from app.client.rules.execution import DOMAIN, RuleRunner
from app.client.serde import rule_runner
from app.pipeline.formats.writer_cache import kept_in_worker
from app.pipeline.jvm_decode import record_position
from app.pipeline.rule_decoder import job_failure
from app.pipeline.rule_plan import DecodeRules, EncryptedField

_CLEAR = "__sqlregistry_clear"
_ERROR = "error"


class ColumnWalker:
    """A field walker over some rows: the message is {field full name: those rows' values}."""

    def __init__(self, fields: tuple[EncryptedField, ...]) -> None:
        self.fields = fields

    def walk(self, ctx: RuleContext, message: dict[str, list[Any]], transform: FieldTransform) -> Any:
        out = dict(message)
        for found in self.fields:
            entered = ctx.enter_field(None, found.full_name, found.path[-1], _field_type(found), found.inline_tags)
            try:
                if ctx.selects(entered):
                    out[found.full_name] = [transform(ctx, entered, value) for value in message[found.full_name]]
            finally:
                ctx.exit_field()
        return out


def _field_type(found: EncryptedField) -> FieldType:
    return FieldType.BYTES if found.binary else FieldType.STRING


class FieldDecryptor:
    """One worker's decryption of a job's ENCRYPT'd fields, a batch of columns at a time (and, on the
    driver, the probes that show `app.pipeline.jvm_decrypt` how the client fails a value)."""

    def __init__(self, client: RegistryClient, reader: Schema, rules: DecodeRules) -> None:
        assert rules.subject is not None and reader.rule_set is not None
        self.runner: RuleRunner = rule_runner(client, rules.config, None, None)
        self.reader, self.rules, self.subject = reader, rules, rules.subject
        self.fields = rules.fields
        domain = tuple(reversed(reader.rule_set.domain_rules))  # READ runs them in reverse, as the runner does
        self.contexts = [self._context(domain, found.rule) for found in self.fields]
        self.executor = self.runner.executors.executor("ENCRYPT")

    def _context(self, rules: tuple[Rule, ...], name: str) -> RuleContext:
        index = next(index for index, rule in enumerate(rules) if rule.name == name and rule.type == "ENCRYPT")
        return RuleContext(self.subject, self.rules.reader_version, READ, rules[index], index, rules, None,
                           self.reader, self.runner.config, None, self.runner.registry, self.runner.config_digest)

    def decrypt(self, columns: list[list[Any]], bad: Callable[[int, Exception], None]) -> list[list[Any]]:
        """The columns' values in clear (rows that fail: as `bad` leaves them)."""
        out: list[list[Any]] = []
        failed: set[int] = set()
        for found, ctx, values in zip(self.fields, self.contexts, columns):
            clear, refused = self.executor.decrypt_column(ctx, _field_type(found), values)
            out.append(clear)
            failed |= refused
        names = [found.full_name for found in self.fields]
        for row in sorted(failed):
            try:
                alone = self.runner.run(READ, DOMAIN, self.subject, self.rules.reader_version, None, self.reader,
                                        {name: [column[row]] for name, column in zip(names, columns)},
                                        ColumnWalker(self.fields))
            except (SerializationError, SchemaNotFound) as exc:
                failure = job_failure(exc)
                if failure is not None:
                    raise failure from exc
                bad(row, exc)
                continue
            for index, name in enumerate(names):
                out[index][row] = alone[name][0]
        return out


def _field_column(output: str, found: EncryptedField) -> Column:
    column = F.col(output)
    for name in found.path:
        column = column.getField(name)
    return column


def decrypt_fields(df: DataFrame, registry: RegistryClient, reader: Schema, rules: DecodeRules, *, column: str,
                   output: str, on_error: str, position: list[str],
                   jvm_clear: Callable[[Column], Column] | None = None) -> DataFrame:
    """`df` (decoded, `output` the reader's struct) with the fields of `rules` decrypted, in
    the Python workers, or by `jvm_clear` (`app.pipeline.jvm_decrypt`): a function of a struct
    of the fields' stored values giving struct(f0, f1, ..., error) as the Python UDF does."""
    fields = rules.fields
    stored = [_field_column(output, found) for found in fields]
    if jvm_clear is not None:
        staged = df.withColumn(_CLEAR, jvm_clear(F.struct(*[value.alias(f"f{index}")
                                                           for index, value in enumerate(stored)])))
    else:
        staged = df.withColumn(_CLEAR, _python_udf(registry, reader, rules)(*stored))
    value = F.col(output)
    for index, found in enumerate(fields):
        value = value.withField(".".join(found.path), F.col(_CLEAR)[f"f{index}"])
    error = F.col(_CLEAR)[_ERROR]
    if on_error == "route":
        error_column = f"{output}_error"
        staged = staged.withColumn(output, F.when(error.isNull(), value)) \
            .withColumn(error_column, F.coalesce(F.col(error_column), error))
    else:
        # As the JVM path stops a job: Spark's raise_error, naming the record's position.
        message = F.concat(F.lit(f"cannot decode {column}"), record_position(position), F.lit(": "), error)
        staged = staged.withColumn(output, F.when(error.isNull(), value).otherwise(F.raise_error(message)))
    return staged.drop(_CLEAR)


def _python_udf(registry: RegistryClient, reader: Schema, rules: DecodeRules) -> Callable[..., Column]:
    """The Arrow UDF decrypting the fields' columns a batch at a time in the Python workers."""
    fields = rules.fields
    types = [pa.binary() if found.binary else pa.string() for found in fields]
    result = T.StructType([T.StructField(f"f{index}", T.BinaryType() if found.binary else T.StringType(), True)
                           for index, found in enumerate(fields)] + [T.StructField(_ERROR, T.StringType(), True)])
    key = ("fields", reader.text, rules.subject, rules.reader_version, fields, rules.config_key)

    def decrypt(*arrays: pa.Array) -> pa.Array:
        decryptor = kept_in_worker(registry, key, lambda client: FieldDecryptor(client, reader, rules))
        values = [array.to_pylist() for array in arrays]
        errors: list[str | None] = [None] * len(arrays[0])

        def bad(row: int, exc: Exception) -> None:
            errors[row] = f"{type(exc).__name__}: {exc}"

        clear = decryptor.decrypt(values, bad)
        arrays_out = [pa.array(items, type=kind) for items, kind in zip(clear, types)]
        arrays_out.append(pa.array(errors, type=pa.string()))
        return pa.StructArray.from_arrays(arrays_out, names=[field.name for field in result.fields])

    return F.arrow_udf(decrypt, result)
