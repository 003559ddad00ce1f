"""The fields path of a decode with rules: ENCRYPT'd field columns decrypted after the decode.

When the only READ rules are field-level ENCRYPT rules (`app.pipeline.rule_plan`), records
decode as they would without rules (on the JVM for Avro), the encrypted fields coming out as
stored (base64 text for a string, the bytes for bytes), and then only those field columns go
to Spark's Python workers, a batch at a time, in one Arrow UDF; the decoded struct is rebuilt
with `withField`. No row crosses into Python whole.

Each worker keeps one `FieldDecryptor` per (registry, reader, fields, rule configuration)
across tasks. It runs the rules with `app.client`'s own `RuleRunner` and ENCRYPT executor over
a whole batch at once: the batch is the "message", and `ColumnWalker` hands each selected
column's values to the executor's field transform, so rule order, `disabled`, `enableAt`, DEK
versions, AES256_SIV and every cache are the client's (a DEK fetched and unwrapped once per
worker and key). A value that does not decrypt is set aside by the walker and its row is run
again alone, strictly, through the same runner: the rule's onFailure action then decides
exactly as in a client deserializer (NONE keeps the stored value; ERROR fails the row: routed,
or the job stops naming the record).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from app.client import RegistryClient, Schema, SchemaNotFound, SerializationError
from app.client.rules.context import READ, FieldContext, FieldTransform, FieldType, RuleContext
from app.client.rules.execution import DOMAIN, RuleRunner
from app.client.serde import rule_runner
from app.pipeline.formats.writer_cache import kept_decoder
from app.pipeline.rule_decoder import job_failure
from app.pipeline.rule_plan import DecodeRules, EncryptedField

_CLEAR = "__sqlregistry_clear"
_ERROR = "error"


class ColumnWalker:
    """A field walker over a batch: the message is {field full name: the column's values}. With
    `failed` given, a value whose transform raises stays as it was and its row is noted."""

    def __init__(self, fields: tuple[EncryptedField, ...], failed: set[int] | None) -> None:
        self.fields, self.failed = fields, failed

    def walk(self, ctx: RuleContext, message: dict[str, list[Any]], transform: FieldTransform) -> Any:
        out = dict(message)
        for found in self.fields:
            entered = ctx.enter_field(None, found.full_name, found.path[-1],
                                      FieldType.BYTES if found.binary else FieldType.STRING, found.inline_tags)
            try:
                if ctx.selects(entered):
                    out[found.full_name] = self._each(ctx, entered, message[found.full_name], transform)
            finally:
                ctx.exit_field()
        return out

    def _each(self, ctx: RuleContext, entered: FieldContext, values: list[Any], transform: FieldTransform
              ) -> list[Any]:
        failed = self.failed
        if failed is None:
            return [transform(ctx, entered, value) for value in values]
        changed: list[Any] = []
        for row, value in enumerate(values):
            try:
                changed.append(transform(ctx, entered, value))
            except Exception:  # noqa: BLE001 - the row runs again alone, where its failure is judged
                failed.add(row)
                changed.append(value)
        return changed


class FieldDecryptor:
    """One worker's decryption of a job's ENCRYPT'd fields, a batch of columns at a time."""

    def __init__(self, client: RegistryClient, reader: Schema, rules: DecodeRules) -> None:
        assert rules.subject is not None
        self.runner: RuleRunner = rule_runner(client, rules.config, None, None)
        self.reader, self.rules, self.subject = reader, rules, rules.subject
        self.fields = rules.fields

    def _run(self, message: dict[str, list[Any]], walker: ColumnWalker) -> dict[str, list[Any]]:
        return self.runner.run(READ, DOMAIN, self.subject, self.rules.reader_version, None, self.reader, message,
                               walker)

    def decrypt(self, columns: list[list[Any]], bad: Callable[[int, Exception], None]) -> list[list[Any]]:
        """The columns' values in clear (rows that fail: as `bad` leaves them)."""
        names = [found.full_name for found in self.fields]
        failed: set[int] = set()
        clear = self._run(dict(zip(names, columns)), ColumnWalker(self.fields, failed))
        out = [list(clear[name]) for name in names]
        for row in sorted(failed):
            try:
                alone = self._run({name: [column[row]] for name, column in zip(names, columns)},
                                  ColumnWalker(self.fields, None))
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
                   output: str, on_error: str, position: list[str]) -> DataFrame:
    """`df` (decoded, `output` the reader's struct) with the fields of `rules` decrypted."""
    fields = rules.fields
    types = [pa.binary() if found.binary else pa.string() for found in fields]
    result = T.StructType([T.StructField(f"f{index}", T.BinaryType() if found.binary else T.StringType(), True)
                           for index, found in enumerate(fields)] + [T.StructField(_ERROR, T.StringType(), True)])
    routing = on_error == "route"
    key = ("fields", reader.text, rules.subject, rules.reader_version, fields, rules.config_key)

    def decrypt(*arrays: pa.Array) -> pa.Array:
        decryptor = kept_decoder(registry, key, lambda client: FieldDecryptor(client, reader, rules))
        values = [array.to_pylist() for array in arrays[:len(fields)]]
        where = arrays[len(fields):]
        errors: list[str | None] = [None] * (len(values[0]) if values else 0)

        def bad(row: int, exc: Exception) -> None:
            if not routing:
                from app.pipeline.decode import BadRecord

                place = ", ".join(f"{name}={array[row].as_py()}" for name, array in zip(position, where)) \
                    if position else f"row {row} of its batch"
                raise BadRecord(f"cannot decode {column} at {place}: {exc}") from exc
            errors[row] = f"{type(exc).__name__}: {exc}"

        clear = decryptor.decrypt(values, bad)
        arrays_out = [pa.array(items, type=kind) for items, kind in zip(clear, types)]
        arrays_out.append(pa.array(errors, type=pa.string()))
        return pa.StructArray.from_arrays(arrays_out, names=[field.name for field in result.fields])

    udf = F.arrow_udf(decrypt, result)
    inputs = [_field_column(output, found) for found in fields] + [F.col(name) for name in position]
    staged = df.withColumn(_CLEAR, udf(*inputs))
    value = F.col(output)
    for index, found in enumerate(fields):
        value = value.withField(".".join(found.path), F.col(_CLEAR)[f"f{index}"])
    if routing:
        error_column = f"{output}_error"
        failed = F.col(_CLEAR)[_ERROR].isNotNull()
        staged = staged.withColumn(output, F.when(failed, F.lit(None)).otherwise(value)) \
            .withColumn(error_column, F.coalesce(F.col(error_column), F.col(_CLEAR)[_ERROR]))
    else:
        staged = staged.withColumn(output, value)
    return staged.drop(_CLEAR)
