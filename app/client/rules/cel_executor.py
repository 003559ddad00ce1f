"""CEL and CEL_FIELD rules on cel-python, with the variables Confluent's executors bind.

CEL sees the whole record as `message`; CEL_FIELD sees each primitive field the rule selects
as `value`, with `name`, `fullName`, `typeName` (STRING, INT, ...), `tags` and the record
holding it as `message`. An expression `guard ; body` runs `body` only where `guard` holds
(elsewhere a CONDITION passes and a TRANSFORM leaves the value as it is), so one rule can
mask the field named `ssn` only: `name == 'ssn' ; 'XXX'`. Programs are compiled once per
expression and process and kept (module-level: executors stay picklable).
"""
from __future__ import annotations

import datetime
import uuid
from decimal import Decimal
from typing import Any

import celpy
from celpy import celtypes

from app.client.rules.avro_walker import AvroWalker
from app.client.rules.cel_decimals import DECIMAL_FUNCTIONS, as_decimal, decimal_parts
from app.client.rules.cel_format import FORMAT_FUNCTIONS
from app.client.rules.cel_functions import FUNCTIONS
from app.client.rules.cel_namespaces import NamespacedRunner
from app.client.rules.cel_timestamps import TIMESTAMP_FUNCTIONS
from app.client.rules.cel_variants import VARIANT_FUNCTIONS, VARIANT_MESSAGE, as_variant
from app.client.rules.context import CONDITION, FieldContext, RuleContext
from app.client.rules.executors import FieldRuleExecutor, RuleError
from app.client.rules.variant_codec import Variant

_ENVIRONMENT = celpy.Environment(runner_class=NamespacedRunner)
_PROGRAMS: dict[str, Any] = {}
# What an expression may call beyond CEL's standard library, as Confluent's executors give it.
_FUNCTIONS = {**FUNCTIONS, **FORMAT_FUNCTIONS, **DECIMAL_FUNCTIONS, **TIMESTAMP_FUNCTIONS, **VARIANT_FUNCTIONS}
_EPOCH_DAY = datetime.date(1970, 1, 1).toordinal()


def _program(expr: str) -> Any:
    found = _PROGRAMS.get(expr)
    if found is None:
        try:
            found = _ENVIRONMENT.program(_ENVIRONMENT.compile(expr), functions=_FUNCTIONS)
        except celpy.CELParseError as exc:
            raise RuleError(f"cannot parse the CEL expression {expr!r}: {exc}") from None
        found = _PROGRAMS.setdefault(expr, found)
    return found


