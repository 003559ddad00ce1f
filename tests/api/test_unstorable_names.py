"""Names with a NUL character can never be stored (PostgreSQL text cannot hold one, and
writes refuse control characters), so reads of them answer "not found", never a 500."""
from __future__ import annotations

from api_client import Api
from api_samples import RECORD_V1

NUL = "a%00b"


def test_reads_and_deletes_of_a_nul_name_find_nothing(api: Api) -> None:
    api.registered("s", RECORD_V1)
    assert api.get(f"/subjects/{NUL}/versions/1").error_code == 40401
    assert api.get(f"/subjects/{NUL}/versions").error_code == 40401
    assert api.get(f"/subjects/{NUL}/versions/1/referencedby").error_code == 40401
    assert api.post(f"/subjects/{NUL}", {"schema": RECORD_V1}).error_code == 40401
    assert api.post(f"/compatibility/subjects/{NUL}/versions", {"schema": RECORD_V1}).json == {"is_compatible": True}
    assert api.delete(f"/subjects/{NUL}").error_code == 40401
    assert api.get(f"/config/{NUL}").error_code == 40408
    assert api.get(f"/mode/{NUL}").error_code == 40409
    assert api.get("/subjects", subjectPrefix="a\x00").json == []
    assert api.get("/schemas", subjectPrefix=":.c\x00:").json == []
    assert api.delete("/contexts/c%00").status == 204


def test_a_nul_subject_hint_falls_back_like_any_unknown_name(api: Api) -> None:
    api.registered("s", RECORD_V1)
    assert api.get("/schemas/ids/1", subject="a\x00b").json["subject"] == "s"
    assert api.get("/schemas/ids/1", subject=":.c\x00:x").error_code == 40403


def test_writes_refuse_a_nul_name(api: Api) -> None:
    assert api.register("a\x00b", RECORD_V1).error_code == 42208
    assert api.put(f"/config/{NUL}", {"compatibility": "NONE"}).error_code == 42208


def test_audit_filters_naming_a_nul_find_nothing(api: Api) -> None:
    """On PostgreSQL such a filter used to reach the database and fail with a 500."""
    api.registered("s", RECORD_V1)
    assert api.get("/audit", subject="a\x00b").json == []
    assert api.get("/audit", principal="anonymous\x00").json == []
    assert len(api.get("/audit").json) == 1
