"""app.pipeline is the only package that imports pyspark: the server and the client install
and run without it."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
IMPORT = re.compile(r"^\s*(from|import)\s+pyspark\b", re.MULTILINE)


def test_no_module_outside_app_pipeline_imports_pyspark():
    offenders = [str(path.relative_to(APP)) for path in APP.rglob("*.py")
                 if "pipeline" not in path.relative_to(APP).parts[:1] and IMPORT.search(path.read_text())]
    assert offenders == []


def test_importing_the_client_and_the_server_loads_no_pyspark():
    code = "import sys, app.client, app.api; assert not any(m.startswith('pyspark') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=APP.parent)
