"""Random histories (registrations, soft and hard deletes, subject configs and modes) on a
source, then `mirror --verify` scoped to that history's prefix: never a difference."""
from __future__ import annotations

import json
import uuid

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transfer_helpers import JSON, run_cli, seg

NAMES = ["plain", "with/slash", "with space", "ünï", ":.hyp:ctx"]

operation = st.one_of(
    st.tuples(st.just("register"), st.integers(0, 4), st.integers(0, 5)),
    st.tuples(st.just("soft"), st.integers(0, 4), st.integers(1, 4)),
    st.tuples(st.just("hard"), st.integers(0, 4), st.integers(1, 4)),
    st.tuples(st.just("config"), st.integers(0, 4), st.sampled_from(["NONE", "FULL", "BACKWARD"])),
    st.tuples(st.just("mode"), st.integers(0, 4), st.sampled_from(["READONLY", "READWRITE"])),
)


def _subject(prefix: str, index: int) -> str:
    name = NAMES[index]
    return f":.hyp:{prefix}{name[6:]}" if name.startswith(":.hyp:") else prefix + name


def _schema(n: int) -> str:
    return json.dumps({"type": "record", "name": "Rand", "namespace": "hyp",
                       "fields": [{"name": f"f{i}", "type": "int", "default": 0} for i in range(n + 1)]})


def _apply(http: requests.Session, url: str, prefix: str, ops: list[tuple]) -> None:
    """Each operation as a client would send it; refusals (409, 404, 422) are part of the history."""
    for kind, index, arg in ops:
        s = seg(_subject(prefix, index))
        if kind == "register":
            http.post(f"{url}/subjects/{s}/versions", data=json.dumps({"schema": _schema(arg)}), headers=JSON)
        elif kind == "soft":
            http.delete(f"{url}/subjects/{s}/versions/{arg}")
        elif kind == "hard":
            http.delete(f"{url}/subjects/{s}/versions/{arg}")
            http.delete(f"{url}/subjects/{s}/versions/{arg}", params={"permanent": "true"})
        elif kind == "config":
            http.put(f"{url}/config/{s}", data=json.dumps({"compatibility": arg}), headers=JSON)
        else:
            http.put(f"{url}/mode/{s}", data=json.dumps({"mode": arg}), headers=JSON, params={"force": "true"})


@pytest.mark.slow
@pytest.mark.postgres
def test_random_histories_mirror_and_verify_without_differences(registry) -> None:
    source, target = registry("sqlite"), registry("postgres")
    http = requests.Session()

    @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(ops=st.lists(operation, min_size=1, max_size=25))
    def mirrored(ops: list[tuple]) -> None:
        prefix = f"h{uuid.uuid4().hex[:8]}-"
        _apply(http, source, prefix, ops)
        done = run_cli("mirror", "--from", source, "--to", target, "--verify", "--subject-prefix", prefix)
        assert done.returncode == 0, f"{ops}\n{done.stdout}{done.stderr}"
        assert done.stdout.strip().endswith(" 0 differences")

    mirrored()
