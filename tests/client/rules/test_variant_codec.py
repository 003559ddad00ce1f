"""The Variant codec against Spark's (pyspark.sql.variant_utils, a test-only oracle): random JSON
values parse to bytes Spark reads back as the same JSON, Spark's bytes render through ours as
the same JSON, and where the encoding is fixed (everything but numbers with a fraction, which
Spark may store as decimals and Confluent's clients store as doubles) the bytes are Spark's,
byte for byte. Then Confluent's canonical JSON of each scalar type, and malformed bytes refused
in time proportional to their size."""
from __future__ import annotations

import json
import struct
import uuid
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql.variant_utils import VariantUtils as Spark

from app.client.rules.variant_codec import Variant, VariantError, VariantKind, parse_json
from app.fingerprinting.java_numbers import java_double_text

# An empty key dictionary: version 1, one-byte offsets, no keys.
EMPTY_METADATA = b"\x01\x00\x00"

scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=80),
                    st.sampled_from([0, -1, 127, 128, -129, 32767, 32768, 2**31, -(2**31) - 1, "", "é" * 40]))
fractions = st.floats(allow_nan=False, allow_infinity=False)
json_without_fractions = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=8), inner, max_size=6)),
    max_leaves=40)
json_values = st.recursive(
    st.one_of(scalars, fractions),
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=8), inner, max_size=6)),
    max_leaves=40)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_without_fractions)
