"""The Flask class the registry runs on: Flask, with two of its per-request costs taken off
the read path, which should cost little more than a Flask hello world (issue 12).

* Flask asks `inspect` whether each before/after hook and the view is a coroutine function
  on every request (five times per API request, ~2 µs each); none of ours ever is, and a
  function cannot stop being one, so the answer is kept per function.
* Routes build their URL builders on first `url_for` (app/url_rules.py), not at start-up.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask

from app.url_rules import LazyBuilderRule


class RegistryFlask(Flask):
    url_rule_class = LazyBuilderRule

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        known = self._sync.get(func)
        if known is None:
            known = self._sync[func] = super().ensure_sync(func)
        return known
