"""The app's URL rule class: Werkzeug's, with its URL builders made on first use.

For every route it is given, Werkzeug generates two URL-building functions (Python source,
compiled on the spot) beside the regular expression it matches with. Only `url_for` ever
calls them, and the registry builds URLs for a handful of the web UI's routes, while a
worker registers about 75 routes before it can answer at all: generating the builders up
front was about 15 ms of a worker's start. Matching is unchanged; a builder is
generated the first time a URL is built from its rule, then kept.

If a future Werkzeug stops calling `_compile_builder`, this class changes nothing: routes
keep working and only the saving is lost.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule

_lock = threading.Lock()


class LazyBuilderRule(Rule):
    """A `Rule` whose two URL builders are generated when first called."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        generate = super()._compile_builder
        built: list[Callable[..., tuple[str, str]]] = []

        def build(rule: Rule, **values: Any) -> tuple[str, str]:
            # `Rule.compile` binds what this returns to the rule, as it would the real builder.
            if not built:
                with _lock:
                    if not built:
                        built.append(generate(append_unknown).__get__(rule, None))
            return built[0](**values)

        return build