def test_parsed_bytes_are_sparks_byte_for_byte(value: Any) -> None:
    text = json.dumps(value)
    ours = parse_json(text)
    assert (ours.value, ours.metadata) == Spark.parse_json(text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_json_goes_through_our_codec_and_sparks_both_ways(value: Any) -> None:
    text = json.dumps(value)
    ours = parse_json(text)
    assert json.loads(Spark.to_json(ours.value, ours.metadata)) == value
    spark_value, spark_metadata = Spark.parse_json(text)
    assert json.loads(Variant(spark_value, spark_metadata).to_json()) == value


def test_large_objects_and_arrays_use_wide_counts_ids_and_offsets_as_spark_does() -> None:
    text = json.dumps({f"k{index}": ["x" * 70] * 3 for index in range(300)})
    ours = parse_json(text)
    assert (ours.value, ours.metadata) == Spark.parse_json(text)
    assert ours.field("k299") is not None and ours.field("k299").element(2).scalar() == "x" * 70
    assert ours.field("k300") is None


def test_numbers_follow_confluents_clients() -> None:
    """A fraction or an exponent is a double; an integer past 64 bits a decimal of scale 0 (up
    to 38 digits), then a double."""
    assert parse_json("1.5").kind() == VariantKind.DOUBLE
    assert parse_json("1e2").kind() == VariantKind.DOUBLE
    assert parse_json("12").kind() == VariantKind.BYTE
    assert parse_json(str(2**63)).kind() == VariantKind.DECIMAL16
    assert parse_json(str(2**63)).scalar() == Decimal(2**63)
    assert parse_json("1" * 39).kind() == VariantKind.DOUBLE


@pytest.mark.parametrize("text", ["", "nope", "NaN", "[1, Infinity]", "1 2", "{\"a\":}",
                                  pytest.param("[" * 100_000, id="deeply-nested"), '"\\ud800"', '{"\\udc00": 1}'])
def test_json_that_is_not_strict_json_or_not_encodable_is_refused(text: str) -> None:
    with pytest.raises(VariantError):
        parse_json(text)


def scalar(header: int, payload: bytes = b"") -> Variant:
    return Variant(bytes([header]) + payload, EMPTY_METADATA)


def long(number: int) -> bytes:
    return struct.pack("<q", number)


@pytest.mark.parametrize("variant, kind, text", [
    (scalar(14 << 2, struct.pack("<f", 1.1)), VariantKind.FLOAT, "1.1"),
    (scalar(7 << 2, struct.pack("<d", 1e21)), VariantKind.DOUBLE, "1.0E21"),
    (scalar(7 << 2, struct.pack("<d", float("nan"))), VariantKind.DOUBLE, '"NaN"'),
    (scalar(8 << 2, b"\x02" + struct.pack("<i", -1234)), VariantKind.DECIMAL4, "-12.34"),
    (scalar(9 << 2, b"\x0c" + struct.pack("<q", 5)), VariantKind.DECIMAL8, "0.000000000005"),
    (scalar(11 << 2, struct.pack("<i", 19_723)), VariantKind.DATE, '"2024-01-01"'),
    (scalar(12 << 2, long(1_700_000_000_123_000)), VariantKind.TIMESTAMP_TZ, '"2023-11-14T22:13:20.123Z"'),
    (scalar(13 << 2, long(1_700_000_000_000_000)), VariantKind.TIMESTAMP_NTZ, '"2023-11-14T22:13:20"'),
    (scalar(18 << 2, long(-1)), VariantKind.TIMESTAMP_NANOS_TZ, '"1969-12-31T23:59:59.999999999Z"'),
    (scalar(19 << 2, long(1_000_001_000)), VariantKind.TIMESTAMP_NANOS_NTZ, '"1970-01-01T00:00:01.000001"'),
    (scalar(17 << 2, long(3_723_000_000)), VariantKind.TIME, '"01:02:03"'),
    (scalar(15 << 2, struct.pack("<I", 3) + b"\x00\xff\x10"), VariantKind.BINARY, '"AP8Q"'),
    (scalar(20 << 2, uuid.UUID(int=1).bytes), VariantKind.UUID, '"00000000-0000-0000-0000-000000000001"'),
    (scalar(16 << 2, struct.pack("<I", 3) + b"a\x01\""), VariantKind.STRING, '"a\\u0001\\""'),
])
def test_each_scalar_type_renders_as_confluents_canonical_json(variant: Variant, kind: VariantKind, text: str) -> None:
    assert variant.kind() == kind
    assert variant.to_json() == text


@pytest.mark.parametrize("value, single, text", [
    (100.0, False, "100.0"), (0.001, False, "0.001"), (0.0001, False, "1.0E-4"), (1e7, False, "1.0E7"),
    (-123.456, False, "-123.456"), (-0.0, False, "-0.0"), (5e-324, False, "4.9E-324"),
    (struct.unpack("<f", struct.pack("<f", 0.1))[0], True, "0.1"),
])
def test_doubles_and_floats_print_as_java_does(value: float, single: bool, text: str) -> None:
    assert java_double_text(value, single) == text


def test_an_array_whose_offsets_share_bytes_is_refused_before_it_renders_exponentially() -> None:
    """Each level: an array of 200 elements that all point at the next level (a few kilobytes,
    200^8 values if rendered)."""
    inner = b"\x00"  # null
    for _ in range(8):
        inner = bytes([0x07, 200]) + b"\x00\x00" * 200 + struct.pack("<H", len(inner)) + inner
    with pytest.raises(VariantError, match="more than once"):
        Variant(inner, EMPTY_METADATA).to_json()


@pytest.mark.parametrize("value, metadata", [
    (b"\x02\x05\x00", b"\x01\x00\x00"),             # an object of 5 fields in 3 bytes
    (b"\x02\x01\x07\x00\x01\x0c", b"\x01\x00\x00"),  # a key id past the dictionary
    (b"\x03\x01\x09\x0a\x0c", b"\x01\x00\x00"),      # an offset past the end
    (b"\x14\x01\x02", b"\x01\x00\x00"),              # an int32 cut short
    (b"\xfc", b"\x01\x00\x00"),                     # an unknown primitive type
    (b"\x05\xff", b"\x01\x00\x00"),                 # a string that is not UTF-8
])
def test_malformed_bytes_are_a_variant_error(value: bytes, metadata: bytes) -> None:
    with pytest.raises(VariantError):
        Variant(value, metadata).to_json()


@pytest.mark.parametrize("metadata", [b"", b"\x02\x00\x00"])
def test_missing_metadata_or_another_version_is_refused(metadata: bytes) -> None:
    with pytest.raises(VariantError):
        Variant(b"\x00", metadata)
