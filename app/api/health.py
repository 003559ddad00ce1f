"""`/health/live` and `/health/ready`: probes for a load balancer or an orchestrator.

Extensions outside Confluent's paths, so they live outside the parent `api` blueprint: no
media type negotiation, no Confluent error mapping, plain `application/json`.

* live: the process answers HTTP (nothing else is asked, so a database outage never gets
  a healthy instance restarted);
* ready: the database answers one indexed read; 503 with the storage's error code while it
  does not, so a balancer sends traffic elsewhere until it does.
"""
from __future__ import annotations

from flask import Blueprint, Response, jsonify

from app.api.service import registry
from app.core.errors import RegistryError

bp = Blueprint("health", __name__, url_prefix="/health")


@bp.get("/live")
def live() -> Response:
    return jsonify(status="UP")


@bp.get("/ready")
def ready() -> Response:
    registry().check_ready()
    return jsonify(status="UP")


@bp.errorhandler(RegistryError)
def not_ready(exc: RegistryError) -> tuple[Response, int]:
    """The storage's failure (50001 unreachable, 50002 timed out) in Confluent's error shape,
    with a status a balancer understands."""
    return jsonify(status="DOWN", error_code=exc.error_code, message=exc.message), 503
