"""Seeded mutations of valid schemas through registration and compatibility, in a process of
its own (run by test_format_mutations.py), so that an input that kills the process is seen as
the process's death and named: before each attempt the input is written to `--last-input`.

    python tests/fuzz/mutation_runner.py --format PROTOBUF --seed 35 --count 1000 \
        --database-url sqlite:///x.db --last-input last.json

Prints one JSON summary line: replies per status, replies out of Confluent's error shape or
with a status other than 200/409/422 (the first few, with their input), and refusals that were
a crash of the Protobuf compiler's process.
"""
from __future__ import annotations

import argparse
import base64
import json
import random
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from app.formats.protobuf.compiler import CRASHED, compile_text  # noqa: E402
from app.server.factory import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402

V1_JSON = "application/vnd.schemaregistry.v1+json"
ALLOWED = {200, 409, 422}

SEEDS: dict[str, list[str]] = {
    "AVRO": [
        json.dumps({"type": "record", "name": "Order", "namespace": "fuzz", "fields": [
            {"name": "id", "type": "long"}, {"name": "note", "type": ["null", "string"], "default": None},
            {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
            {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}, "default": "A"},
            {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
            {"name": "raw", "type": {"type": "fixed", "name": "Raw", "size": 4}, "default": "\u00ff\u0000ab"}]}),
        json.dumps({"type": "map", "values": {"type": "record", "name": "V", "fields": [
            {"name": "x", "type": "double", "default": 1.5e300}]}}),
    ],
    "JSON": [
        json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {
            "id": {"type": "integer", "minimum": 0, "maximum": 9007199254740991},
            "name": {"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$", "maxLength": 64},
            "tags": {"type": "array", "items": {"$ref": "#/definitions/tag"}, "uniqueItems": True}},
            "definitions": {"tag": {"enum": ["a", "b", "\u00e9"]}}, "required": ["id"],
            "additionalProperties": False}),
        json.dumps({"type": "object", "patternProperties": {"^x-": {"type": "number", "multipleOf": 0.01}},
                    "oneOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {
                        "a": {"type": ["string", "null"], "format": "date-time"}, "b": {"const": 1e10}}}),
    ],
    "PROTOBUF": [
        'syntax = "proto3";\npackage fuzz.v1;\nimport "google/protobuf/timestamp.proto";\n'
        'import "confluent/meta.proto";\n\n'
        'message Order {\n  option (confluent.message_meta) = { doc: "an order" };\n'
        '  int64 id = 1 [(confluent.field_meta).doc = "the id"];\n  string note = 2;\n'
        '  repeated Line lines = 3;\n  google.protobuf.Timestamp at = 4;\n  map<string, int32> counts = 5;\n'
        '  oneof pay { string card = 6; bytes token = 7 [json_name = "tok"]; }\n  reserved 10 to 20;\n'
        '  message Line { string sku = 1; uint32 qty = 2; }\n}\n\n'
        'enum Kind {\n  KIND_UNSPECIFIED = 0;\n  KIND_A = 1 [deprecated = true];\n}\n\n'
        'service Orders {\n  rpc Get(Order) returns (Order) { option deprecated = true; }\n}\n',
        'syntax = "proto2";\npackage fuzz.v2;\nimport "google/protobuf/descriptor.proto";\n'
        'extend google.protobuf.FieldOptions { optional string label = 50001; optional bytes blob = 50002; }\n'
        'message Item {\n  optional string name = 1 [default = "n\\t\\"x\\"", (label) = "a"];\n'
        '  required int32 size = 2 [default = -2147483648];\n  optional double w = 3 [default = inf];\n'
        '  extensions 100 to max;\n  optional group G = 4 { optional int64 v = 5; }\n}\n',
    ],
}

_ESCAPES = ['\\377', '\\xff', '\\ud800', '\\udfff', '\\U0010ffff', '\\U00110000', '\\0', '\\u0000', '\\', '\\x',
            '\\400', '\u0000', '\udc80', '\ufeff', '\U0001f600', '"', "'", '\\"']
_NUMBERS = ["9" * 400, "-" + "9" * 40, "18446744073709551616", "2147483648", "-2147483649", "1e400", "-0",
            "0x" + "f" * 40, "nan", "-inf", "1.7976931348623157e309", "536870912", "19000"]
_DEEP = {"AVRO": ('{"type":"array","items":', "}"), "JSON": ('{"items":', "}"),
         "PROTOBUF": ("message D {", "}")}


