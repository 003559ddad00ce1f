"""CEL's `format` string function (`"%s owes %.2f".format([name, amount])`), which cel-python
lacks and Confluent's executors add: printf-style `%s %d %f %e %x %X %o %b` and `%%`, a
precision for `%f`/`%e` (6 by default), the arguments in a list.

Confluent's Python executor is the reference, quirks included, so that a rule formats alike in
both clients: `%f`/`%e` of an int writes the int as it is, `%s` of a bool writes `True`, `%x` of
a string writes its UTF-8 bytes in hex, and `%s` of bytes writes them in hex. A bad specifier or
argument count gives a CEL error value (which `||` may absorb, as there); a format that is not a
string, or arguments that are not a list, fail the expression.
"""
from __future__ import annotations

from typing import Any, Callable

from celpy import CELEvalError, celtypes



# A string inside a formatted list is quoted with CEL's escapes.
_ESCAPES = str.maketrans({char: "\\" + letter for char, letter in zip('\a\b\f\n\r\t\v\\"', 'abfnrtv\\"')})


def _integer(arg: Any, render: Callable[[int], str], what: str, bools: bool = False) -> Any:
    if isinstance(arg, (celtypes.IntType, celtypes.UintType)) or (bools and isinstance(arg, celtypes.BoolType)):
        return celtypes.StringType(render(arg))
    return CELEvalError(f"format_{what}() requires an integer argument")


def _decimal_int(arg: Any) -> Any:
    return _integer(arg, str, "int")


def _hex(arg: Any) -> Any:
    if isinstance(arg, celtypes.BytesType):
        return celtypes.StringType(bytes(arg).hex())
    if isinstance(arg, celtypes.StringType):
        return celtypes.StringType(str(arg).encode("utf-8").hex())
    if isinstance(arg, (celtypes.IntType, celtypes.UintType)):
        return celtypes.StringType(format(int(arg), "x"))
    return CELEvalError("format_hex() requires an integer, string, or binary argument")


def _text(arg: Any) -> Any:
    if isinstance(arg, celtypes.StringType):
        return arg
    if isinstance(arg, celtypes.BytesType):
        return celtypes.StringType(bytes(arg).hex())
    if isinstance(arg, celtypes.ListType):
        return _list(arg)
    return celtypes.StringType(arg)


def _list(items: Any) -> Any:
    """`[a, "b"]`: strings quoted and escaped, everything else as `%s` writes it."""
    parts = []
    for item in items:
        if isinstance(item, str):
            part: Any = '"' + item.translate(_ESCAPES) + '"'
        elif isinstance(item, celtypes.UintType):
            part = str(item)
        else:
            part = _text(item)
            if isinstance(part, CELEvalError):
                return part
        parts.append(str(part))
    return celtypes.StringType("[" + ", ".join(parts) + "]")


def _real(arg: Any, precision: int, style: str) -> Any:
    if isinstance(arg, celtypes.DoubleType):
        return celtypes.StringType(format(float(arg), f".{precision}{style}"))
    return _decimal_int(arg)


def _convert(verb: str, arg: Any, precision: int) -> Any:
    if verb in "fe":
        return _real(arg, precision, verb)
    if verb == "X":
        found = _hex(arg)
        return found if isinstance(found, CELEvalError) else celtypes.StringType(str(found).upper())
    simple: dict[str, Callable[[Any], Any]] = {
        "d": _decimal_int, "s": _text, "x": _hex,
        "o": lambda value: _integer(value, lambda n: format(int(n), "o"), "oct"),
        "b": lambda value: _integer(value, lambda n: format(int(n), "b"), "bin", bools=True),
    }
    if verb not in simple:
        return CELEvalError("format() unknown format specifier: " + verb)
    return simple[verb](arg)


def string_format(template: Any, args: Any) -> Any:
    """`template.format(args)`."""
    if not isinstance(template, celtypes.StringType):
        raise CELEvalError("format() requires a string as the first argument")
    if not isinstance(args, celtypes.ListType):
        raise CELEvalError("format() requires a list as the second argument")
    text, out, used, at = str(template), [], 0, 0
    while at < len(text):
        char = text[at]
        if char != "%":
            out.append(char)
            at += 1
            continue
        if text[at + 1:at + 2] == "%":
            out.append("%")
            at += 2
            continue
        if used >= len(args):
            return CELEvalError("format() not enough arguments for format string")
        arg, used, at = args[used], used + 1, at + 1
        precision = 6
        if text[at:at + 1] == ".":
            at += 1
            digits_end = at
            while digits_end < len(text) and text[digits_end].isdigit():
                digits_end += 1
            precision, at = int(text[at:digits_end] or 0), digits_end
        if at >= len(text):
            return CELEvalError("format() incomplete format specifier")
        formatted = _convert(text[at], arg, precision)
        if isinstance(formatted, CELEvalError):
            return formatted
        out.append(str(formatted))
        at += 1
    if used < len(args):
        return CELEvalError("format() too many arguments for format string")
    return celtypes.StringType("".join(out))


FORMAT_FUNCTIONS: dict[str, Callable[..., Any]] = {"format": string_format}
