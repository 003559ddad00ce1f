"""Registry-framed records on Spark, from PySpark alone: `decode` (Avro, JSON Schema, Protobuf)
and `encode` (the same three) DataFrame columns.

The only package of the project that imports pyspark; it is built on `app.client` (schemas
fetched and cached through `RegistryClient`, records read and written as its serdes do), so
the bytes are the same as every other producer's and consumer's.

    decoded = decode(kafka_df, "value", registry, subject="orders-value", reader="latest")
    decoded = decode(df, "value", registry, subject="s", framing=SINGLE_OBJECT)  # C3 01 + fingerprint
    framed = encode(df, registry, subject="orders-value", schema=ORDER_AVSC, keep=["key"])
    framed = encode(df, registry, subject="readings-value", schema_type="PROTOBUF", record_name="Reading")
    readings = decode(df, "value", registry, subject="readings-value", message="shop.Reading")  # Protobuf
    people = decode(df, "value", registry, subject="people-value", rule_config={"secret": s})  # data contracts
    write_table(decoded, registry.get_version("orders-value", "latest").schema, "db.orders")

`decode` and `encode` run in Spark's JVM (Java UDFs built from `app/pipeline/jvm/src`) when they
can, else in Spark's Python workers; `engine="jvm"|"python"` forces one (`app.pipeline.engine`).
"""
from __future__ import annotations

from typing import Any

EXTRA_NEEDED = "the pipeline needs PySpark and pyarrow: pip install 'sqlregistry[pipeline]'"
# Without them the package still imports, so that `sqlregistry pipeline --help` and the job's
# argument errors work; each name then says what to install when it is used.
_MISSING = {"pyspark", "pyarrow", "pandas", "py4j", "jsonschema_rs"}

try:
    from app.pipeline.decode import BadRecord, decode, decode_by_writer, decode_with_schema, writer_ids
    from app.pipeline.encode import encode
    from app.pipeline.tables import TableRefused, write_table
    from app.pipeline.types import UnsupportedAvroType, avro_to_spark
except ModuleNotFoundError as missing:
    if (missing.name or "").split(".")[0] not in _MISSING:
        raise
    _absent = missing.name

    def __getattr__(name: str) -> Any:
        if name in __all__:
            raise ModuleNotFoundError(f"{EXTRA_NEEDED} (missing: {_absent})", name=_absent)
        raise AttributeError(f"module 'app.pipeline' has no attribute {name!r}")

__all__ = ["BadRecord", "TableRefused", "UnsupportedAvroType", "avro_to_spark", "decode", "decode_by_writer",
           "decode_with_schema", "encode", "write_table", "writer_ids"]
