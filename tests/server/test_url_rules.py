"""The app's rules generate their URL builders on first use (app/server/url_rules.py): every route
still builds, for `url_for`, the URL Werkzeug's own rule builds."""
from __future__ import annotations

from flask import Flask
from werkzeug.routing import Map, Rule

from app.server.url_rules import LazyBuilderRule


def test_every_route_builds_the_url_werkzeugs_own_rule_builds(app: Flask) -> None:
    assert app.url_rule_class is LazyBuilderRule
    checked = 0
    for lazy in app.url_map.iter_rules():
        plain = Rule(lazy.rule, **lazy.get_empty_kwargs())
        Map([plain], converters=app.url_map.converters, merge_slashes=False, strict_slashes=False)
        given = {name: 7 for name in lazy.arguments}  # every converter (path, int, subject) takes 7
        given["extra"] = "q&r"  # not in the rule: becomes the query string (the other builder)
        assert lazy.build(given) == plain.build(given), lazy.rule
        assert lazy.build(given, append_unknown=False) == plain.build(given, append_unknown=False)
        checked += 1
    assert checked > 50
