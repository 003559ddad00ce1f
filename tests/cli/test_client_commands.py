"""`sqlregistry check` and `sqlregistry register` run app.client's CI commands against a
running registry, with their exit codes: 0 done/compatible, 1 incompatible, 2 unusable."""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from support.commands import run_command
from support.postgres import free_port

from app.cli.main import main

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, name: str, fields: list[dict]) -> str:
    path = tmp_path / f"{name}.avsc"
    path.write_text(json.dumps({"type": "record", "name": "Order", "fields": fields}))
    return str(path)


def test_register_then_check_through_the_sqlregistry_command(
    live_server: str, unique_subject: Callable[[str], str], tmp_path: Path, capsys
) -> None:
    subject = unique_subject()
    v1 = write(tmp_path, "v1", [{"name": "id", "type": "long"}])
    compatible = write(tmp_path, "v2", [{"name": "id", "type": "long"},
                                        {"name": "note", "type": "string", "default": ""}])
    breaking = write(tmp_path, "v3", [{"name": "id", "type": "string"}])

    assert main(["register", v1, "--subject", subject, "--url", live_server]) == 0
    assert "version 1" in capsys.readouterr().out.lower()
    assert main(["check", compatible, "--subject", subject, "--url", live_server]) == 0
    assert main(["check", breaking, "--subject", subject, "--url", live_server]) == 1
    assert "TYPE_MISMATCH" in capsys.readouterr().out


def test_an_unreachable_registry_is_exit_code_2_with_one_line(tmp_path: Path) -> None:
    schema = write(tmp_path, "v1", [{"name": "id", "type": "long"}])
    done = run_command(
        [sys.executable, "-m", "app.cli", "check", schema, "--subject", "s",
         "--url", f"http://127.0.0.1:{free_port()}"],
        cwd=REPO, capture_output=True, text=True,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "unreachable" in done.stderr
