"""Fixtures of the rule tests.

confluent-kafka's encryption executor registers each KMS client it makes in Tink's process-wide
list and later takes the first one that accepts a key URI: a local KMS client made with
another test module's secret (tests/dek) would be used for this module's records, and the
other way round. Each test here starts and ends with that list empty. (Our executors keep
their KMS clients per configuration, which is what this works around.)
"""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from tink._kms_clients import reset_kms_clients


@pytest.fixture(autouse=True)
def fresh_tink_kms_clients() -> Iterator[None]:
    reset_kms_clients()
    yield
    reset_kms_clients()
