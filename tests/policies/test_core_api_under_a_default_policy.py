"""The core API tests once more, with a default policy in force (registration,
lookup, compatibility and delete endpoints behave as without one when every schema passes).

The tests of the modules in `SUITE` are collected here a second time, each under the name
`test_<module>__<test>`, so they run with this module's `app` fixture: the registry they
get has the global document `DOCUMENT` stored (as `PUT /policies` would, without an audit
row, which some of them count). Its default uses two sets:
- `gate`, at error severity: rules with params every schema of the suite meets, so that
  each registration runs them to the end and nothing is refused;
- `strict`, every built-in at its strictest, at warning severity: each finds plenty, and
  warnings never block.
A rule that raises is a violation, never a 500, so it could go unseen: the fixture also
fails a test during which the engine logged a failing rule. Running the whole of tests/api
this way found JSON Schemas without elements (`true`, `{}`, a lone `$ref`) refused with
"rule failed: ValueError" (fixed, see test_json_schema_rules.py).
"""
from __future__ import annotations

import logging
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from policy_api import Api, api  # noqa: F401 - the fixture; and tests/api on the import path

import test_compatibility  # noqa: E402,I001
import test_deletes
import test_json_schema_registration
import test_protobuf_api
import test_references
import test_registration
import test_schemas
import test_subjects
from app.policies.changes import CHANGES

SUITE: tuple[types.ModuleType, ...] = (
    test_registration, test_schemas, test_subjects, test_compatibility, test_deletes, test_references,
    test_protobuf_api, test_json_schema_registration,
)
PASSES_ANYTHING = "(?s).*"
NO_LIMIT = 10**9
DOCUMENT: dict[str, Any] = {
    "sets": {
        "gate": {"rules": [
            {"rule": "name-pattern", "params": {kind: PASSES_ANYTHING for kind in (
                "record", "field", "enum", "enumSymbol", "fixed", "namespace")}},
            {"rule": "max-size", "params": {limit: NO_LIMIT for limit in (
                "bytes", "fields", "depth", "enumSymbols", "unionBranches")}},
            {"rule": "forbidden-types", "params": {"types": ["no-such-type"], "maxUnionBranches": NO_LIMIT}},
        ]},
        "strict": {"rules": [{**rule, "severity": "warning"} for rule in (
            {"rule": "doc-required", "params": {"on": ["record", "field", "enum", "fixed"]}},
            {"rule": "name-pattern", "params": {"record": "PascalCase", "field": "snake_case",
                                                "enumSymbol": "UPPER_SNAKE_CASE", "namespace": "snake_case"}},
            {"rule": "required-fields", "params": {"fields": [{"name": "id", "type": "long"}]}},
            {"rule": "forbidden-changes", "params": {"changes": list(CHANGES), "against": "all"}},
            {"rule": "max-size", "params": {"bytes": 10, "fields": 1, "depth": 1, "enumSymbols": 1,
                                            "unionBranches": 1}},
            {"rule": "namespace-prefix", "params": {"prefixes": ["com.acme"]}},
            {"rule": "forbidden-types", "params": {"types": ["float", "bytes", "map", "fixed", "uuid"],
                                                   "maxUnionBranches": 1}},
        )]},
    },
    "default": ["gate", "strict"],
}


class _RuleFailures(logging.Handler):
    """The engine's `policy rule ... failed` records (it logs nothing else at ERROR)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def database_url(sqlite_at_head: Callable[[Path], str], tmp_path: Path) -> str:
    """SQLite only: the policy engine sits above storage, and each collected test runs on both
    databases in its own module already; twice more here cost about a twentieth of the suite's time
    for no storage path that module does not cover."""
    return sqlite_at_head(tmp_path / "registry.db")


@pytest.fixture
def app(app: Flask) -> Iterator[Flask]:
    """The usual registry, with `DOCUMENT` stored as the global policy document."""
    app.extensions["registry"].policies.put_global(DOCUMENT)
    failures = _RuleFailures()
    engine_log = logging.getLogger("app.policies.engine")
    engine_log.addHandler(failures)
    try:
        yield app
    finally:
        engine_log.removeHandler(failures)
    assert failures.messages == []


def _collect_suite() -> None:
    """Each module's tests under a prefixed name, and its own fixtures (names must not clash)."""
    taken = set(globals())
    for module in SUITE:
        short = module.__name__.removeprefix("test_")
        for name, value in vars(module).items():
            if name.startswith("test_") and callable(value):
                globals()[f"test_{short}__{name.removeprefix('test_')}"] = value
            elif hasattr(value, "_fixture_function_marker") or type(value).__name__ == "FixtureFunctionDefinition":
                assert name not in taken, f"fixture {name} of {module.__name__} clashes"
                globals()[name] = value
                taken.add(name)


_collect_suite()


def test_the_default_policy_is_in_force_and_its_strict_set_only_warns(api: Api) -> None:
    schema = '{"type": "record", "name": "r", "fields": [{"name": "Amount", "type": "float"}]}'
    assert "id" in api.registered("orders-value", schema)
    reply = api.post("/policies/orders-value/check", {"schema": schema.replace("Amount", "Total")})
    assert reply.status == 200, reply
    assert {v["severity"] for v in reply.json["violations"]} == {"warning"}
    assert sorted(reply.json["checked"]) == sorted({rule["rule"] for s in DOCUMENT["sets"].values()
                                                     for rule in s["rules"]})
    assert {v["rule"] for v in reply.json["violations"]} == {
        "doc-required", "name-pattern", "required-fields", "forbidden-changes", "max-size", "namespace-prefix",
        "forbidden-types"}
