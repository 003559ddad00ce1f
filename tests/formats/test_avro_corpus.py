"""Apache Avro's own compatibility test pairs, with Java's incompatibilities recorded per pair."""
from __future__ import annotations

import json
from typing import Any

import pytest
from support.conformance import DATA, read_json

from app.formats.avro import AvroFormat

CORPUS = DATA / "avro" / "avro-reader-writer-cases.json"
AVRO = AvroFormat()
CASES: list[dict[str, Any]] = read_json(CORPUS)["cases"]


def test_the_corpus_is_read_whole() -> None:
    assert len(CASES) == 135, f"expected the 135 pairs of {CORPUS}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_corpus_pair_gives_javas_incompatibilities(case: dict[str, Any]) -> None:
    reader = AVRO.parse(json.dumps(case["reader_schema"]), {})
    writer = AVRO.parse(json.dumps(case["writer_schema"]), {})
    found = AVRO.can_read(reader, writer)
    assert (not found) == case["compatible"]
    assert [{"type": i.type, "message": i.message, "location": i.location} for i in found] == case["incompatibilities"]
