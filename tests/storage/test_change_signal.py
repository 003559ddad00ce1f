"""The change token that lets hot reads skip the database: it changes with every commit,
in this process and in any other on the host, and is None (no caching) when unusable."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.storage import changes
from app.storage.changes import ChangeSignal

REPO = Path(__file__).resolve().parents[2]


def test_a_commit_in_another_process_changes_the_token_at_once(tmp_path: Path) -> None:
    signal = ChangeSignal(f"sqlite:///{tmp_path}/a.db", None)
    before = signal.token()
    code = f"from app.storage.changes import ChangeSignal; ChangeSignal({f'sqlite:///{tmp_path}/a.db'!r}, None).committed()"
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
    assert signal.token() != before and signal.token() is not None


def test_each_database_has_its_own_token(tmp_path: Path) -> None:
    one, other = ChangeSignal(f"sqlite:///{tmp_path}/a.db", None), ChangeSignal(f"sqlite:///{tmp_path}/b.db", None)
    before = one.token()
    other.committed()
    assert one.token() == before


def test_without_a_usable_shared_directory_the_token_is_unknown(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setattr(changes, "shared_dir", lambda: blocked / "sub")
    signal = ChangeSignal(f"sqlite:///{tmp_path}/c.db", None)
    assert signal.token() is None
    signal.committed()  # harmless
    assert signal.token() is None
    assert os.path.isfile(blocked)
