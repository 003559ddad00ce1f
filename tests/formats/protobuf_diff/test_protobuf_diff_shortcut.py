"""The field pass skips fields written alike whose type cannot hide a change; that shortcut
must never change what a comparison finds. Every pair of the rule tables and of Confluent's
examples is compared with and without it."""
from __future__ import annotations

import pytest

from app.formats.protobuf.diff import compare, fields

from . import (
    test_rules_protobuf_fields,
    test_rules_protobuf_imports,
    test_rules_protobuf_messages,
    test_rules_protobuf_oneofs,
)
from .protobuf_diff_support import compile_native
from .test_conformance_corpora import _cases


def _pairs() -> list[tuple[str, dict[str, str], str, dict[str, str]]]:
    pairs = []
    for module in (test_rules_protobuf_fields, test_rules_protobuf_messages, test_rules_protobuf_oneofs):
        pairs += [(p.values[0], {}, p.values[1], {}) for p in module.CASES]
    pairs += [(p.values[0], p.values[1], p.values[2], p.values[3]) for p in test_rules_protobuf_imports.CASES]
    for case in _cases():
        pairs.append((case.history[0].schema, case.dependencies("original"), case.new.schema,
                      case.dependencies("update")))
    return pairs


def test_shortcut_never_changes_the_differences(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = [
        (compile_native(w, wd), compile_native(r, rd)) for w, wd, r, rd in _pairs()
    ]
    with_shortcut = [compare(writer, reader) for writer, reader in pairs]
    # The swapped direction too: what one side calls added the other calls removed.
    with_shortcut_swapped = [compare(reader, writer) for writer, reader in pairs]
    monkeypatch.setattr(fields, "plainly_unchanged", lambda walk, original, update: False)
    assert [compare(writer, reader) for writer, reader in pairs] == with_shortcut
    assert [compare(reader, writer) for writer, reader in pairs] == with_shortcut_swapped
    assert len(pairs) > 100
