"""What a compatibility answer lists stays small: a type shared on every level of a deep chain
is reported once, and a check that finds more than 100 incompatibilities lists the first 100
and one line counting the rest (verbose checks and registration's 409 alike)."""
from __future__ import annotations

import json
import re

from api_client import Api, enc
from support.shared_types import avro_shared_chain, avro_wide_record

ENTRY = re.compile(r"^\{errorType:'")


def shared_chain(depth: int, leaf: str) -> str:
    return json.dumps(avro_shared_chain(depth, leaf))


def wide(fields: int, type_: str) -> str:
    return json.dumps(avro_wide_record(fields, type_))


def verbose_check(api: Api, subject: str, schema: str) -> list[str]:
    reply = api.post(f"/compatibility/subjects/{enc(subject)}/versions/latest", {"schema": schema}, verbose="true")
    assert reply.status == 200 and reply.json["is_compatible"] is False
    return reply.json["messages"]


def test_verbose_reply_for_a_type_shared_on_forty_levels_is_one_entry(api: Api) -> None:
    api.registered("chain", shared_chain(40, "string"))

    reply = api.post("/compatibility/subjects/chain/versions/latest", {"schema": shared_chain(40, "int")},
                     verbose="true")

    entries = [m for m in reply.json["messages"] if ENTRY.match(m)]
    assert len(entries) == 1 and "TYPE_MISMATCH" in entries[0]
    assert len(reply.raw) < 10_000  # the old schema is quoted whole in the trailer


def test_verbose_reply_lists_the_first_hundred_and_counts_the_rest(api: Api) -> None:
    api.registered("wide", wide(150, "string"))

    messages = verbose_check(api, "wide", wide(150, "int"))

    entries = [m for m in messages if ENTRY.match(m)]
    assert len(entries) == 100
    assert "path '/fields/0/type'" in entries[0] and "path '/fields/99/type'" in entries[-1]
    assert messages[100] == "{moreIncompatibilities: 50, note: 'only the first 100 are listed'}"
    assert messages[101] == "{oldSchemaVersion: 1}"
    assert all(isinstance(m, str) for m in messages)


def test_full_level_counts_both_directions_together(api: Api) -> None:
    api.registered("both", wide(60, "string"))
    api.set_config("both", compatibility="FULL")

    messages = verbose_check(api, "both", wide(60, "int"))

    entries = [m for m in messages if ENTRY.match(m)]
    assert len(entries) == 100
    assert sum("in the new schema does not match with the old schema" in m for m in entries) == 60
    assert "{moreIncompatibilities: 20, note: 'only the first 100 are listed'}" in messages


def test_refused_registration_lists_the_first_hundred_and_counts_the_rest(api: Api) -> None:
    api.registered("wide", wide(130, "string"))

    reply = api.register("wide", wide(130, "int"))

    assert reply.status == 409
    message = reply.json["message"]
    assert message.count("{errorType:'TYPE_MISMATCH'") == 100
    assert "{moreIncompatibilities: 30, note: 'only the first 100 are listed'}" in message
    assert api.versions("wide").json == [1]
