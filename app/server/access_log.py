"""The JSON access log (REGISTRY_ACCESS_LOG_FORMAT=json): one object per request and line.

    {"time": "2026-11-25T11:02:03.412Z", "method": "POST", "route": "/subjects/<subject:subject>/versions",
     "status": 200, "ms": 4.12, "subject": "orders-value", "remote": "10.0.0.10"}

A gunicorn logger class rather than a Flask hook: gunicorn already writes the access log
where REGISTRY_ACCESS_LOG says (stdout or a file, reopened on SIGUSR1 for log rotation) and
times the whole request, including what happens outside Flask. The app only leaves the
route template and the subject in the WSGI environ (app/api/telemetry.py); requests no
route matched, or that never reached the app (refused by gunicorn itself), log
`"route": null`. Values are JSON-escaped, which gunicorn's text atoms are not, so a
subject name cannot forge a field.
"""
from __future__ import annotations

import json
import time
import traceback
from datetime import timedelta
from typing import Any

from gunicorn.glogging import Logger

from app.api.telemetry import ROUTE_KEY, SUBJECT_KEY


def access_record(status: Any, environ: dict[str, Any], request_time: timedelta) -> dict[str, Any]:
    """The logged fields of one request; `status` is gunicorn's (an int or "200 OK")."""
    if isinstance(status, str):
        status = int(status.split(None, 1)[0])
    now = time.time()
    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z",
        "method": environ.get("REQUEST_METHOD"),
        "route": environ.get(ROUTE_KEY),
        "status": status,
        "ms": round(request_time.total_seconds() * 1000, 2),
        "subject": environ.get(SUBJECT_KEY),
        "remote": environ.get("REMOTE_ADDR"),
    }


class JsonAccessLogger(Logger):
    """gunicorn's logger with JSON access lines; error logging is unchanged."""

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: timedelta) -> None:
        if not self.access_log_enabled:
            return
        try:
            self.access_log.info(json.dumps(access_record(resp.status, environ, request_time)))
        except Exception:
            self.error(traceback.format_exc())