def mutated(text: str, schema_type: str, rng: random.Random) -> str:
    """One to three mutations of `text` (a fifth of Protobuf's are of its descriptor instead,
    see `mutated_descriptor`): byte flips (bytes left that are not UTF-8 become
    U+FFFD, as a JSON body cannot carry them), truncation, odd escapes and characters (a lone
    surrogate or NUL among them), huge numbers, deep nesting, repeated or dropped spans."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(8)
        at = rng.randrange(len(text) + 1)
        if kind == 0 and text:
            raw = bytearray(text.encode("utf-8", "surrogateescape"))
            for _ in range(rng.randint(1, 4)):
                raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
            text = raw.decode("utf-8", "replace")
        elif kind == 1:
            text = text[:at]
        elif kind == 2:
            text = text[:at] + rng.choice(_ESCAPES) + text[at:]
        elif kind == 3:
            digits = [i for i, ch in enumerate(text) if ch.isdigit()]
            spot = rng.choice(digits) if digits else at
            end = spot
            while end < len(text) and text[end].isdigit():
                end += 1
            text = text[:spot] + rng.choice(_NUMBERS) + text[end:]
        elif kind == 4:
            opening, closing = _DEEP[schema_type]
            depth = rng.choice([50, 200, 1000])
            text = text[:at] + opening * depth + ('"int"' if schema_type == "AVRO" else "") + closing * depth + text[at:]
        elif kind == 5:
            end = min(len(text), at + rng.randint(1, 40))
            text = text[:at] + text[at:end] * rng.randint(2, 30) + text[end:]
        elif kind == 6:
            text = text[:at] + text[min(len(text), at + rng.randint(1, 40)):]
        else:
            text = text[:at] + chr(rng.choice([0, 7, 0x7F, 0x85, 0xA0, 0x2028, 0xFFFF, 0x10FFFF])) + text[at:]
    return text


def mutated_descriptor(descriptor: bytes, rng: random.Random) -> str:
    """A seed's compiled `FileDescriptorProto`, as confluent-kafka's serializer sends it in
    base64, with one to eight bytes flipped or the tail cut."""
    raw = bytearray(descriptor)
    if rng.random() < 0.2:
        del raw[rng.randrange(len(raw)):]
    else:
        for _ in range(rng.randint(1, 8)):
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
    return base64.b64encode(bytes(raw)).decode("ascii")


def out_of_shape(status: int, body: Any, text: str) -> str | None:
    """Why a reply is not one the registry may give a schema, or None. A text holding a lone
    surrogate or NUL is refused before any format sees it, with 400 (the request's own check)."""
    unreadable = "\0" in text or any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)
    if status not in ALLOWED and not (status == 400 and unreadable):
        return f"status {status}"
    if status == 200:
        return None if isinstance(body, dict) else "a 200 without a JSON object"
    if not (isinstance(body, dict) and set(body) == {"error_code", "message"}
            and isinstance(body["error_code"], int) and isinstance(body["message"], str)
            and str(body["error_code"]).startswith(str(status))):
        return "not Confluent's error shape"
    return None


def run(schema_type: str, seed: int, count: int, database_url: str, last_input: Path) -> dict[str, Any]:
    app = create_app(Settings(database_url=database_url))
    client = app.test_client()
    rng = random.Random(seed)
    # Each seed its own subject, each mutation registered beside the seed it came from, so that
    # a mutation's compatibility is checked against a schema it resembles.
    subjects = [f"fuzz-{schema_type.lower()}-{k}" for k in range(len(SEEDS[schema_type]))]
    statuses: Counter[str] = Counter()
    problems: list[dict[str, Any]] = []
    crashes = 0

    def post(path: str, text: str) -> tuple[int, Any]:
        body = json.dumps({"schemaType": schema_type, "schema": text})
        reply = client.post(path, data=body, headers={"Content-Type": V1_JSON})
        try:
            return reply.status_code, json.loads(reply.get_data())
        except ValueError:
            return reply.status_code, None

    routes: list[tuple[str, Callable[[str], str]]] = [
        ("register", lambda subject: f"/subjects/{subject}/versions"),
        ("compatibility", lambda subject: f"/compatibility/subjects/{subject}/versions/latest"),
    ]
    for subject, text in zip(subjects, SEEDS[schema_type]):
        status, body = post(f"/subjects/{subject}/versions", text)
        if status != 200:
            raise SystemExit(f"a seed schema was refused: {status} {body}")
    descriptors = [compile_text(text, {}).file.SerializeToString() for text in SEEDS[schema_type]] \
        if schema_type == "PROTOBUF" else []
    for n in range(count):
        k = rng.randrange(len(subjects))
        if descriptors and rng.random() < 0.2:
            text = mutated_descriptor(descriptors[k], rng)
        else:
            text = mutated(SEEDS[schema_type][k], schema_type, rng)
        last_input.write_text(json.dumps({"n": n, "schema": text}))
        for route, path in routes:
            status, body = post(path(subjects[k]), text)
            statuses[f"{route} {status}"] += 1
            if isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"].endswith(CRASHED):
                crashes += 1
            why = out_of_shape(status, body, text)
            if why is not None and len(problems) < 5:
                problems.append({"route": route, "why": why, "reply": str(body)[:300], "input": text[:2000]})
            elif why is not None:
                problems.append({"route": route, "why": why})
    app.extensions["registry"].storage.close()
    return {"statuses": dict(statuses), "problems": problems, "crashes": crashes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", required=True, choices=sorted(SEEDS))
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--last-input", type=Path, required=True)
    args = parser.parse_args()
    summary = run(args.format, args.seed, args.count, args.database_url, args.last_input)
    print(json.dumps(summary, ensure_ascii=True))


if __name__ == "__main__":
    main()
