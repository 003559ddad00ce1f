"""Protobuf decode of `app.pipeline` on Spark against a one-process loop of confluent-kafka's
`ProtobufDeserializer` over the same bytes, to dicts, in one run.

N records of `tests/pipeline/format_samples.py`'s Reading (message index 1 of its file; 18
fields: nested, repeated, map, enum, Timestamp, wrapper), written by confluent-kafka's
`ProtobufSerializer`. The loop parses each record with the generated class and turns it into a
dict (`MessageToDict`, field names kept), the shape the pipeline produces; the pipeline runs
`decode(..., message="pipeline.samples.Reading")` on `local[2]` to Spark's no-op sink.
The comparison and its output are `bench/pipeline_json_decode.py`'s `compare`.

    python bench/pipeline_protobuf_decode.py [--records 200000] [--rounds 2] [--batch 10000]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.pipeline_json_decode import arguments, compare  # noqa: E402  (puts tests/pipeline on the path)
from format_samples import compile_proto, proto_reading  # noqa: E402

from app.client import RegistryClient  # noqa: E402

TOPIC = "bench-protobuf-readings"


def main() -> None:
    args = arguments(__doc__)
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext
    from google.protobuf.json_format import MessageToDict
    from support.live import scratch_registry

    with scratch_registry("bench-pipeline-protobuf-") as scratch:
        samples = compile_proto(scratch.workdir / "proto")
        confluent = SchemaRegistryClient({"url": scratch.server.url})
        context = SerializationContext(TOPIC, MessageField.VALUE)
        serialize = ProtobufSerializer(samples.Reading, confluent)
        values = [serialize(proto_reading(samples, n), context) for n in range(args.records)]
        deserializer = ProtobufDeserializer(samples.Reading, {})

        def to_dict(value: bytes) -> dict:
            return MessageToDict(deserializer(value, context), preserving_proto_field_name=True)

        compare(args, scratch.workdir, RegistryClient(scratch.server.url), values,
                "confluent ProtobufDeserializer loop", to_dict,
                {"subject": f"{TOPIC}-value", "message": "pipeline.samples.Reading"})
        confluent.close()


if __name__ == "__main__":
    main()
