"""Confluent's CEL decimal extension: the `decimal(...)` constructor, the `decimals.*` functions,
`string`/`double` of a decimal, and `==`, `!=` and `in` that compare decimals as numbers.

A decimal travels through CEL as a Python `Decimal` (an Avro decimal field arrives as one, as in
Confluent's executor), with Java's `BigDecimal` semantics that Confluent's clients share:
exact add, subtract, multiply and remainder; division and square root to 38 digits rounded
half-up; no NaN, infinity or negative zero; scales within Java's int. Widths past what a rule
could ever mean are refused as rule errors, so that one expression cannot exhaust memory
(`decimals.add(decimal("1e2000000000"), decimal("1"))` would need two billion digits).
"""
from __future__ import annotations

import decimal
from decimal import Decimal
from typing import Any, Callable

from celpy import CELEvalError, celtypes, evaluation

from app.client.rules.cel_timestamps import render_timestamp

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
# Division and square root: Java's MathContext(38, HALF_UP), with Python's exponent limits lifted
# so that any value the constructor accepts can be divided.
_ROUNDED = decimal.Context(prec=38, rounding=decimal.ROUND_HALF_UP, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
_EXACT = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
# Digits one operation may lay out (aligning operands, rescaling, rendering) and digits a
# (bytes, scale) coefficient may have (CPython's own int/str conversion limit).
_MOST_DIGITS = 10_000_000
_MOST_COEFFICIENT_DIGITS = 4300
_DECIMAL_MESSAGE = "confluent.type.Decimal"


def _fail(message: str) -> CELEvalError:
    return CELEvalError(message)


def _is_int(value: Any) -> bool:
    """A CEL int: not a bool or a uint, which Python also counts as ints."""
    return isinstance(value, int) and not isinstance(value, (bool, celtypes.BoolType, celtypes.UintType))


def _scale(value: Any, function: str) -> int:
    if not _is_int(value):
        raise _fail(f"{function}: scale must be int, got {type(value).__name__}")
    if not _INT_MIN <= int(value) <= _INT_MAX:
        raise _fail(f"{function}: scale out of int range: {int(value)}")
    return int(value)


def _exponent(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):
        raise _fail(f"decimal: not a finite number '{value}'")
    return exponent


def _digits(value: Decimal) -> int:
    """Digits in the coefficient, from the exponents (without laying the digits out)."""
    return value.adjusted() - _exponent(value) + 1


def _within(needed: int, function: str, what: str, limit: int = _MOST_DIGITS) -> None:
    if needed > limit:
        raise _fail(f"{function}: {what} needs {needed} digits, past this client's {limit}-digit limit")


def _unsigned_zero(value: Decimal) -> Decimal:
    """BigDecimal has no -0: `-0.00` is `0.00`."""
    return value.copy_abs() if value.is_zero() and value.is_signed() else value


def _parse(text: str, shown: Any) -> Decimal:
    """`new BigDecimal(text)`: finite, no underscores or surrounding blanks, scale an int."""
    refused = _fail(f"decimal: invalid number '{shown}'")
    if "_" in text or text.strip() != text:
        raise refused
    try:
        value = Decimal(text)
    except decimal.InvalidOperation:
        raise refused from None
    if not value.is_finite() or not -_INT_MAX <= _exponent(value) <= _INT_MAX:
        raise refused
    return _unsigned_zero(value)


def _unscaled(raw: bytes, scale: Any, function: str) -> Decimal:
    """A two's-complement big-endian coefficient at `scale` (Avro's and confluent.type.Decimal's)."""
    exponent = -_scale(scale, function)
    if raw:
        _within(len(raw) * 241 // 100 + 1, function, "the coefficient", _MOST_COEFFICIENT_DIGITS)
    return Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(exponent, context=_EXACT)


def _decimal_message(value: Any) -> Any:
    """The confluent.type.Decimal message `value` is (or wraps), else None."""
    for candidate in (value, getattr(value, "msg", None)):
        if getattr(getattr(candidate, "DESCRIPTOR", None), "full_name", "") == _DECIMAL_MESSAGE:
            return candidate
    return None


def as_decimal(value: Any) -> Decimal | None:
    """`value` if it is a decimal (a Decimal or a confluent.type.Decimal message), else None:
    never a conversion, since `1 == "1"` must not become a decimal comparison."""
    if isinstance(value, Decimal):
        return value
    message = _decimal_message(value)
    if message is not None:
        return _unscaled(bytes(message.value), int(message.scale), "decimal")
    return None


def decimal_parts(value: Decimal) -> tuple[bytes, int, int]:
    """A confluent.type.Decimal's `value` (the unscaled integer in BigInteger.toByteArray's
    minimal two's complement), `precision` and `scale` for `value`."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int) or not _INT_MIN <= -exponent <= _INT_MAX:
        raise _fail(f"decimal {value} does not fit confluent.type.Decimal")
    _within(len(digits), "decimal", "the coefficient", _MOST_COEFFICIENT_DIGITS)
    unscaled = int("".join(map(str, digits))) * (-1 if sign else 1)
    size = ((unscaled if unscaled >= 0 else ~unscaled).bit_length() + 8) // 8
    return unscaled.to_bytes(size, "big", signed=True), len(digits), -exponent


def make_decimal(*args: Any) -> Decimal:
    """`decimal(value)` and `decimal(bytes, scale)`."""
    if len(args) == 2:
        raw = args[0]
        if not isinstance(raw, (bytes, bytearray, memoryview)):
            raise _fail(f"decimal: expected bytes for the (bytes, scale) overload, got {type(raw).__name__}")
        return _unscaled(bytes(raw), args[1], "decimal(bytes, scale)")
    if len(args) != 1:
        raise _fail(f"decimal: expected 1 or 2 args, got {len(args)}")
    (value,) = args
    found = as_decimal(value)
    if found is not None:
        return found
    if value is None:
        raise _fail("decimal: cannot convert null to Decimal")
    if isinstance(value, (bool, celtypes.BoolType)):
        raise _fail("decimal: cannot convert bool to Decimal")
    if isinstance(value, int):
        return Decimal(int(value))
    if isinstance(value, (float, str)):  # a double goes through its shortest text, as BigDecimal.valueOf
        return _parse(str(value), value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise _fail("decimal: raw bytes need a scale; use decimal(bytes, scale)")
    raise _fail(f"decimal: cannot convert {type(value).__name__} to Decimal")


def _operand(value: Any) -> Decimal:
    """An argument of a `decimals.*` function: a decimal, or anything `decimal(...)` converts."""
    found = value if isinstance(value, Decimal) else make_decimal(value)
    if not found.is_finite():
        raise _fail(f"decimal: not a finite number '{found}'")
    return found


def _compare(test: Callable[[int], bool]) -> Callable[[Any, Any], celtypes.BoolType]:
    def compare(left: Any, right: Any) -> celtypes.BoolType:
        return celtypes.BoolType(test(int(_operand(left).compare(_operand(right)))))
    return compare


def _width_at(scale: int, value: Decimal) -> int:
    """Digits `value` has once laid out at `scale` (a zero is one digit at any scale)."""
    if value.is_zero():
        return 1
    return _digits(value) + scale + _exponent(value)


def _aligned(left: Any, right: Any, function: str) -> tuple[Decimal, Decimal]:
    a, b = _operand(left), _operand(right)
    finest = -min(_exponent(a), _exponent(b))
    _within(max(_width_at(finest, a), _width_at(finest, b)) + 1, function, "aligning the operands")
    return a, b


def _add(left: Any, right: Any) -> Decimal:
    return _EXACT.add(*_aligned(left, right, "decimals.add"))


def _sub(left: Any, right: Any) -> Decimal:
    return _EXACT.subtract(*_aligned(left, right, "decimals.sub"))


def _mul(left: Any, right: Any) -> Decimal:
    return _EXACT.multiply(_operand(left), _operand(right))


def _div(left: Any, right: Any) -> Decimal:
    a, b = _operand(left), _operand(right)
    if b.is_zero():
        raise _fail("decimals.div: division by zero")
    try:
        return _ROUNDED.divide(a, b)
    except decimal.DecimalException as exc:
        raise _fail(f"decimals.div: {exc}") from None


def _mod(left: Any, right: Any) -> Decimal:
    """The remainder takes the dividend's sign (BigDecimal.remainder, SQL's MOD)."""
    a, b = _operand(left), _operand(right)
    if b.is_zero():
        raise _fail("decimals.mod: division by zero")
    quotient_digits = 1 if a.is_zero() else max(0, a.adjusted() - b.adjusted()) + 1
    _within(quotient_digits, "decimals.mod", "the integral quotient")
    return _EXACT.remainder(a, b)


def _rescale(value: Decimal, scale: int, rounding: str, function: str) -> Decimal:
    """`value.setScale(scale, rounding)`."""
    if not value.is_zero():
        _within(max(1, _width_at(scale, value)), function, f"a scale of {scale}")
    try:
        return value.quantize(Decimal(1).scaleb(-scale, context=_EXACT), rounding=rounding, context=_EXACT)
    except decimal.DecimalException:
        raise _fail(f"{function}: cannot represent a scale of {scale}") from None


def _sqrt(value: Any) -> Decimal:
    """To 38 digits; an exact root at BigDecimal's preferred scale (the operand's scale halved
    toward zero), where Python's would take the floor: `sqrt(9.0)` is `3`, not `3.0`."""
    a = _operand(value)
    if a < 0:
        raise _fail("decimals.sqrt: square root of negative number")
    root = _ROUNDED.sqrt(a)
    if _EXACT.multiply(root, root) != a:
        return root
    scale = -_exponent(a)
    preferred = scale // 2 if scale >= 0 else -(-scale // 2)
    if root.is_zero():
        return _rescale(root, preferred, decimal.ROUND_HALF_UP, "decimals.sqrt")
    shortest = root.normalize(context=_EXACT)
    shortest_scale = -_exponent(shortest)
    room = _ROUNDED.prec - len(shortest.as_tuple().digits)
    target = max(shortest_scale, min(preferred, shortest_scale + room))
    return _rescale(shortest, target, decimal.ROUND_HALF_UP, "decimals.sqrt")


