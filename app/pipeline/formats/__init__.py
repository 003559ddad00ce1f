"""One module per schema format `decode` reads: `avro`, `json_schema`, `protobuf`, each behind
the `PipelineFormat` protocol of `format`; and one per format `encode` writes (`*_encoder`,
behind `encoding.FormatEncoder`)."""
from __future__ import annotations

from app.client.records import AVRO, JSON, PROTOBUF
from app.pipeline.formats.avro import AVRO_FORMAT
from app.pipeline.formats.avro_encoder import AVRO_ENCODER
from app.pipeline.formats.encoding import FormatEncoder
from app.pipeline.formats.format import PipelineFormat, UnsupportedSchemaType
from app.pipeline.formats.json_schema import JSON_SCHEMA_FORMAT
from app.pipeline.formats.json_schema_encoder import JSON_SCHEMA_ENCODER
from app.pipeline.formats.protobuf import PROTOBUF_FORMAT
from app.pipeline.formats.protobuf_encoder import PROTOBUF_ENCODER

_FORMATS: dict[str, PipelineFormat] = {AVRO: AVRO_FORMAT, JSON: JSON_SCHEMA_FORMAT, PROTOBUF: PROTOBUF_FORMAT}
_ENCODERS: dict[str, FormatEncoder] = {AVRO: AVRO_ENCODER, JSON: JSON_SCHEMA_ENCODER, PROTOBUF: PROTOBUF_ENCODER}


def format_of(schema_type: str) -> PipelineFormat:
    """The pipeline's format for a registry schema type (`AVRO`, `JSON`, `PROTOBUF`)."""
    try:
        return _FORMATS[schema_type]
    except KeyError:
        raise ValueError(f"the pipeline cannot decode {schema_type} schemas") from None


def encoder_of(schema_type: str) -> FormatEncoder:
    """The pipeline's encoder for a registry schema type (`AVRO`, `JSON`, `PROTOBUF`)."""
    try:
        return _ENCODERS[schema_type]
    except KeyError:
        raise ValueError(f"the pipeline cannot encode {schema_type} schemas") from None


def jvm_refusal(schema_type: str) -> str | None:
    """Why the JVM decoder cannot take a format's records (None: it can), as the engine choice
    logs it."""
    form = format_of(schema_type)
    return None if form.jvm else f"the JVM decoder reads Avro only; {form.name} decodes in Spark's Python workers"


__all__ = ["FormatEncoder", "PipelineFormat", "UnsupportedSchemaType", "encoder_of", "format_of", "jvm_refusal"]
