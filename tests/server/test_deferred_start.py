"""Start-up off the database's path: a gunicorn master recognizes a database at head through the
driver alone, and a worker answers before it has loaded SQLAlchemy, building its storage on
first use (app/storage/head_check.py, app/storage/deferred.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.commands import run_command

from app.storage.head_check import at_head

REPO = Path(__file__).resolve().parents[2]


def test_a_database_at_head_is_recognized_through_its_driver(database_url: str) -> None:
    assert at_head(database_url)


def test_the_head_check_imports_no_database_driver_or_sqlalchemy(database_url: str) -> None:
    code = ("import sys; from app.storage.head_check import at_head; "
            f"print(at_head({database_url!r}), sorted(m for m in ('psycopg', 'sqlalchemy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "[]"]


def test_a_database_at_another_revision_is_not_at_head(database_url: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0007'"))
    engine.dispose()
    assert not at_head(database_url)


def test_anything_else_is_left_to_the_full_path(empty_database_url: str, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "registry.db"
    assert not at_head(empty_database_url)
    assert not at_head(f"sqlite:///{missing}")
    assert not missing.parent.exists()  # asking created nothing
    assert not at_head("mysql+pymysql://user@127.0.0.1/registry")
    assert not at_head("postgresql+psycopg://nobody@127.0.0.1:1/registry")


def test_a_worker_answers_before_loading_sqlalchemy_and_builds_storage_on_first_use(database_url: str) -> None:
    """What `wsgi.py` does in a worker whose master checked the database."""
    script = (
        "import json, sys\n"
        "import wsgi\n"
        "client = wsgi.app.test_client()\n"
        "root = client.get('/').status_code\n"
        "loaded_first = 'sqlalchemy' in sys.modules\n"
        "registered = client.post('/subjects/s/versions', json={'schema': '\"string\"'}).get_json()\n"
        "print(json.dumps([root, loaded_first, registered, 'sqlalchemy' in sys.modules]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "REGISTRY_DATABASE_URL": database_url,
           "REGISTRY_AUTO_MIGRATE": "false"}
    result = run_command([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    root, loaded_first, registered, loaded_after = json.loads(result.stdout.strip().splitlines()[-1])
    assert (root, loaded_first, loaded_after) == (200, False, True)
    assert (registered["id"], registered["version"]) == (1, 1)


def test_a_master_finding_the_database_at_head_leaves_its_workers_nothing_to_import_to_register(
    database_url: str,
) -> None:
    """The master's database step loads what the storage and the formats import, as migrating
    did, so a worker forked after it builds its storage and registers its first schema
    without importing SQLAlchemy, the driver, our storage modules or a format's libraries
    while requests wait (after a restart on a database at head they used to)."""
    script = (
        "import json, sys\n"
        "from app.server.serving import prepare_database\n"
        "from app.settings import Settings\n"
        f"settings = Settings(database_url={database_url!r}, auto_migrate=False, metrics=False)\n"
        "prepare_database(settings)\n"
        "loaded = set(sys.modules)\n"
        "from app.server.factory import create_app\n"
        "app = create_app(settings, defer_storage=True)\n"
        "before_first_use = set(sys.modules)\n"
        "registered = app.test_client().post('/subjects/s/versions', json={'schema': '\"string\"'}).get_json()\n"
        "heavy = ('sqlalchemy', 'psycopg', 'app.storage', 'app.formats', 'fastavro')\n"
        "late = sorted(m for m in set(sys.modules) - before_first_use if m.startswith(heavy))\n"
        "print(json.dumps([registered, late, 'alembic' in loaded]))\n"
    )
    result = run_command([sys.executable, "-c", script], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                         capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    registered, late, alembic_loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert (registered["id"], registered["version"]) == (1, 1)
    assert late == []
    assert not alembic_loaded  # a database at head is still recognized without migrating
