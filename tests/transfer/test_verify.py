"""`verify` compares and writes nothing: each difference is one line and the exit is 4;
subjects only the target has are noted and do not count."""
from __future__ import annotations

from transfer_helpers import Rest, record, run_cli, seg, snapshot


def test_verify_reports_each_difference_and_exits_4(registry) -> None:
    source, target = Rest(registry("sqlite")), Rest(registry("sqlite"))
    source.config(None, compatibility="NONE")
    source.register("orders-value", record("Order", ("id", "string")))
    source.register("orders-value", record("Order", ("id", "string"), ("qty", "int")))
    source.register("customers-value", record("Customer", ("name", "string")))
    source.register("gone-value", record("Gone", ("g", "int")))
    assert run_cli("mirror", "--from", source.url, "--to", target.url, "--verify").returncode == 0

    clean = run_cli("verify", "--from", source.url, "--to", target.url)
    assert clean.returncode == 0 and clean.stdout.strip() == "verify: 3 subjects, 4 versions, 0 differences"

    target.register("only-on-target", record("Extra", ("e", "int")))
    target.delete_version("orders-value", 2)
    target.config("customers-value", compatibility="FULL")
    target.mode("gone-value", "READONLY")
    before = snapshot(target.url)
    done = run_cli("verify", "--from", source.url, "--to", target.url)
    assert done.returncode == 4, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "diff: DELETED subject=orders-value version=2 source=False target=True" in lines
    assert "diff: CONFIG subject=customers-value source=None target={'compatibility': 'FULL'}" in lines
    assert "diff: MODE subject=gone-value source=None target=READONLY" in lines
    assert "note: extra subject only-on-target (only on the target)" in lines
    assert lines[-1] == "verify: 3 subjects, 4 versions, 3 differences"
    assert snapshot(target.url) == before


def test_verify_scoped_by_prefix_ignores_other_subjects(registry) -> None:
    source, target = Rest(registry("sqlite")), Rest(registry("sqlite"))
    source.register("team-a-value", record("A", ("a", "int")))
    source.register("team-b-value", record("B", ("b", "int")))
    done = run_cli("mirror", "--from", source.url, "--to", target.url, "--subject-prefix", "team-a", "--verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert Rest(target.url).call("GET", "/subjects") == ["team-a-value"]
    assert run_cli("verify", "--from", source.url, "--to", target.url).returncode == 4


def test_mirror_scoped_by_context_copies_that_context_only(registry) -> None:
    source, target = Rest(registry("sqlite")), Rest(registry("sqlite"))
    source.register("orders-value", record("Order", ("id", "string")))
    source.register(":.staging:orders-value", record("Order", ("id", "int")))
    source.config(":.staging:", compatibility="NONE")
    done = run_cli("mirror", "--from", source.url, "--to", target.url, "--context", "staging", "--verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert target.call("GET", "/subjects") == [":.staging:orders-value"]
    assert target.call("GET", f"/config/{seg(':.staging:')}") == {"compatibilityLevel": "NONE"}
