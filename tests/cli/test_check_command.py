"""`sqlregistry check` as a CI job runs it: the installed command in a subprocess, against the
registry under gunicorn and offline. A mistyped subject fails; the three formats' problems
read alike (`TYPE at LOCATION (field NAME): message`) and `--format json` has their type,
location and field."""
from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from support.commands import run_command

REPO = Path(__file__).resolve().parents[2]

PROTO_V1 = 'syntax = "proto3";\npackage ex;\nmessage Customer {\n  string name = 1;\n  int32 age = 2;\n}\n'
PROTO_V2 = 'syntax = "proto3";\npackage ex;\nmessage Customer {\n  string name = 1;\n  string age = 2;\n}\n'
JSON_V1 = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False})
JSON_V2 = json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False})
AVRO_V1 = json.dumps({"type": "record", "name": "C", "fields": [{"name": "id", "type": "long"}]})
AVRO_V2 = json.dumps({"type": "record", "name": "C", "fields": [{"name": "id", "type": "string"}]})

CASES = {
    "PROTOBUF": ("proto", PROTO_V1, PROTO_V2, "FIELD_SCALAR_KIND_CHANGED", "#/Customer/2", "Customer.age"),
    "JSON": ("json", JSON_V1, JSON_V2, "TYPE_CHANGED", "#/properties/a", "a"),
    "AVRO": ("avsc", AVRO_V1, AVRO_V2, "TYPE_MISMATCH", "/fields/0/type", "id"),
}


def sqlregistry(*argv: str) -> subprocess.CompletedProcess[str]:
    return run_command([sys.executable, "-m", "app.cli", *argv], cwd=REPO, capture_output=True, text=True)


def register(url: str, subject: str, schema_type: str, text: str) -> None:
    body = json.dumps({"schema": text, "schemaType": schema_type}).encode()
    request = urllib.request.Request(f"{url}/subjects/{subject}/versions", body, method="POST",
                                     headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    with urllib.request.urlopen(request) as reply:
        assert reply.status == 200


@pytest.mark.parametrize("schema_type", list(CASES))
def test_an_incompatible_file_reads_alike_in_every_format(
    live_server: str, unique_subject: Callable[[str], str], tmp_path: Path, schema_type: str
) -> None:
    suffix, v1, v2, change, location, field = CASES[schema_type]
    subject = unique_subject()
    register(live_server, subject, schema_type, v1)
    path = tmp_path / f"v2.{suffix}"
    path.write_text(v2)

    text = sqlregistry("check", str(path), "--subject", subject, "--url", live_server)
    assert text.returncode == 1, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == f"{path}: INCOMPATIBLE with {subject} (BACKWARD, version 1)"
    assert lines[1].startswith(f"  - {change} at {location} (field {field}): ")
    assert "{" not in "".join(lines) and "syntax" not in text.stdout  # no raw entry, no quoted old schema

    as_json = sqlregistry("check", str(path), "--subject", subject, "--url", live_server, "--format", "json")
    assert as_json.returncode == 1
    (first, *_) = json.loads(as_json.stdout)["incompatibilities"]
    assert (first["type"], first["location"], first["field"]) == (change, location, field)
    assert first["message"] and "errorType" not in first["message"]


def test_a_mistyped_subject_fails_and_new_subject_allows_a_first_version(
    live_server: str, unique_subject: Callable[[str], str], tmp_path: Path
) -> None:
    subject = unique_subject("customers-value")
    register(live_server, subject, "AVRO", AVRO_V1)
    path = tmp_path / "v1.avsc"
    path.write_text(AVRO_V1)
    typo = subject.replace("customers", "customer")

    refused = sqlregistry("check", str(path), "--subject", typo, "--url", live_server)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr.splitlines() == [
        f"error: subject {typo!r} has no versions (did you mean {subject}?): every schema would pass against it; "
        "check the name, or give --new-subject to check a first version"]

    first = sqlregistry("check", str(path), "--subject", typo, "--new-subject", "--url", live_server)
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"{path}: compatible: {typo} has no versions yet, this would be its first\n"


def test_offline_check_needs_no_registry(tmp_path: Path) -> None:
    policy = tmp_path / "policies.toml"
    policy.write_text('default = ["docs"]\n[sets.docs]\n'
                      'rules = [{ rule = "doc-required", params = { on = ["record", "field"] } }]\n')
    path = tmp_path / "v1.avsc"
    path.write_text(AVRO_V1)
    done = sqlregistry("check", str(path), "--policy-file", str(policy))
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith(f"{path}:")
    assert "doc-required" in done.stdout


def test_the_top_level_help_says_check_also_runs_offline() -> None:
    done = sqlregistry("--help")
    words = " ".join(done.stdout.split())
    assert "check test schema files against a subject on a running registry, or offline against a policy file" \
        in words
