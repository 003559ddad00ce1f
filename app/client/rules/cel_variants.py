"""Confluent's CEL variant extension: `variant(...)` and the `variants.*` functions over values
of the Variant type (`confluent.type.Variant`, `app.client.rules.variant_codec`).

Two kinds of "nothing", as in Confluent's executors (and Spark's Variant): CEL `null` is a miss
(a missing field, an index out of bounds, a step into a value of another type), while a
Variant whose type is `null` is a JSON null that is there. `variants.field(v, "k") == null`
tells the first, `variants.isNull(...)` the second. Every function that takes a Variant gives
`null` for `null`, so that navigation chains compose past a miss.

The strict forms (`variants.parseJson`, `variants.as`) fail the rule on bad input, the `try`
forms give `null` instead; a malformed path, a misused argument or malformed variant bytes fail
the rule in both. A variant reaches an expression as a Variant from an Avro field of logical
type `variant` and from a Protobuf `confluent.type.Variant`; `variant(x)` also takes the
`{metadata, value}` map such a field is in a record.
"""
from __future__ import annotations

import datetime
import functools
from typing import Any, Callable

from celpy import CELEvalError, celtypes

from app.client.rules.variant_codec import Variant, VariantError, VariantKind, parse_json
from app.client.rules.variant_path import PathError, walk

VARIANT_MESSAGE = "confluent.type.Variant"
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_INTS = (VariantKind.BYTE, VariantKind.SHORT, VariantKind.INT, VariantKind.LONG)
_DECIMALS = (VariantKind.DECIMAL4, VariantKind.DECIMAL8, VariantKind.DECIMAL16)
_MICROS = (VariantKind.TIMESTAMP_TZ, VariantKind.TIMESTAMP_NTZ)
_NANOS = (VariantKind.TIMESTAMP_NANOS_TZ, VariantKind.TIMESTAMP_NANOS_NTZ)
# `variants.type`'s labels, which `variants.as` also takes (Confluent's CelTypeLabels).
_LABELS = {
    VariantKind.OBJECT: "object", VariantKind.ARRAY: "array", VariantKind.NULL: "null",
    VariantKind.BOOLEAN: "boolean", **{kind: "int" for kind in _INTS},
    VariantKind.FLOAT: "double", VariantKind.DOUBLE: "double", **{kind: "decimal" for kind in _DECIMALS},
    VariantKind.DATE: "date", VariantKind.TIME: "time", **{kind: "timestamp" for kind in _MICROS + _NANOS},
    VariantKind.STRING: "string", VariantKind.BINARY: "bytes", VariantKind.UUID: "uuid",
}
# Labels `variants.as` and `variants.tryAs` never extract (no CEL value stands for them).
_NOT_EXTRACTED = frozenset({"object", "array", "null", "date", "time", "uuid"})


def _cel_errors(function: Callable[..., Any]) -> Callable[..., Any]:
    """Malformed variant bytes fail the rule, as a CEL error naming what was wrong."""
    @functools.wraps(function)
    def checked(*args: Any) -> Any:
        try:
            return function(*args)
        except VariantError as exc:
            raise CELEvalError(str(exc)) from None
    return checked


def _message_parts(value: Any) -> tuple[bytes, bytes] | None:
    """(value, metadata) of a confluent.type.Variant message (or one celpy wraps), else None."""
    for candidate in (value, getattr(value, "msg", None)):
        if getattr(getattr(candidate, "DESCRIPTOR", None), "full_name", "") == VARIANT_MESSAGE:
            return bytes(candidate.value), bytes(candidate.metadata)
    return None


def _from_parts(value: bytes, metadata: bytes) -> Variant | None:
    """A variant, or None for a field left empty (an unset message, an Avro record of empty
    bytes), which every function then treats as a miss."""
    return Variant(value, metadata) if metadata else None