def to_cel(value: Any) -> Any:
    """A record's value as CEL sees it, as Confluent's executor binds it: Avro dates as days
    since the epoch, decimals as `Decimal` (for `decimals.*`), Protobuf timestamps as CEL's,
    variants (a confluent.type.Variant, another client's Variant object) as a `Variant`."""
    if value is None:
        return None
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int):
        return celtypes.IntType(value)
    if isinstance(value, float):
        return celtypes.DoubleType(value)
    if isinstance(value, str):
        return celtypes.StringType(value)
    if isinstance(value, (bytes, bytearray)):
        return celtypes.BytesType(bytes(value))
    if isinstance(value, dict):
        return celtypes.MapType({celtypes.StringType(str(k)): to_cel(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return celtypes.ListType([to_cel(item) for item in value])
    if isinstance(value, datetime.datetime):
        return celtypes.TimestampType(value)
    if isinstance(value, datetime.timedelta):
        return celtypes.DurationType(value)
    if isinstance(value, datetime.date):
        return celtypes.IntType(value.toordinal() - _EPOCH_DAY)
    if isinstance(value, uuid.UUID):
        return celtypes.StringType(str(value))
    if isinstance(value, (Decimal, Variant)):
        return value
    if hasattr(value, "DESCRIPTOR") and hasattr(value, "ListFields"):  # a Protobuf message
        name = value.DESCRIPTOR.full_name
        if name == VARIANT_MESSAGE:
            return as_variant(value)
        if name == "google.protobuf.Timestamp":
            return celtypes.TimestampType(value.ToDatetime(tzinfo=datetime.timezone.utc))
        if name == "google.protobuf.Duration":
            return celtypes.DurationType(value.ToTimedelta())
        if name == "confluent.type.Decimal":
            return as_decimal(value)
        return _message_to_cel(value)
    found = as_variant(value)
    return value if found is None else found


def _message_to_cel(message: Any) -> Any:
    """A Protobuf message as a CEL map of its fields (every field, unset ones at their
    defaults, as CEL's protobuf binding reads them)."""
    out = {}
    for fd in message.DESCRIPTOR.fields:
        value = getattr(message, fd.name)
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            out[celtypes.StringType(fd.name)] = to_cel(dict(value))
        elif fd.is_repeated:
            out[celtypes.StringType(fd.name)] = to_cel(list(value))
        elif fd.message_type is not None and not message.HasField(fd.name):
            out[celtypes.StringType(fd.name)] = None
        else:
            out[celtypes.StringType(fd.name)] = to_cel(value)
    return celtypes.MapType(out)


def from_cel(value: Any) -> Any:
    """A CEL result as plain Python values (what fastavro and `json` write): a Variant as the
    `{metadata, value}` record an Avro variant field or a confluent.type.Variant holds."""
    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, (celtypes.IntType, celtypes.UintType)):
        return int(value)
    if isinstance(value, celtypes.DoubleType):
        return float(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, celtypes.BytesType):
        return bytes(value)
    if isinstance(value, dict):
        return {str(k): from_cel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_cel(item) for item in value]
    if isinstance(value, Variant):
        return {"metadata": value.metadata, "value": value.value_bytes()}
    return value


def evaluate(ctx: RuleContext, value: Any, variables: dict[str, Any]) -> Any:
    """The rule's expression (guard first, if it has one) over `variables`; `value` is what a
    TRANSFORM whose guard fails returns unchanged."""
    expr = ctx.rule.expr
    if expr is None:
        return True if ctx.rule.kind == CONDITION else value
    guard, sep, body = expr.partition(";")
    if sep:
        if guard.strip() and not run(guard, variables):
            return True if ctx.rule.kind == CONDITION else value
        expr = body
    return run(expr, variables)


def run(expr: str, variables: dict[str, Any]) -> Any:
    """One expression (no guard) over `variables`, its result as plain Python values; any
    failure a RuleError naming the expression."""
    program = _program(expr)
    if "now" in expr and "now" not in variables:
        variables["now"] = celtypes.TimestampType(datetime.datetime.now(tz=datetime.timezone.utc))
    try:
        result = program.evaluate(variables)
    except celpy.CELEvalError as exc:
        raise RuleError(f"CEL expression {expr.strip()!r} failed: {_reason(exc)}") from None
    if isinstance(result, celpy.CELEvalError):
        raise RuleError(f"CEL expression {expr.strip()!r} failed: {_reason(result)}")
    return from_cel(result)


def _reason(error: celpy.CELEvalError) -> str:
    """cel-python's message without the activation it appends (every variable's value: a
    record's fields, perhaps secrets, in an error message)."""
    text = str(error.args[0]) if error.args else type(error).__name__
    return text.split(" (in activation", 1)[0][:300]


class CelExecutor:
    """CEL over the whole record, bound to `message`. A TRANSFORM of a Protobuf message gives a
    map, made into a new message of the same type (fields the map leaves out are unset). An
    Avro record's variant fields are Variants here (the schema tells which they are)."""

    type = "CEL"

    def transform(self, ctx: RuleContext, message: Any) -> Any:
        bound = ctx.walker.with_variants(message) if isinstance(ctx.walker, AvroWalker) else message
        result = evaluate(ctx, message, {"message": to_cel(bound)})
        if ctx.rule.kind != CONDITION and isinstance(result, dict) and hasattr(message, "DESCRIPTOR"):
            return _as_message(result, type(message))
        return result


def _as_message(values: Any, message_type: Any) -> Any:
    """A message of `message_type` from a CEL result: a map of its fields, or for the types CEL
    sees as values (google.protobuf.Timestamp, confluent.type.Decimal) a timestamp or decimal."""
    out = message_type()
    if not isinstance(values, dict):
        _set_value(out, values)
        return out
    for name, value in values.items():
        fd = out.DESCRIPTOR.fields_by_name.get(name)
        if fd is None:
            raise RuleError(f"{out.DESCRIPTOR.full_name} has no field {name!r}")
        if value is None:
            continue
        target = getattr(out, name)
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            value_fd = fd.message_type.fields_by_name["value"]
            for key, item in value.items():
                if value_fd.message_type is not None:
                    target[key].CopyFrom(_as_message(item, type(target[key])))
                else:
                    target[key] = item
        elif fd.message_type is not None:
            items = value if fd.is_repeated else [value]
            for item in items:
                made = _as_message(item, type(target.add() if fd.is_repeated else target))
                if fd.is_repeated:
                    target[-1].CopyFrom(made)
                else:
                    target.CopyFrom(made)
        elif fd.is_repeated:
            target.extend(value)
        else:
            setattr(out, name, value)
    return out


def _set_value(out: Any, value: Any) -> None:
    name = out.DESCRIPTOR.full_name
    if name == "google.protobuf.Timestamp" and isinstance(value, datetime.datetime):
        out.FromDatetime(value if value.tzinfo is not None else value.replace(tzinfo=datetime.timezone.utc))
    elif name == "google.protobuf.Duration" and isinstance(value, datetime.timedelta):
        out.FromTimedelta(value)
    elif name == "confluent.type.Decimal" and isinstance(value, Decimal):
        out.value, out.precision, out.scale = decimal_parts(value)
    else:
        raise RuleError(f"cannot write a {type(value).__name__} to a {name}")


class CelFieldExecutor(FieldRuleExecutor):
    """CEL over each primitive field the rule selects (by its tags, or all fields without)."""

    type = "CEL_FIELD"

    def field_transform(self, ctx: RuleContext) -> Any:
        return _field_transform


def _field_transform(ctx: RuleContext, field: FieldContext, value: Any) -> Any:
    if not field.is_primitive():
        return value
    variables = {
        "value": to_cel(value), "fullName": celtypes.StringType(field.full_name),
        "name": celtypes.StringType(field.name), "typeName": celtypes.StringType(field.field_type.value),
        "tags": celtypes.ListType([celtypes.StringType(tag) for tag in sorted(field.tags)]),
        "message": to_cel(field.containing),
    }
    return evaluate(ctx, value, variables)
