"""The compile process: a child that dies, answers too much or runs past the budget refuses
that one schema, and the next compile gets a new child."""
from __future__ import annotations

import base64
import os
import signal

import pytest
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from support.stopped_child import killed_while_asked

from app.formats import work_budget
from app.formats.base import SchemaParseError
from app.formats.protobuf import compiler, protoc_process
from app.formats.protobuf.format import ProtobufFormat
from app.formats.protobuf.protoc_process import ProtocProcess

SCHEMA = 'syntax = "proto3";\nmessage M { int32 a = 1; }\n'


@pytest.fixture
def protoc(monkeypatch: pytest.MonkeyPatch) -> ProtocProcess:
    """A compile process of the test's own, stopped after it."""
    process = ProtocProcess()
    monkeypatch.setattr(compiler, "PROTOC", process)
    yield process
    process.stop()


def test_a_child_killed_between_compiles_is_replaced(protoc: ProtocProcess) -> None:
    compiler.compile_text(SCHEMA, {})
    first = protoc.child_pid()
    assert first is not None
    os.kill(first, signal.SIGKILL)
    os.waitid(os.P_PID, first, os.WEXITED | os.WNOWAIT)  # dead, not yet reaped: as a crash leaves it
    assert compiler.compile_text(SCHEMA, {}).file.message_type[0].name == "M"
    assert protoc.child_pid() not in (None, first)


def test_a_child_that_dies_mid_compile_refuses_that_schema_only(protoc: ProtocProcess) -> None:
    compiler.compile_text(SCHEMA, {})
    child = protoc.child_pid()
    assert child is not None
    with pytest.raises(SchemaParseError) as refused:
        killed_while_asked(child, lambda: compiler.compile_text(SCHEMA + "message N { int32 b = 1; }\n", {}))
    assert str(refused.value) == compiler.REFUSAL.format(compiler.CRASHED)
    assert compiler.compile_text(SCHEMA, {}).file.message_type[0].name == "M"


def test_a_reply_past_the_byte_limit_refuses_the_schema(protoc: ProtocProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protoc_process, "REPLY_BASE_BYTES", 0)
    monkeypatch.setattr(protoc_process, "REPLY_BYTES_PER_INPUT_BYTE", 1)
    importing = 'syntax = "proto3";\nimport "google/protobuf/descriptor.proto";\n'  # a 100 KB import
    with pytest.raises(SchemaParseError) as refused:
        compiler.compile_text(importing, {})
    assert str(refused.value) == compiler.REFUSAL.format(compiler.CRASHED)
    monkeypatch.undo()
    assert compiler.compile_text(SCHEMA, {}).file.message_type[0].name == "M"


def test_a_child_whose_cpu_time_passes_the_work_budget_is_killed_and_the_request_refused(
    protoc: ProtocProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiler.compile_text(SCHEMA, {})
    child = protoc.child_pid()
    assert child is not None
    os.kill(child, signal.SIGSTOP)  # it cannot answer; its CPU clock is read as ever growing
    readings = iter(range(0, 10**6, 1))
    monkeypatch.setattr(work_budget, "process_cpu_seconds", lambda pid, seen: float(next(readings)))
    with work_budget.limited(5.0), pytest.raises(work_budget.WorkBudgetExceeded):
        compiler.compile_text(SCHEMA + "message N { int32 b = 1; }\n", {})
    assert protoc.child_pid() is None
    monkeypatch.undo()
    assert compiler.compile_text(SCHEMA, {}).file.message_type[0].name == "M"


def test_a_child_that_hangs_without_working_is_killed_at_the_wall_bound(
    protoc: ProtocProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiler.compile_text(SCHEMA, {})
    child = protoc.child_pid()
    assert child is not None
    os.kill(child, signal.SIGSTOP)  # a stopped child spends no CPU: only the wall bound ends the wait
    monkeypatch.setattr(protoc_process, "WALL_SECONDS_PER_BUDGET_SECOND", 0.0)
    with work_budget.limited(5.0), pytest.raises(SchemaParseError) as refused:
        compiler.compile_text(SCHEMA + "message N { int32 b = 1; }\n", {})
    assert not isinstance(refused.value, work_budget.WorkBudgetExceeded)
    assert str(refused.value) == compiler.REFUSAL.format(compiler.CRASHED)
    assert protoc.child_pid() is None
    assert compiler.compile_text(SCHEMA, {}).file.message_type[0].name == "M"


def test_a_forked_process_starts_a_child_of_its_own(protoc: ProtocProcess) -> None:
    compiler.compile_text(SCHEMA, {})
    parent_child = protoc.child_pid()
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the forked copy reports through the pipe
        try:
            compiler.compile_text(SCHEMA, {})
            os.write(writer, str(protoc.child_pid()).encode())
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as answer:
        forked_child = answer.read()
    os.waitpid(pid, 0)
    assert forked_child not in ("", "None", str(parent_child))
    assert protoc.child_pid() == parent_child


def test_nothing_a_schema_holds_reaches_the_log(protoc: ProtocProcess, capfd: pytest.CaptureFixture[str]) -> None:
    """protoc prints its errors on stderr, an import's name with them: a sent descriptor's
    import name with a line break would forge a line in the server's log."""
    sent = FileDescriptorProto(name="x.proto", syntax="proto3", dependency=["evil\nFORGED log line"])
    with pytest.raises(SchemaParseError, match="was not found"):
        ProtobufFormat().parse(base64.b64encode(sent.SerializeToString()).decode(), {})
    with pytest.raises(SchemaParseError):
        compiler.compile_text("message NoSyntax { int32 a = 1; }\nFORGED", {})  # absl's warning, an error
    assert "FORGED" not in capfd.readouterr().err
    assert "No edition or syntax" not in capfd.readouterr().err