def as_variant(value: Any) -> Variant | None:
    """`value` as a Variant when it is one in another form: a confluent.type.Variant message, or
    another client's Variant object (confluent-kafka's Avro decoder makes those); else None."""
    if isinstance(value, Variant):
        return value
    parts = _message_parts(value)
    if parts is not None:
        return _from_parts(*parts)
    own_bytes = getattr(value, "standalone_value_bytes", None)
    metadata = getattr(value, "metadata", None)
    if callable(own_bytes) and isinstance(metadata, bytes):
        return _from_parts(bytes(own_bytes()), metadata)
    return None


def _bytes(value: Any, function: str) -> bytes:
    if not isinstance(value, (bytes, bytearray)):
        raise CELEvalError(f"{function}: expected bytes, got {_type_name(value)}")
    return bytes(value)


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _convert(value: Any) -> Variant | None:
    """`variant(dyn)`: a Variant as it is, a Variant message or `{metadata, value}` map as the
    Variant it holds, null as null; a string is refused (it is JSON to parse, not a value)."""
    if value is None:
        return None
    found = as_variant(value)
    if found is not None or _message_parts(value) is not None:
        return found
    if isinstance(value, dict):
        # (celpy's MapType.get raises on a missing key)
        metadata, raw = dict.get(value, "metadata"), dict.get(value, "value")
        if metadata is not None and raw is not None:
            return _from_parts(_bytes(raw, "variant"), _bytes(metadata, "variant"))
        if metadata is not None or raw is not None:
            missing = "value" if raw is None else "metadata"
            raise CELEvalError(f"variant: cannot convert a map to Variant: no '{missing}' entry")
    if isinstance(value, str):
        raise CELEvalError("variant(string) is not supported; use variants.parseJson(s) for strict JSON parsing "
                           "or variants.tryParseJson(s) for null on a parse failure")
    raise CELEvalError(f"variant: cannot convert {_type_name(value)} to Variant")


@_cel_errors
def make_variant(*args: Any) -> Variant | None:
    """`variant(dyn)` and `variant(value bytes, metadata bytes)`."""
    if len(args) == 2:
        metadata = _bytes(args[1], "variant(bytes, bytes)")
        if not metadata:
            raise CELEvalError("variant(bytes, bytes): the metadata is empty")
        return Variant(_bytes(args[0], "variant(bytes, bytes)"), metadata)
    if len(args) != 1:
        raise CELEvalError(f"variant: expected 1 or 2 args, got {len(args)}")
    return _convert(args[0])


def _variant_or_null(value: Any, function: str) -> Variant | None:
    if value is None or isinstance(value, Variant):
        return value
    try:
        return _convert(value)
    except CELEvalError:
        raise CELEvalError(f"{function}: expected Variant, got {_type_name(value)}") from None


def _text(value: Any, function: str, what: str) -> str:
    if not isinstance(value, str):
        raise CELEvalError(f"{function}: expected a string {what}, got {_type_name(value)}")
    return str(value)


def _parse_json(text: Any) -> Variant:
    try:
        return parse_json(_text(text, "variants.parseJson", "argument"))
    except VariantError as exc:
        raise CELEvalError(f"variants.parseJson: {exc}") from None


def _try_parse_json(text: Any) -> Variant | None:
    try:
        return parse_json(_text(text, "variants.tryParseJson", "argument"))
    except VariantError:
        return None


@_cel_errors
def _type(value: Any) -> celtypes.StringType | None:
    found = _variant_or_null(value, "variants.type")
    return None if found is None else celtypes.StringType(_LABELS[found.kind()])


@_cel_errors
def _is_null(value: Any) -> celtypes.BoolType:
    """True only for a Variant holding JSON null; never an error (null and non-variants are false)."""
    try:
        found = _variant_or_null(value, "variants.isNull")
    except CELEvalError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(found is not None and found.kind() == VariantKind.NULL)


