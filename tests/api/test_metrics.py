"""`GET /metrics`: Prometheus text counting requests by route template and status,
registrations, compatibility failures, cache lookups and the database pool.

In process (Flask's test client) the values are this process's own and shared by every app
the tests build, so each test compares before and after; the live server's multiprocess
aggregation across gunicorn workers is pinned in tests/server/test_serve_metrics.py.
"""
from __future__ import annotations


from api_client import Api
from api_samples import RECORD_INT, RECORD_V1


def samples(api: Api) -> dict[str, float]:
    reply = api.call("GET", "/metrics")
    assert reply.status == 200 and reply.headers["Content-Type"].startswith("text/plain")
    values: dict[str, float] = {}
    for line in reply.raw.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def delta(before: dict[str, float], after: dict[str, float], name: str) -> float:
    return after.get(name, 0.0) - before.get(name, 0.0)


IDS = 'sqlregistry_http_request_duration_seconds_count{method="GET",route="/schemas/ids/<segment:id_>",status="%d"}'
REGISTER = 'sqlregistry_http_request_duration_seconds_count{method="POST",route="/subjects/<subject:subject>/versions",status="%d"}'


def test_requests_are_counted_by_route_template_and_status(api: Api) -> None:
    schema_id = api.call("POST", "/subjects/metrics-a/versions", {"schema": RECORD_V1}).json["id"]
    before = samples(api)
    for _ in range(3):
        assert api.get(f"/schemas/ids/{schema_id}").status == 200
    assert api.get("/schemas/ids/987654").status == 404
    after = samples(api)

    assert delta(before, after, IDS % 200) == 3
    assert delta(before, after, IDS % 404) == 1
    assert not any(f"/schemas/ids/{schema_id}" in name for name in after)  # templates, not paths
    le_inf = IDS.replace("_count{", '_bucket{le="+Inf",') % 200
    assert delta(before, after, le_inf) == 3


def test_registrations_and_compatibility_failures_are_counted(api: Api) -> None:
    before = samples(api)
    assert api.call("POST", "/subjects/metrics-b/versions", {"schema": RECORD_V1}).status == 200
    incompatible = RECORD_INT  # f1: string -> int, unreadable under BACKWARD
    assert api.call("POST", "/subjects/metrics-b/versions", {"schema": incompatible}).status == 409
    check = api.call("POST", "/compatibility/subjects/metrics-b/versions/latest", {"schema": incompatible})
    assert check.json == {"is_compatible": False}
    after = samples(api)

    assert delta(before, after, "sqlregistry_registrations_total") == 1
    assert delta(before, after, 'sqlregistry_writes_total{operation="register"}') == 1
    assert delta(before, after, 'sqlregistry_compatibility_failures_total{operation="register"}') == 1
    assert delta(before, after, 'sqlregistry_compatibility_failures_total{operation="check_compatibility"}') == 1
    assert delta(before, after, REGISTER % 409) == 1


def test_reply_cache_hits_and_misses_are_counted(api: Api) -> None:
    schema_id = api.call("POST", "/subjects/metrics-c/versions", {"schema": RECORD_V1}).json["id"]
    before = samples(api)
    for _ in range(4):
        api.get("/subjects/metrics-c/versions/latest")
    after = samples(api)
    hits = delta(before, after, 'sqlregistry_cache_lookups_total{cache="reply",result="hit"}')
    misses = delta(before, after, 'sqlregistry_cache_lookups_total{cache="reply",result="miss"}')
    assert hits + misses == 4 and misses >= 1  # the first read after the registration misses
    assert schema_id > 0


def test_pool_connections_are_reported_and_none_stays_checked_out(api: Api) -> None:
    api.get("/subjects")
    values = samples(api)
    assert values["sqlregistry_db_connections_open"] >= 1
    assert values["sqlregistry_db_connections_in_use"] == 0
    assert "sqlregistry_db_connections_invalidated_total" in values


def series(api: Api) -> set[str]:
    return set(samples(api))


def test_made_up_methods_and_random_paths_add_no_series_after_the_first(api: Api) -> None:
    """Labels come from a closed set: a method outside HTTP's standard ones counts as `other`,
    a path no route matches as `unmatched`, so 300 such requests leave the scrape's size as
    the first of each kind made it."""
    import random
    import string

    chooser = random.Random(28)

    def word(size: int) -> str:
        return "".join(chooser.choice(string.ascii_uppercase) for _ in range(size))

    def probe(method: str, path: str) -> None:
        assert api.call(method, path).status in (404, 405)

    shapes = ("/{w}", "/subjects/{w}/versions", "/schemas/ids/{w}/{w}", "/config/{w}/{w}")
    for shape in shapes:  # the first request of each kind may add its series
        probe(word(6), shape.format(w=word(5)))
        probe("GET", shape.format(w=word(5)) + "/no/where")
    before = series(api)
    for _ in range(300):
        probe(word(chooser.randint(3, 12)), chooser.choice(shapes).format(w=word(chooser.randint(1, 30))))
    after = series(api)
    assert after == before
    assert any('method="other"' in name and 'route="unmatched"' in name for name in after)
