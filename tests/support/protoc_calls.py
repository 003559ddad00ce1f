"""protoc's binding with its entry points' calls counted: how tests pin how often a schema is
compiled (`run_main`, the command line) and its errors read (`get_protos`)."""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from app.formats.protobuf import compiler


class CountingProtoc:
    """Stands in for `grpc_tools._protoc_compiler`, passing every call on."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._real, name)
        if name not in ("run_main", "get_protos"):
            return found

        def counted(*args: Any) -> Any:
            self.calls[name] += 1
            return found(*args)

        return counted


def counting_protoc(monkeypatch: pytest.MonkeyPatch) -> CountingProtoc:
    counting = CountingProtoc(compiler._protoc_compiler)
    monkeypatch.setattr(compiler, "_protoc_compiler", counting)
    return counting
