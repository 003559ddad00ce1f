"""Plugin rules through the `sqlregistry.policy_rules` entry points, end to end: the test
distribution under tests/plugins/ is installed with pip (into a directory of its own, put on
sys.path for this module's tests), then found, listed, used, and kept from doing harm."""
from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from policy_api import Api, api  # noqa: F401 - the fixture
from policy_samples import with_fields

from app.policies.catalogue import load_catalogue

PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "acme_policy_rules"


@pytest.fixture(scope="session")
def plugin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("plugins")
    build = tmp_path_factory.mktemp("plugin-build")
    source = build / "acme_policy_rules"
    shutil.copytree(PLUGIN, source)  # setuptools builds in the source tree: keep the repository clean
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", str(target),
         str(source)],
        check=True, cwd=build, env={"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PATH": "/usr/bin:/bin",
                                    "HOME": str(build), "TMPDIR": str(build)},
    )
    return target


@pytest.fixture(autouse=True)
def installed(plugin_dir: Path) -> Iterator[Path]:
    sys.path.insert(0, str(plugin_dir))
    yield plugin_dir
    sys.path.remove(str(plugin_dir))
    for name in [m for m in sys.modules if m.startswith("acme_policy_rules")]:
        del sys.modules[name]


def test_plugins_load_and_bad_ones_are_refused_with_a_log(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="app.policies.catalogue"):
        catalogue = load_catalogue()
    assert catalogue["acme.pii-fields"].source == "acme-policy-rules"
    assert "acme.broken" in catalogue
    assert "unprefixed" not in catalogue and "acme.missing" not in catalogue
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "'unprefixed' refused" in logged and "'acme.missing'" in logged and "failed to load" in logged


def test_plugin_is_listed_and_usable(api: Api) -> None:
    listed = {r["name"]: r for r in api.get("/policy-rules").json}
    assert listed["acme.pii-fields"]["source"] == "acme-policy-rules"
    assert listed["acme.pii-fields"]["formats"] == ["AVRO"]
    reply = api.put("/policies", {"sets": {"pii": {"rules": [{"rule": "acme.pii-fields", "params": {"names": ["email"]}}]}},
                                  "default": ["pii"]})
    assert reply.status == 200, reply
    bad = with_fields({"name": "email", "type": "string", "doc": "Mail"})
    assert api.register("users-value", bad).json == {"error_code": 42201, "message": (
        'Schema has 1 policy violation for subject "users-value": '
        '[acme.pii-fields /fields/0] field "email" holds personal data but its doc does not say PII')}
    assert api.register("users-value", bad.replace('"Mail"', '"Mail, PII"')).status == 200
    params = api.put("/policies", {"sets": {"pii": {"rules": [{"rule": "acme.pii-fields", "params": {"names": 1}}]}}})
    assert params.error_code == 42250  # the plugin's params schema is enforced too


def test_a_raising_plugin_is_a_violation_not_a_500(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    api.put("/policies", {"sets": {"b": {"rules": [{"rule": "acme.broken"}]}}, "default": ["b"]})
    schema = with_fields({"name": "a", "type": "int"})
    with caplog.at_level(logging.ERROR):
        reply = api.register("s-value", schema)
    assert reply.json == {"error_code": 42201, "message":
                          'Schema has 1 policy violation for subject "s-value": [acme.broken] rule failed: ValueError'}
    assert any("ValueError: boom" in (r.exc_text or "") or r.exc_info for r in caplog.records)
    check = api.post("/policies/s-value/check", {"schema": schema})
    assert check.status == 200 and check.json["violations"][0]["message"] == "rule failed: ValueError"
