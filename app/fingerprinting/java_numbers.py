"""Java's `Double.toString` and `Float.toString`: the text Jackson gives a floating-point number.

Both sides print JSON as Java does: the server's Avro format (canonical schema text is hashed
into ids, so a default of `1e20` must read `1.0E20`) and the client's variant codec (CEL's
`variants.toJson`, Confluent's canonical JSON). Here, so that neither imports the other.
"""
from __future__ import annotations

import math
import struct
from decimal import Decimal


def java_double_text(value: float, single: bool = False) -> str:
    """The shortest digits that read back to the same double (or float, `single`), in plain
    notation from 10^-3 to 10^7 and as `d.dddE±n` outside; `NaN`, `Infinity`, `-Infinity`."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if single:
        digits_text = next((text for text in (f"{value:.{places}e}" for places in range(9))
                            if struct.unpack("<f", struct.pack("<f", float(text)))[0] == value), repr(value))
    else:
        digits_text = repr(value)
    if len(Decimal(digits_text).normalize().as_tuple().digits) == 1:  # Java writes two digits at least,
        digits_text = f"{value:.1e}"  # the pair nearest the exact value (4.9E-324, not 5.0E-324)
    sign, digits, exponent = Decimal(digits_text).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    point = len(text) + exponent  # where the decimal point falls in the digit string
    prefix = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{prefix}0.{'0' * -point}{text}"
        if point >= len(text):
            return f"{prefix}{text}{'0' * (point - len(text))}.0"
        return f"{prefix}{text[:point]}.{text[point:]}"
    return f"{prefix}{text[0]}.{text[1:] or '0'}E{point - 1}"