def _sign(value: Any) -> celtypes.IntType:
    a = _operand(value)
    return celtypes.IntType(0 if a.is_zero() else (1 if a > 0 else -1))


def _rounder(function: str, rounding: str, keeps_finer: bool, scaled: bool) -> Callable[..., Decimal]:
    """`decimals.round`/`trunc` (value[, scale]) and `floor`/`ceil` (value). `keeps_finer`:
    a value already at or finer than the scale comes back as it is (trunc, as Flink's)."""
    def apply(*args: Any) -> Decimal:
        if len(args) not in ((1, 2) if scaled else (1,)):
            raise _fail(f"{function}: expected {'1 or 2 args' if scaled else '1 arg'}, got {len(args)}")
        value = _operand(args[0])
        scale = _scale(args[1], function) if len(args) == 2 else 0
        if keeps_finer and scale >= -_exponent(value):
            return value
        return _rescale(value, scale, rounding, function)
    return apply


def _cel_type(value: Any) -> str:
    if value is None:
        return "null"
    for names, name in (((bool, celtypes.BoolType), "bool"), ((celtypes.UintType,), "uint"),
                        ((bytes, bytearray), "bytes"), ((str,), "string"), ((int,), "int"),
                        ((float,), "double"), ((list, tuple), "list"), ((dict,), "map")):
        if isinstance(value, names):
            return name
    return type(value).__name__


