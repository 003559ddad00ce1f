"""The conformance corpora against the live server: every case of every corpus passes (Avro,
JSON Schema under each `compatibilityPolicy`, Protobuf), with Confluent's error types.

The cases are the project's own test data (tests/conformance/data, read by support/conformance.py);
running them over REST keeps the whole HTTP path (config per subject, registration, references,
the compatibility endpoints, verbose messages) honest, not only the checkers
in isolation. Each test asserts every case and names each one that fails.
"""
from __future__ import annotations

import pytest
from support.conformance import CASE_COUNTS, LENIENT, STRICT, CorpusClient, cases

# On PostgreSQL, the fleet's database, only: a verdict is the checkers', whatever the database,
# and the corpora's 620 cases (JSON Schema's twice, once per policy) took 139 s of the suite's
# workers on both; tests/api holds registration, references and the compatibility endpoints to
# both databases.
pytestmark = pytest.mark.parametrize("live_server", ["postgres"], indirect=True)

AVRO_CORPORA = ("avro-backward", "avro-forward", "avro-levels")
JSON_CORPORA = ("json", "json-2020-12", "json-combined", "json-combined-2020-12")
PROTOBUF_CORPORA = ("protobuf", "protobuf-meta")


def run_corpora(live_server: str, corpora: tuple[str, ...], policy: str = STRICT) -> None:
    """Every case of `corpora`, each asserted: the run fails listing every case that did not
    get the corpus's verdict and types, and the case counts are the corpora's."""
    client = CorpusClient(live_server)
    failures: list[str] = []
    for corpus in corpora:
        loaded = cases(corpus)
        assert len(loaded) == CASE_COUNTS[corpus], corpus
        for case in loaded:
            failures += client.run(case, policy).failures(policy)
    assert not failures, f"{len(failures)} cases failed:\n" + "\n".join(failures)


def test_every_avro_corpus_case_passes_with_matching_error_types(live_server: str) -> None:
    run_corpora(live_server, AVRO_CORPORA)


@pytest.mark.parametrize("policy", [STRICT, LENIENT])
def test_json_schema_corpora_verdicts_pass(live_server: str, policy: str) -> None:
    run_corpora(live_server, JSON_CORPORA, policy)


def test_protobuf_corpora_pass_with_references_registered_under_subjects(live_server: str) -> None:
    """Confluent's Protobuf diff examples: every one of the 55 verdicts, the dependencies
    registered first and referenced by name, the well-known imports without references."""
    run_corpora(live_server, PROTOBUF_CORPORA)
