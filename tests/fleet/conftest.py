"""Fixtures for the fleet tests: real processes (PostgreSQL, three `sqlregistry serve`
instances with two gunicorn workers each, nginx running deploy/nginx.conf)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
