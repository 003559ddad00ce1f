"""`check` and `register` for CI pipelines: exit codes 0/1/2 and what they print, against the
registry under gunicorn."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.client_samples import USER_V1, USER_V2

from app.client import RegistryClient
from app.cli.check import check_main, parse_messages, register_main

NOT_BACKWARD = json.dumps({"type": "record", "name": "User", "namespace": "com.example",
                           "fields": [{"name": "name", "type": "string"}, {"name": "email", "type": "string"}]})


@pytest.fixture
def files(tmp_path: Path):
    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


@pytest.fixture
def registry_env(live_server, monkeypatch):
    monkeypatch.setenv("REGISTRY_URL", live_server)
    monkeypatch.delenv("REGISTRY_AUTH", raising=False)
    return live_server


def test_check_a_compatible_file_exits_0_and_names_the_level(registry_env, files, unique_subject, capsys):
    subject = unique_subject()
    RegistryClient(registry_env).register(subject, USER_V1)
    assert check_main([files("v2.avsc", USER_V2), "--subject", subject]) == 0
    assert capsys.readouterr().out.strip().endswith(f"compatible with {subject} (BACKWARD)")


def test_check_an_incompatible_file_exits_1_and_lists_type_location_and_message(
    registry_env, files, unique_subject, capsys
):
    subject = unique_subject()
    RegistryClient(registry_env).register(subject, USER_V1)
    v2 = files("v2.avsc", USER_V2)
    bad = files("bad.avsc", NOT_BACKWARD)
    assert check_main([v2, bad, "--subject", subject]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("compatible with " + subject + " (BACKWARD)")
    assert lines[1] == f"{bad}: INCOMPATIBLE with {subject} (BACKWARD, version 1)"
    assert lines[2].startswith("  - READER_FIELD_MISSING_DEFAULT_VALUE at /fields/1 (field email): The field 'email'")


def test_check_against_a_subject_without_versions_exits_2_naming_close_subjects(
    registry_env, files, unique_subject, capsys
):
    subject = unique_subject("customers-value")
    RegistryClient(registry_env).register(subject, USER_V1)
    typo = subject.replace("customers-value", "customer-value")
    assert check_main([files("v2.avsc", USER_V2), "--subject", typo]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"error: subject {typo!r} has no versions (did you mean {subject}?): every schema would pass against it; "
        "check the name, or give --new-subject to check a first version"
    ]


def test_check_with_new_subject_allows_a_first_version(registry_env, files, unique_subject, capsys):
    subject = unique_subject()
    v1 = files("v1.avsc", USER_V1)
    assert check_main([v1, "--subject", subject, "--new-subject"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{v1}: compatible: {subject} has no versions yet, this would be its first"]
    assert check_main([v1, "--subject", subject, "--new-subject", "--format", "json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert (line["compatible"], line["new_subject"]) == (True, True)


@pytest.mark.parametrize("case", ["invalid schema", "missing file", "no url", "bad reference", "no subject"])
def test_check_exits_2_with_one_clear_line(registry_env, files, unique_subject, monkeypatch, capsys, case):
    argv = [files("v1.avsc", USER_V1), "--subject", unique_subject(), "--new-subject"]
    expected = {
        "invalid schema": "invalid schema",
        "missing file": "cannot read",
        "no url": "no registry URL",
        "bad reference": "NAME=SUBJECT:VERSION",
        "no subject": "--subject",
    }[case]
    if case == "invalid schema":
        argv[0] = files("broken.avsc", '{"type": "record", "name": "X", "fields": [{"name": "a"}]}')
    elif case == "missing file":
        argv[0] = "/nonexistent/schema.avsc"
    elif case == "no url":
        monkeypatch.delenv("REGISTRY_URL")
    elif case == "bad reference":
        argv += ["--reference", "Customer"]
    else:
        argv = argv[:1]
    assert check_main(argv) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert expected in error[-1]


def test_check_exits_2_when_the_registry_is_unreachable(files, dead_url, capsys):
    assert check_main([files("v1.avsc", USER_V1), "--subject", "s", "--url", dead_url, "--timeout", "1"]) == 2
    assert capsys.readouterr().err.startswith("error: registry unreachable")


def test_check_with_references_and_an_explicit_type(registry_env, files, unique_subject):
    base = unique_subject("base")
    RegistryClient(registry_env).register(
        base, '{"type":"record","name":"Base","namespace":"x","fields":[{"name":"a","type":"int"}]}')
    outer = files("outer.txt",
                  '{"type":"record","name":"Outer","namespace":"x","fields":[{"name":"b","type":"x.Base"}]}')
    subject = unique_subject("outer")
    assert check_main([outer, "--subject", subject, "--new-subject", "--type", "AVRO",
                       "--reference", f"x.Base={base}:1"]) == 0
    assert register_main([outer, "--subject", subject, "--reference", f"x.Base={base}:1"]) == 0


def test_register_prints_id_and_version_and_uses_basic_credentials(registry_env, files, unique_subject, monkeypatch,
                                                                  capsys):
    monkeypatch.setenv("REGISTRY_AUTH", "ci:secret")  # an open registry ignores it; the header is still sent
    subject = unique_subject()
    assert register_main([files("v1.avsc", USER_V1), files("v2.avsc", USER_V2), "--subject", subject]) == 0
    lines = capsys.readouterr().out.splitlines()
    registered = RegistryClient(registry_env).get_version(subject, 2)
    assert lines[1].endswith(f"registered under {subject}: id {registered.schema_id}, version 2")
    assert register_main(["--url", registry_env, files("v2b.avsc", USER_V2), "--subject", subject, "--normalize"]) == 0


def test_register_an_incompatible_schema_exits_1(registry_env, files, unique_subject, capsys):
    subject = unique_subject()
    RegistryClient(registry_env).register(subject, USER_V1)
    assert register_main([files("bad.avsc", NOT_BACKWARD), "--subject", subject]) == 1
    assert "rejected, incompatible" in capsys.readouterr().out


def test_register_with_malformed_credentials_exits_2(registry_env, files, monkeypatch, capsys):
    monkeypatch.setenv("REGISTRY_AUTH", "no-colon")
    assert register_main([files("v1.avsc", USER_V1), "--subject", "s"]) == 2
    assert "user:password" in capsys.readouterr().err


def test_messages_in_no_known_form_are_kept_on_one_line():
    report = parse_messages(["Found incompatible change: Difference{...}", "Unexpected\nsecond line",
                             "{oldSchemaVersion: 3}", "{oldSchema: '{}'}",
                             "{validateFields: 'false', compatibility: 'FULL'}"])
    assert (report.old_version, report.level, report.old_schema) == (3, "FULL", "{}")
    assert [(p.type, p.location, p.message) for p in report.problems] == [
        ("INCOMPATIBLE", "", "Found incompatible change: Difference{...}"), ("INCOMPATIBLE", "", "Unexpected …")]


def test_register_reports_each_refused_file_goes_on_and_exits_1(registry_env, files, unique_subject, capsys):
    subject = unique_subject()
    RegistryClient(registry_env).register(subject, USER_V1)
    bad = files("bad.avsc", NOT_BACKWARD)
    invalid = files("invalid.avsc", '{"type": "record", "name": "X"}')
    good = files("v2.avsc", USER_V2)
    assert register_main([bad, invalid, good, "--subject", subject]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        bad, "  - READER_FIELD_MISSING_DEFAULT_VALUE at /fields/1 (field email)", invalid, good]
    assert lines[0] == f"{bad}: rejected, incompatible with {subject} (BACKWARD, version 1)"
    assert lines[1].startswith("  - READER_FIELD_MISSING_DEFAULT_VALUE at /fields/1 (field email): The field 'email'")
    assert "rejected by" in lines[2]
    assert lines[3].endswith("version 2")


def test_a_url_without_scheme_is_one_usage_line_and_exit_2(files, capsys):
    assert register_main([files("v1.avsc", USER_V1), "--subject", "s", "--url", "not-a-url"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == ["error: a registry URL starts with http:// or https:// and names a host, got 'not-a-url'"]
