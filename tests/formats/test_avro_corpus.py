"""Apache Avro's own compatibility test pairs, with Java's incompatibilities recorded per pair."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.formats.avro import AvroFormat

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CORPUS = SHARED / "conformance" / "avro" / "avro-reader-writer-cases.json"
AVRO = AvroFormat()


def _cases() -> list[dict[str, Any]]:
    if not CORPUS.exists():
        return []
    return json.loads(CORPUS.read_text(encoding="utf-8"))["cases"]


CASES = _cases()


def test_corpus_is_beside_the_clone(shared_dir: Path) -> None:
    assert len(CASES) == 135, f"expected the 135 pairs of {CORPUS}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_corpus_pair_gives_javas_incompatibilities(case: dict[str, Any]) -> None:
    reader = AVRO.parse(json.dumps(case["reader_schema"]), {})
    writer = AVRO.parse(json.dumps(case["writer_schema"]), {})
    found = AVRO.can_read(reader, writer)
    assert (not found) == case["compatible"]
    assert [{"type": i.type, "message": i.message, "location": i.location} for i in found] == case["incompatibilities"]
