"""Schemas whose custom string options hold bytes that are not UTF-8: each made protoc abort
its process (issue 35), one per place an option can be set. Shared by the format's tests and
the live server's."""
from __future__ import annotations

_HEADER = 'syntax = "proto3";\nimport "google/protobuf/descriptor.proto";\n'
_EXTENSIONS = """extend google.protobuf.FileOptions { string fs = 50001; repeated string fr = 50002; Agg fa = 50003; bytes fb = 50004; }
extend google.protobuf.MessageOptions { string ms = 50001; }
extend google.protobuf.FieldOptions { string s = 50001; Agg agg = 50002; bytes b = 50003; }
extend google.protobuf.EnumOptions { string es = 50001; }
extend google.protobuf.EnumValueOptions { string vs = 50001; }
extend google.protobuf.ServiceOptions { string ss = 50001; }
extend google.protobuf.MethodOptions { string mo = 50001; }
extend google.protobuf.OneofOptions { string os = 50001; }
message Agg { string doc = 1; map<string, string> params = 2; repeated Agg inner = 3; bytes raw = 4; }
"""
_BODY = """message M { MESSAGE oneof o { ONEOF string x = 2; } string a = 1 FIELD; }
enum E { ENUM A = 0 VALUE; }
service S { SERVICE rpc Call(M) returns (M) { METHOD } }
"""
_PLACES = ("FILE", "MESSAGE", "ONEOF", "FIELD", "ENUM", "VALUE", "SERVICE", "METHOD")
META = 'syntax = "proto3";\nimport "confluent/meta.proto";\n'


def with_options(**places: str) -> str:
    """The schema above with option text at the named places (FILE, MESSAGE, FIELD, ...)."""
    body = _BODY
    for place in _PLACES[1:]:
        body = body.replace(place, places.get(place, ""))
    return _HEADER + _EXTENSIONS + places.get("FILE", "") + "\n" + body


# name -> (schema, the option named in the refusal, its line)
CRASH_SHAPES: dict[str, tuple[str, str, int]] = {
    "confluent_field_meta": (META + 'message M { string a = 1 [(confluent.field_meta).doc = "\\377"]; }',
                             "(confluent.field_meta).doc", 3),
    "confluent_aggregate": (META + 'message M { string a = 1 [(confluent.field_meta) = { doc: "\\xff" }]; }',
                            "(confluent.field_meta)", 3),
    "confluent_map_value": (META + 'message M {\n  option (confluent.message_meta) = { params: [{ key: "k" value: "\\377" }] };\n'
                            '  string a = 1;\n}', "(confluent.message_meta)", 4),
    "file": (with_options(FILE='option (fs) = "\\377";'), "(fs)", 12),
    "repeated": (with_options(FILE='option (fr) = "ok";\noption (fr) = "\\377";'), "(fr)", 13),
    "nested_aggregate": (with_options(FILE='option (fa) = { inner { doc: "\\300" } };'), "(fa)", 12),
    "map_key": (with_options(FILE='option (fa) = { params { key: "\\377" value: "v" } };'), "(fa)", 12),
    "message": (with_options(MESSAGE='option (ms) = "\\377";'), "(ms)", 13),
    "oneof": (with_options(ONEOF='option (os) = "\\377";'), "(os)", 13),
    "field": (with_options(FIELD='[(s) = "\\377"]'), "(s)", 13),
    "field_subfield": (with_options(FIELD='[(agg).doc = "\\377"]'), "(agg).doc", 13),
    "enum": (with_options(ENUM='option (es) = "\\377";'), "(es)", 14),
    "enum_value": (with_options(VALUE='[(vs) = "\\377"]'), "(vs)", 14),
    "service": (with_options(SERVICE='option (ss) = "\\377";'), "(ss)", 15),
    "method": (with_options(METHOD='option (mo) = "\\377";'), "(mo)", 15),
    "lone_surrogate": (with_options(FIELD='[(s) = "\\ud800"]'), "(s)", 13),
    "octal_escapes": (with_options(FIELD='[(s) = "ok \\355\\240\\200"]'), "(s)", 13),
}

# Escapes that spell UTF-8 after all, or bytes where bytes are allowed: accepted as before.
ACCEPTED_SHAPES: dict[str, str] = {
    "adjacent_literals_joined": with_options(FIELD='[(s) = "\\xc3" "\\xa9"]'),
    "bytes_options": with_options(FIELD='[(b) = "\\377"]', FILE='option (fb) = "\\377"; option (fa) = { raw: "\\377" };'),
    "unicode_escapes": with_options(FIELD='[(s) = "\\u00e9\\U0001F600"]'),
    "surrogate_pair": with_options(FIELD='[(s) = "\\ud83d\\ude00"]'),
    "option_nothing_defines": 'syntax = "proto3";\nmessage M { string a = 1 [(nope).doc = "\\377"]; }',
    "proto2_string": 'syntax = "proto2";\nimport "google/protobuf/descriptor.proto";\n'
                     'extend google.protobuf.FieldOptions { optional string s = 50001; }\n'
                     'message M { optional string a = 1 [(s) = "\\377"]; }',
}
