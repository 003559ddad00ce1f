"""Producers and consumers install the client alone: importing it must not drag the server in."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import app.client
import app.cli.check
server_side = sorted(
    name for name in sys.modules
    if name.split(".")[0] in ("flask", "sqlalchemy", "alembic", "werkzeug", "gunicorn", "psycopg")
    or name.startswith(("app.api", "app.core", "app.storage", "app.formats", "app.server.factory"))
)
print(json.dumps(server_side))
"""


def test_importing_app_client_loads_no_flask_sqlalchemy_or_server_package():
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == []


def test_json_schema_serializers_load_jsonschema_only_when_first_used():
    probe = (
        "import json, sys, app.client\n"
        "before = 'jsonschema' in sys.modules\n"
        "from app.client import JsonSerializer\n"
        "print(json.dumps([before, 'jsonschema' in sys.modules, JsonSerializer.__module__]))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == [False, True, "app.client.json_schema"]


def test_protobuf_serializers_load_the_protobuf_runtime_only_when_first_used():
    probe = (
        "import json, sys, app.client\n"
        "before = 'google.protobuf' in sys.modules\n"
        "from app.client import ProtobufDeserializer\n"
        "print(json.dumps([before, 'google.protobuf' in sys.modules, ProtobufDeserializer.__module__]))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == [False, True, "app.client.protobuf"]
