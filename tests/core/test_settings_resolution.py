"""Config and mode resolution as pure functions over settings rows."""
from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from app.core.config import GLOBAL_KEY, SUPER_GLOBAL_KEY, effective_config, effective_mode
from app.core.types import Mode


class Row(NamedTuple):
    config: dict[str, Any] | None = None
    mode: str | None = None


CTX_KEY = (".ctx", "")


def test_global_context_config_is_reached_by_every_subject() -> None:
    rows = {SUPER_GLOBAL_KEY: Row(config={"compatibility": "NONE"})}
    assert effective_config(".", "s", rows, "BACKWARD")["compatibility"] == "NONE"
    assert effective_config(".ctx", "s", rows, "BACKWARD")["compatibility"] == "NONE"
    assert effective_config(".ctx", "", rows, "BACKWARD")["compatibility"] == "NONE"


def test_default_context_global_config_comes_before_the_global_context() -> None:
    rows = {GLOBAL_KEY: Row(config={"compatibility": "FULL"}), SUPER_GLOBAL_KEY: Row(config={"compatibility": "NONE"})}
    assert effective_config(".", "s", rows, "BACKWARD")["compatibility"] == "FULL"
    assert effective_config(".ctx", "s", rows, "BACKWARD")["compatibility"] == "NONE"  # skips the default global


def test_a_found_row_without_a_level_gets_the_server_default() -> None:
    rows = {SUPER_GLOBAL_KEY: Row(config={"normalize": True}), GLOBAL_KEY: Row(config={"compatibility": "FULL"})}
    assert effective_config(".ctx", "s", rows, "BACKWARD") == {"normalize": True, "compatibility": "BACKWARD"}


@pytest.mark.parametrize("override_key", [GLOBAL_KEY, SUPER_GLOBAL_KEY])
def test_read_only_override_at_the_top_beats_every_subject_mode(override_key: tuple[str, str]) -> None:
    rows = {override_key: Row(mode="READONLY_OVERRIDE"), (".ctx", "s"): Row(mode="READWRITE"), (".", "s"): Row(mode="IMPORT")}
    assert effective_mode(".ctx", "s", rows) is Mode.READONLY_OVERRIDE
    assert effective_mode(".", "s", rows) is Mode.READONLY_OVERRIDE


def test_a_default_global_mode_hides_the_global_context_override() -> None:
    rows = {GLOBAL_KEY: Row(mode="READWRITE"), SUPER_GLOBAL_KEY: Row(mode="READONLY_OVERRIDE"), (".", "s"): Row(mode="IMPORT")}
    assert effective_mode(".", "s", rows) is Mode.IMPORT


def test_plain_read_only_is_an_ordinary_level() -> None:
    rows = {GLOBAL_KEY: Row(mode="READONLY"), (".", "s"): Row(mode="READWRITE"), CTX_KEY: Row(mode="IMPORT")}
    assert effective_mode(".", "s", rows) is Mode.READWRITE
    assert effective_mode(".", "t", rows) is Mode.READONLY
    assert effective_mode(".ctx", "t", rows) is Mode.IMPORT
    assert effective_mode(".other", "t", rows) is Mode.READWRITE  # the default-context global is skipped