@_cel_errors
def _path(value: Any, path: Any) -> Variant | None:
    text = _text(path, "variants.path", "path")
    found = _variant_or_null(value, "variants.path")
    if found is None:
        return None
    try:
        return walk(found, text)
    except PathError as exc:
        raise CELEvalError(f"variants.path: {exc}") from None


@_cel_errors
def _field(value: Any, key: Any) -> Variant | None:
    name = _text(key, "variants.field", "key")
    found = _variant_or_null(value, "variants.field")
    return None if found is None else found.field(name)


@_cel_errors
def _index(value: Any, index: Any) -> Variant | None:
    if isinstance(index, (bool, celtypes.BoolType, celtypes.UintType)) or not isinstance(index, int):
        raise CELEvalError(f"variants.index: expected an int index, got {_type_name(index)}")
    found = _variant_or_null(value, "variants.index")
    return None if found is None else found.element(int(index))  # out of bounds (negative too): a miss


def _timestamp(found: Variant) -> celtypes.TimestampType | None:
    """A variant timestamp at CEL's resolution (nanoseconds floored to micros); None outside
    the years 1 to 9999."""
    raw = found.scalar()
    micros = raw if found.kind() in _MICROS else raw // 1000
    try:
        return celtypes.TimestampType(_EPOCH + datetime.timedelta(microseconds=micros))
    except (OverflowError, ValueError):
        return None


def _extract(found: Variant, label: str) -> Any:
    """The typed value of `found` if it is of `label`'s type, else None (a mismatch)."""
    kind = found.kind()
    if label == "string" and kind == VariantKind.STRING:
        return celtypes.StringType(found.scalar())
    if label == "int" and kind in _INTS:
        return celtypes.IntType(found.scalar())
    if label == "double" and kind in (VariantKind.FLOAT, VariantKind.DOUBLE):
        return celtypes.DoubleType(found.scalar())
    if label == "boolean" and kind == VariantKind.BOOLEAN:
        return celtypes.BoolType(found.scalar())
    if label == "decimal" and kind in _DECIMALS:
        return found.scalar()
    if label == "bytes" and kind == VariantKind.BINARY:
        return celtypes.BytesType(found.scalar())
    return None


def _as(value: Any, label: Any, soft: bool) -> Any:
    function = "variants.tryAs" if soft else "variants.as"
    wanted = _text(label, function, "type")
    found = _variant_or_null(value, function)
    if found is None:
        return None
    if wanted in _NOT_EXTRACTED:
        raise CELEvalError(f"{function}: type '{wanted}' is not supported for extraction "
                           "(use variants.type/variants.path/variants.field/variants.index instead)")
    if wanted not in _LABELS.values():
        if soft:
            return None
        raise CELEvalError(f"{function}: unknown type '{wanted}' "
                           "(expected one of: string, int, double, boolean, decimal, timestamp, bytes)")
    kind = found.kind()
    if wanted == "timestamp" and kind in _MICROS + _NANOS:
        moment = _timestamp(found)
        if moment is None and not soft:
            raise CELEvalError(f"{function}: timestamp {found.scalar()} is outside the years 1 to 9999")
        return moment
    extracted = _extract(found, wanted)
    if extracted is None and not soft:
        raise CELEvalError(f"{function}: variant is not {wanted}-typed (type={kind.value})")
    return extracted


@_cel_errors
def _to_json(value: Any) -> celtypes.StringType | None:
    found = _variant_or_null(value, "variants.toJson")
    return None if found is None else celtypes.StringType(found.to_json())


VARIANT_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "variant": make_variant,
    "variants.parseJson": _parse_json, "variants.tryParseJson": _try_parse_json,
    "variants.type": _type, "variants.isNull": _is_null,
    "variants.path": _path, "variants.field": _field, "variants.index": _index,
    "variants.as": _cel_errors(lambda value, label: _as(value, label, soft=False)),
    "variants.tryAs": _cel_errors(lambda value, label: _as(value, label, soft=True)),
    "variants.toJson": _to_json,
}
