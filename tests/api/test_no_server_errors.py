"""Whatever a client sends, the answer is a success or a Confluent-format 4xx, never a 500.

Hypothesis throws arbitrary JSON documents, near-miss register bodies, odd query values and
odd path segments at the write endpoints; each reply must be JSON with `error_code` and
`message` when it is an error, and never a server error.
"""
from __future__ import annotations

import json
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

JSON_SCALARS = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=20)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
AVRO_TEXTS = st.sampled_from([
    '"string"', '{"type":"record","name":"R","fields":[]}', '{"type":"enum","name":"E","symbols":["A"]}',
    '{"type":"record","name":"R","fields":[{"name":"a","type":"nope"}]}', "[]", "{}", "", "not json", '["null","int"]',
])
REGISTER_BODIES = st.fixed_dictionaries(
    {},
    optional={
        "schema": AVRO_TEXTS | JSON_VALUES,
        "schemaType": st.sampled_from(["AVRO", "avro", "JSON", "PROTOBUF", "XML", ""]) | JSON_VALUES,
        "references": st.lists(
            st.fixed_dictionaries({}, optional={"name": JSON_VALUES, "subject": JSON_VALUES, "version": JSON_VALUES}),
            max_size=2,
        ) | JSON_VALUES,
        "metadata": JSON_VALUES,
        "ruleSet": JSON_VALUES,
        "id": JSON_VALUES,
        "version": JSON_VALUES,
    },
)
SEGMENTS = st.text(min_size=1, max_size=12).map(lambda s: quote(s, safe=""))
QUERY_VALUES = st.sampled_from(["true", "TRUE", "false", "1", "-1", "x", "", "latest", "999999999999"])
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _assert_client_error_or_success(reply) -> None:
    assert reply.status_code < 500, reply.get_data(as_text=True)
    if reply.status_code >= 400:
        body = json.loads(reply.get_data(as_text=True))
        assert isinstance(body["error_code"], int) and isinstance(body["message"], str)


@FUZZ
@given(body=REGISTER_BODIES | JSON_VALUES, normalize=QUERY_VALUES)
def test_register_lookup_and_compatibility_never_fail_with_a_server_error(client, body, normalize):
    for path in ("/subjects/fuzz/versions", "/subjects/fuzz", "/compatibility/subjects/fuzz/versions/latest"):
        _assert_client_error_or_success(client.post(f"{path}?normalize={normalize}&verbose=true", json=body))


@FUZZ
@given(body=JSON_VALUES, subject=SEGMENTS)
def test_config_and_mode_updates_never_fail_with_a_server_error(client, body, subject):
    for path in (f"/config/{subject}", "/config", f"/mode/{subject}"):
        _assert_client_error_or_success(client.put(path, json=body))
    _assert_client_error_or_success(client.put("/mode", json={"mode": "READWRITE"}))


@FUZZ
@given(subject=SEGMENTS, version=SEGMENTS | QUERY_VALUES, flag=QUERY_VALUES)
def test_reads_and_deletes_on_odd_paths_never_fail_with_a_server_error(client, subject, version, flag):
    for method, path in (
        ("get", f"/subjects/{subject}/versions/{version}?deleted={flag}"),
        ("get", f"/subjects/{subject}/versions/{version}/referencedby?offset={flag}"),
        ("get", f"/schemas/ids/{version}?subject={subject}&format={flag}"),
        ("delete", f"/subjects/{subject}/versions/{version}?permanent={flag}"),
        ("delete", f"/subjects/{subject}?permanent={flag}"),
        ("get", f"/subjects?subjectPrefix={subject}&limit={flag}"),
    ):
        _assert_client_error_or_success(getattr(client, method)(path))
