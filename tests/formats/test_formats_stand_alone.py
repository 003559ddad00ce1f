"""`app.formats` stands on its own: `app.client` uses it without the registry, so
importing it must not bring in the core, the web framework or the database layer; nor the
client itself (what both need, such as Avro fingerprints, lives in `app.fingerprinting`)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_formats_loads_neither_core_nor_flask_nor_sqlalchemy() -> None:
    probe = (
        "import json, sys; import app.formats, app.formats.avro.format; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'sqlalchemy') "
        "or m in ('app.core', 'app.client') or m.startswith(('app.core.', 'app.client.')))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []
