"""Skip locally, fail under CI: a CI image that lost a test dependency must not pass quietly."""
from __future__ import annotations

import os

import pytest


def require_or_skip(missing: str | None) -> None:
    if missing is None:
        return
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"CI must run the browser tests, but {missing}", pytrace=False)
    pytest.skip(missing)
