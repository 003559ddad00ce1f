"""protoc's entry points' calls counted: how tests pin how often a schema is compiled
(`run_main`, the command line) and its errors read (`get_protos`), as the compile process
reports them with each reply."""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import pytest

from app.formats.protobuf import compiler
from app.formats.protobuf.protoc_child import ChildReply
from app.formats.protobuf.protoc_process import ProtocProcess


class CountingProtoc:
    """Stands in for the compile process, passing every compilation on."""

    def __init__(self, real: ProtocProcess) -> None:
        self._real = real
        self.calls: Counter[str] = Counter()

    def compile(self, main: str, files: Mapping[str, str], include: list[str]) -> ChildReply:
        reply = self._real.compile(main, files, include)
        self.calls.update(reply.ran)
        return reply


def counting_protoc(monkeypatch: pytest.MonkeyPatch) -> CountingProtoc:
    counting = CountingProtoc(compiler.PROTOC)
    monkeypatch.setattr(compiler, "PROTOC", counting)
    return counting
