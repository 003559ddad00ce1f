"""The layering of app/ written down in pyproject.toml's import-linter contracts holds: a
package imports only those below it, the pipeline only the client, and the client only
app.fingerprinting. A new arrow against the layering fails here, naming the import."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

LINT = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"


def test_the_import_contracts_in_pyproject_are_kept() -> None:
    done = subprocess.run([sys.executable, "-c", LINT], cwd=REPO_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
