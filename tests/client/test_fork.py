"""A client made before a fork keeps working in the child (Spark's Python workers fork): the
child gets its own connections and fresh locks, and the parent's keep working too."""
from __future__ import annotations

import multiprocessing
import sys

import pytest
from support.stub_server import Scripted

from app.client import RegistryClient

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX")


def _child_fetch(client: RegistryClient, schema_id: int, answers) -> None:
    try:
        answers.put(("ok", client.get_schema(schema_id).text, id(client.transport._pool)))
    except Exception as exc:  # reported to the parent, which fails the test
        answers.put(("error", repr(exc), 0))


def run_in_fork(client: RegistryClient, schema_id: int, timeout: float = 20.0):
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    child = context.Process(target=_child_fetch, args=(client, schema_id, answers))
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung")
    return answers.get(timeout=5)


def test_a_forked_child_opens_its_own_connection_and_the_parent_keeps_its_own(stub_server):
    stub = stub_server(default=Scripted(200, {"schema": '"string"'}))
    client = RegistryClient(stub.url)
    client.get_schema(1)  # the parent now holds a kept-alive connection
    parent_pool = id(client.transport._pool)

    status, text, child_pool = run_in_fork(client, 2)

    assert (status, text) == ("ok", '"string"')
    assert child_pool != parent_pool
    client.get_schema(3)
    assert len(stub.hits) == 3
    assert len(stub.connections) == 2  # the parent's one, reused before and after; the child's own


def test_a_lock_held_by_another_thread_at_fork_time_does_not_block_the_child(stub_server):
    stub = stub_server(default=Scripted(200, {"schema": '"int"'}))
    client = RegistryClient(stub.url)
    with client._schemas._guard:  # as if a parent thread were inside the cache at the fork
        status, text, _ = run_in_fork(client, 5, timeout=10)
    assert (status, text) == ("ok", '"int"')
