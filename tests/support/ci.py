"""Whether the run is CI's: there a test that cannot run (no PostgreSQL, Java, chromium, Spark
class archive) fails instead of skipping, so a CI image that lost one cannot pass silently."""
from __future__ import annotations

import os


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
