"""The UI's one blueprint, shared by the view modules (mounted at `/ui` by `register_web`)."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("ui", __name__, template_folder="templates", static_folder="static", static_url_path="/static")
