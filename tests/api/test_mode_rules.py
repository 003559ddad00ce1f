"""Mode rules beyond the basics: the global READONLY_OVERRIDE,
the `:.__GLOBAL:` context, Confluent's 42205/42206 wording and the IMPORT switch."""
from __future__ import annotations

from api_client import Api
from api_samples import BASE, BASE_NAME, ENUM, OUTER, RECORD_V1


def test_global_read_only_override_beats_subject_modes(api: Api) -> None:
    api.set_mode("READWRITE", "s")
    api.set_mode("READONLY_OVERRIDE")
    assert api.get("/mode/s").json == {"mode": "READONLY_OVERRIDE"}
    assert api.get("/mode/other").json == {"mode": "READONLY_OVERRIDE"}
    assert api.get("/mode/s", defaultToGlobal="true").json == {"mode": "READONLY_OVERRIDE"}
    for subject in ("s", ":.ctx:s"):
        assert api.register(subject, RECORD_V1).error_code == 42205
    assert api.put("/config/s", {"compatibility": "NONE"}).error_code == 42205
    api.set_mode("READWRITE")
    assert api.register("s", RECORD_V1).status == 200


def test_read_only_override_in_the_global_context_overrides_too(api: Api) -> None:
    api.set_mode("READWRITE", ":.ctx:s")
    api.set_mode("READONLY_OVERRIDE", ":.__GLOBAL:")
    assert api.register(":.ctx:s", RECORD_V1).error_code == 42205
    assert api.register("plain", RECORD_V1).error_code == 42205
    api.set_mode("READWRITE")  # a default-context global mode is found first
    assert api.register("plain", RECORD_V1).status == 200


def test_global_context_mode_is_the_last_fallback(api: Api) -> None:
    api.set_mode("READONLY", ":.__GLOBAL:")
    assert api.get("/mode/:.ctx:s", defaultToGlobal="true").json == {"mode": "READONLY"}
    assert api.register(":.ctx:s", RECORD_V1).error_code == 42205
    api.set_mode("READWRITE", ":.ctx:")
    assert api.register(":.ctx:s", RECORD_V1).status == 200


def test_mode_refusals_name_the_subject_and_its_context(api: Api) -> None:
    api.set_mode("READONLY", "s")
    assert api.register("s", RECORD_V1).json["message"] == "Subject s in context  is in read-only mode"
    api.set_mode("READONLY", ":.ctx:t")
    assert api.register(":.ctx:t", RECORD_V1).json["message"] == "Subject :.ctx:t in context :.ctx: is in read-only mode"
    assert api.put("/config/:.ctx:t", {"compatibility": "NONE"}).json["message"] == (
        "Subject :.ctx:t in context :.ctx: is in read-only mode"
    )
    assert api.register("u", RECORD_V1, id=5).json["message"] == "Subject u in context  is not in import mode"
    api.set_mode("IMPORT", "v")
    assert api.register("v", RECORD_V1).json["message"] == "Subject v in context  is not in read-write mode"


def test_import_overwrite_names_the_context_qualifier(api: Api) -> None:
    api.set_mode("IMPORT", ":.ctx:")  # the global mode does not reach a named context
    api.registered(":.ctx:s", RECORD_V1, id=1, version=1)
    reply = api.register(":.ctx:t", ENUM, id=1, version=1)
    assert reply.json == {"error_code": 42205, "message": "Overwrite new schema with id 1 in context :.ctx: is not permitted."}


def _referenced_pair(api: Api) -> None:
    api.registered("base", BASE)
    api.registered("outer", OUTER, references=[{"name": BASE_NAME, "subject": "base", "version": 1}])


def test_reference_guards_name_the_store_key(api: Api) -> None:
    _referenced_pair(api)
    expected = "One or more references exist to the schema {magic=1,keytype=SCHEMA,subject=base,version=1}."
    assert api.delete_version("base", 1).json == {"error_code": 42206, "message": expected}
    assert api.delete_subject("base").json == {"error_code": 42206, "message": expected}


def test_switch_to_import_refuses_to_orphan_a_reference(api: Api) -> None:
    _referenced_pair(api)
    api.delete_subject("outer")
    api.delete_subject("base")
    reply = api.put("/mode", {"mode": "IMPORT"})
    assert reply.json == {
        "error_code": 42206,
        "message": "One or more references exist to the schema {magic=1,keytype=SCHEMA,subject=base,version=1}.",
    }
    assert api.get("/mode").json == {"mode": "READWRITE"}  # not stored
    assert api.get("/schemas/ids/1").status == 200  # nothing deleted
    api.set_mode("IMPORT", "outer")  # the referrer's own scope holds no referenced version
    assert api.get("/schemas/ids/2").error_code == 40403
    api.set_mode("IMPORT")
    assert api.get("/schemas/ids/1").error_code == 40403


def test_switch_to_import_with_force_keeps_everything(api: Api) -> None:
    api.registered("live", RECORD_V1)
    api.registered("gone", ENUM)
    api.delete_subject("gone")
    assert api.put("/mode", {"mode": "IMPORT"}).json["error_code"] == 42205
    assert api.put("/mode", {"mode": "IMPORT"}, force="true").json == {"mode": "IMPORT"}
    assert api.versions("gone", deleted="true").json == [1]


def test_recursive_global_mode_delete_keeps_named_context_modes(api: Api) -> None:
    api.set_mode("READONLY", "a")
    api.set_mode("READONLY", ":.ctx:b")
    assert api.delete("/mode", recursive="true").json == {"mode": "READWRITE"}
    assert api.get("/mode/a").error_code == 40409
    assert api.get("/mode/:.ctx:b").json == {"mode": "READONLY"}
    assert api.delete("/mode/:.ctx:", recursive="true").json == {"mode": "READWRITE"}
    assert api.get("/mode/:.ctx:b").error_code == 40409
