"""Where the processes of one host share small files: the change token (app/storage/changes.py)
and the failed-login counts (app/security/failures.py). Shared memory where the system has
it (nothing reaches the disk, and a reboot starts clean), one directory per user, so a
registry run under another account never finds a directory it cannot write."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def shared_dir() -> Path:
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())
    return base / f"sqlregistry-{os.getuid()}"
