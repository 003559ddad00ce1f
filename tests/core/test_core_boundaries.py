"""The core's boundaries: it owns the storage interface, so importing it loads no database
library, and storage depends on the core only for records and errors (and the one rule of
what text can be stored, which `sqlregistry db check` applies to stored rows)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"


def loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=APP.parent)
    return {name.split(".")[0] for name in out.stdout.split()} | set(out.stdout.split())


def test_importing_the_core_loads_neither_sqlalchemy_nor_flask() -> None:
    modules = loaded_after("import app.core.registry, app.core.store.protocol, app.core.access")
    assert "sqlalchemy" not in modules and "flask" not in modules
    assert not any(name.startswith("app.storage") or name.startswith("app.api") for name in modules)


def test_storage_imports_only_the_cores_records_and_errors() -> None:
    # An API family's subpackage (DEK registry, exporters, associations) keeps its own records module.
    allowed = {"app.core.records", "app.core.errors", "app.core.store.protocol", "app.core.store.rows",
               "app.core.store.audit", "app.core.store.browse", "app.core.storable_text",
               "app.core.dek.records", "app.core.exporters.records", "app.core.associations.records"}
    for path in (APP / "storage").glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {
            node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("app.core")
        }
        assert imported <= allowed, f"{path.name} imports {sorted(imported - allowed)}"
