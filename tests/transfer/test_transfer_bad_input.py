"""Runtime errors end with exit 1 and one `error: ...` line (no traceback) and write nothing:
a dump that is missing, truncated, corrupted or of an unknown version, and a registry that
cannot be reached. Credentials never show in a message or in the dump."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from transfer_helpers import Rest, record, run_cli, snapshot

from support.postgres import free_port


@pytest.fixture
def setup(registry, tmp_path: Path) -> tuple[str, Path]:
    source = Rest(registry("sqlite"))
    source.register("orders-value", record("Order", ("id", "string")))
    source.register("customers-value", record("Customer", ("name", "string")))
    dump = tmp_path / "good.dump"
    assert run_cli("export", "--from", source.url, "--output", str(dump)).returncode == 0
    return registry("sqlite"), dump


def _one_error_line(done, *expected: str) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    for text in expected:
        assert text in lines[0]
    return lines[0]


def _rewrite(lines: list[str], path: Path) -> None:
    """Lines written back with a correct end line (so only the intended defect remains)."""
    body = "".join(line + "\n" for line in lines)
    end = json.loads(lines[-1]) if lines[-1].startswith('{"type":"end"') else None
    if end is None:
        path.write_text(body, "utf-8")
        return
    head = "".join(line + "\n" for line in lines[:-1]).encode()
    end["sha256"] = hashlib.sha256(head).hexdigest()
    path.write_bytes(head + (json.dumps(end, separators=(",", ":")) + "\n").encode())


def test_import_refuses_every_damaged_dump_and_writes_nothing(setup, tmp_path: Path) -> None:
    target, good = setup
    lines = good.read_text("utf-8").splitlines()
    before = snapshot(target)
    broken = tmp_path / "broken.dump"

    _one_error_line(run_cli("import", "--to", target, str(tmp_path / "missing.dump")), "cannot read the dump")

    broken.write_text("".join(line + "\n" for line in lines[:-1]), "utf-8")
    _one_error_line(run_cli("import", "--to", target, str(broken)), "no end line", "truncated")

    broken.write_bytes(good.read_bytes()[:-20])
    _one_error_line(run_cli("import", "--to", target, str(broken)), "truncated")

    corrupted = list(lines)
    corrupted[2] = corrupted[2][:-1] + "#"  # no longer JSON
    broken.write_text("".join(line + "\n" for line in corrupted), "utf-8")
    _one_error_line(run_cli("import", "--to", target, str(broken)), "line 3", "not a JSON object")

    edited = list(lines)
    at = next(i for i, line in enumerate(edited) if '"type":"schema"' in line and "Order" in line)
    edited[at] = edited[at].replace("Order", "Ordre")  # still valid JSON: only the checksum tells
    broken.write_text("".join(line + "\n" for line in edited), "utf-8")
    _one_error_line(run_cli("import", "--to", target, str(broken)), "checksum mismatch")

    header = json.loads(lines[0])
    header["formatVersion"] = 2
    _rewrite([json.dumps(header, separators=(",", ":")), *lines[1:]], broken)
    _one_error_line(run_cli("import", "--to", target, str(broken)), "formatVersion 2 is not supported")

    assert snapshot(target) == before
    assert not list(tmp_path.glob("*.import-state.json"))


def test_unreachable_registries_fail_in_one_line_without_credentials(setup, tmp_path: Path) -> None:
    target, good = setup
    nowhere = f"http://operator:s3cret-pw@127.0.0.1:{free_port()}"
    output = tmp_path / "never.dump"
    line = _one_error_line(run_cli("export", "--from", nowhere, "--output", str(output)), "127.0.0.1")
    assert "s3cret" not in line and not output.exists()
    line = _one_error_line(run_cli("import", "--to", nowhere, str(good)), "127.0.0.1")
    assert "s3cret" not in line
    line = _one_error_line(run_cli("verify", "--from", target, "--to", nowhere))
    assert "s3cret" not in line


def test_credentials_stay_out_of_the_dump(setup, tmp_path: Path) -> None:
    target, _ = setup
    with_userinfo = target.replace("http://", "http://operator:s3cret-pw@")
    out = tmp_path / "creds.dump"
    done = run_cli("export", "--from", with_userinfo, "--output", str(out),
                   env={"REGISTRY_FROM_AUTH": "bearer:t0ken-value"})
    assert done.returncode == 0, done.stderr
    text = out.read_text("utf-8") + done.stderr + done.stdout
    assert "s3cret" not in text and "t0ken" not in text and "operator" not in text
    assert json.loads(text.splitlines()[0])["source"]["url"] == target


def test_a_malformed_auth_variable_is_a_one_line_error(setup) -> None:
    target, good = setup
    done = run_cli("import", "--to", target, str(good), env={"REGISTRY_TO_AUTH": "password-only"})
    line = _one_error_line(done, "REGISTRY_TO_AUTH must be basic:USER:PASSWORD or bearer:TOKEN")
    assert "password-only" not in line


def test_usage_errors_exit_2(setup) -> None:
    target, good = setup
    assert run_cli("import", str(good)).returncode == 2
    assert run_cli("export", "--from", target, "--workers", "0").returncode == 2
    assert run_cli("mirror", "--from", target).returncode == 2
