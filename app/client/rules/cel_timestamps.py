"""Confluent's CEL timestamp extension: `timestamp(...)` also takes what a format's decoder
gives (a zoned `datetime`, a google.protobuf.Timestamp, epoch seconds as an int) and
`timestamp(epoch, precision)` with precision 0, 3, 6 or 9 (seconds, millis, micros, nanos);
`string(timestamp)` keeps the fraction celpy's rendering drops. Every other form (a string, or
the components `timestamp(2009, 2, 13)`) is CEL's own."""
from __future__ import annotations

import datetime
from typing import Any, Callable

from celpy import CELEvalError, celtypes, evaluation

_STANDARD: Callable[..., Any] = evaluation.base_functions.get("timestamp", celtypes.TimestampType)
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
# Microseconds per unit of each precision (datetime's resolution is a microsecond: nanos floor).
_PER_UNIT = {0: 1_000_000, 3: 1_000, 6: 1}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, (bool, celtypes.BoolType, celtypes.UintType))


def _after_epoch(micros: int, shown: str) -> celtypes.TimestampType:
    try:
        return celtypes.TimestampType(_EPOCH + datetime.timedelta(microseconds=micros))
    except (OverflowError, ValueError):
        raise CELEvalError(f"timestamp: {shown} out of range") from None


def _from_epoch(value: int, precision: int) -> celtypes.TimestampType:
    if precision == 9:
        micros = value // 1_000
    elif precision in _PER_UNIT:
        micros = value * _PER_UNIT[precision]
    else:
        raise CELEvalError(f"timestamp: unknown precision {precision}; expected 0 (seconds), "
                           f"3 (millis), 6 (micros) or 9 (nanos)")
    return _after_epoch(micros, f"epoch value {value}")


def _is_proto_timestamp(value: Any) -> bool:
    return getattr(getattr(value, "DESCRIPTOR", None), "full_name", "") == "google.protobuf.Timestamp"


def _from_one(value: Any) -> Any:
    if value is None:
        raise CELEvalError("timestamp: cannot convert null to Timestamp")
    if isinstance(value, (bool, celtypes.BoolType)):
        raise CELEvalError("timestamp: cannot convert bool to Timestamp")
    if isinstance(value, celtypes.TimestampType):
        return value
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:  # Avro's local-timestamp-*: no instant without a zone
            raise CELEvalError("timestamp: naive datetime (no timezone) cannot be converted")
        return celtypes.TimestampType(value)
    if _is_proto_timestamp(value):
        seconds, nanos = int(value.seconds), int(value.nanos)
        return _after_epoch(seconds * 1_000_000 + nanos // 1_000, f"proto Timestamp {seconds}s {nanos}ns")
    if isinstance(value, celtypes.UintType):
        raise CELEvalError("timestamp: expected an int epoch, got uint")
    if isinstance(value, int):
        return _from_epoch(int(value), 0)
    return _STANDARD(value)


def make_timestamp(*args: Any) -> Any:
    """`timestamp(value)`, `timestamp(epoch, precision)`, or CEL's components form."""
    if len(args) == 1:
        return _from_one(args[0])
    if len(args) == 2:
        for value, what in zip(args, ("epoch value", "precision")):
            if not _is_int(value):
                raise CELEvalError(f"timestamp: {what} must be int, got {type(value).__name__}")
        return _from_epoch(int(args[0]), int(args[1]))
    return _STANDARD(*args)


def render_timestamp(moment: datetime.datetime) -> str:
    """RFC 3339 in UTC, as protobuf's Timestamps.toString: the fraction in whole groups of three
    digits (none, millis or micros)."""
    utc = moment.astimezone(datetime.timezone.utc)
    fraction = "" if not utc.microsecond else (
        f".{utc.microsecond // 1000:03d}" if utc.microsecond % 1000 == 0 else f".{utc.microsecond:06d}")
    return f"{utc.year:04d}-{utc:%m-%dT%H:%M:%S}{fraction}Z"


TIMESTAMP_FUNCTIONS: dict[str, Callable[..., Any]] = {"timestamp": make_timestamp}