def to_string(value: Any) -> celtypes.StringType:
    """CEL's `string(...)` with a decimal's plain form (`toPlainString`) and a timestamp's RFC 3339
    form with its fraction; registering `string` replaces celpy's, so every type is here."""
    if isinstance(value, celtypes.TimestampType):
        return celtypes.StringType(render_timestamp(value))
    found = as_decimal(value)
    if found is not None:
        _within(_digits(found) + abs(_exponent(found)), "string", "the plain form")
        return celtypes.StringType(format(_unsigned_zero(found), "f"))
    if isinstance(value, (bool, celtypes.BoolType)):
        return celtypes.StringType("true" if value else "false")
    if isinstance(value, (bytes, bytearray)):
        return celtypes.StringType(bytes(value).decode("utf-8"))
    if isinstance(value, str):
        return celtypes.StringType(value)
    if isinstance(value, (int, float, celtypes.DurationType)):
        return celtypes.StringType(str(value))
    raise _fail(f"found no matching overload for 'string' applied to ({_cel_type(value)})")


def to_double(value: Any) -> celtypes.DoubleType:
    """CEL's `double(...)`, narrowing a decimal (which may round, or overflow to infinity)."""
    found = as_decimal(value)
    if found is not None:
        return celtypes.DoubleType(float(found))
    if isinstance(value, (bool, celtypes.BoolType, bytes, bytearray)):
        raise _fail(f"found no matching overload for 'double' applied to ({_cel_type(value)})")
    return celtypes.DoubleType(value)


