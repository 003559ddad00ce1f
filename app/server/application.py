"""The Flask class the registry runs on: Flask, with two of its per-request costs taken off
the read path, which should cost little more than a Flask hello world.

* Flask asks `inspect` whether each before/after hook and the view is a coroutine function
  on every request (five times per API request, ~2 µs each); none of ours ever is, and a
  function cannot stop being one, so the answer is kept per function.
* Routes build their URL builders on first `url_for` (app/server/url_rules.py), not at start-up.

It is also the one place every request Flask dispatches (the API's and the web UI's) passes
through, so it opens the request's work budget there (`REGISTRY_WORK_BUDGET_SECONDS` of the
serving thread's CPU time, app/formats/work_budget.py): parsing, checking and diffing end with
a refusal of their own well before gunicorn's timeout would kill the worker. The hot reads (app/api/hot_reads.py)
answer before Flask from the read cache alone and parse no schema.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask
from werkzeug.wrappers import Response

from app.formats import work_budget
from app.server.url_rules import LazyBuilderRule


class RegistryFlask(Flask):
    url_rule_class = LazyBuilderRule
    work_budget_seconds: float = 0.0  # the factory sets the configured budget; 0: none

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        known = self._sync.get(func)
        if known is None:
            known = self._sync[func] = super().ensure_sync(func)
        return known

    def full_dispatch_request(self) -> Response:
        with work_budget.limited(self.work_budget_seconds):
            return super().full_dispatch_request()