def _holds_decimal(value: Any) -> bool:
    if as_decimal(value) is not None:
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_decimal(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_decimal(item) for item in value.values())
    return False


def _equal(left: Any, right: Any) -> bool:
    """Equality where decimals are numbers (12.34 == 12.340) and never equal a non-decimal;
    containers holding a decimal compare element by element with the same rule."""
    a, b = as_decimal(left), as_decimal(right)
    if a is not None or b is not None:
        return a is not None and b is not None and a == b
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(_equal(x, y) for x, y in zip(left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return len(left) == len(right) and all(k in right and _equal(v, right[k]) for k, v in left.items())
    return bool(evaluation.bool_eq(left, right))


def _eq(left: Any, right: Any) -> Any:
    if not (_holds_decimal(left) or _holds_decimal(right)):
        return evaluation.bool_eq(left, right)
    return celtypes.BoolType(_equal(left, right))


def _ne(left: Any, right: Any) -> Any:
    if not (_holds_decimal(left) or _holds_decimal(right)):
        return evaluation.bool_ne(left, right)
    return celtypes.BoolType(not _equal(left, right))


def _in(item: Any, container: Any) -> Any:
    """`in` agrees with `==`: `decimal("1.0") in [decimal("1")]`."""
    if not (_holds_decimal(item) or _holds_decimal(container)) or not isinstance(container, (dict, list, tuple)):
        return evaluation.operator_in(item, container)
    return celtypes.BoolType(any(_equal(item, member) for member in container))


DECIMAL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "decimal": make_decimal,
    "decimals.eq": _compare(lambda order: order == 0), "decimals.lt": _compare(lambda order: order < 0),
    "decimals.le": _compare(lambda order: order <= 0), "decimals.gt": _compare(lambda order: order > 0),
    "decimals.ge": _compare(lambda order: order >= 0),
    "decimals.add": _add, "decimals.sub": _sub, "decimals.mul": _mul, "decimals.div": _div, "decimals.mod": _mod,
    "decimals.greatest": lambda a, b: max(_operand(a), _operand(b)),
    "decimals.least": lambda a, b: min(_operand(a), _operand(b)),
    "decimals.sqrt": _sqrt,
    "decimals.neg": lambda a: _operand(a).copy_negate(), "decimals.abs": lambda a: _operand(a).copy_abs(),
    "decimals.sign": _sign,
    "decimals.round": _rounder("decimals.round", decimal.ROUND_HALF_UP, False, True),
    "decimals.trunc": _rounder("decimals.trunc", decimal.ROUND_DOWN, True, True),
    "decimals.floor": _rounder("decimals.floor", decimal.ROUND_FLOOR, False, False),
    "decimals.ceil": _rounder("decimals.ceil", decimal.ROUND_CEILING, False, False),
    "string": to_string, "double": to_double,
    "_==_": _eq, "_!=_": _ne, "_in_": _in,
}
