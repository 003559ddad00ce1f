"""Where a subject's config and mode come from.

Rows are addressed as (context, name): a subject, its context (name ""), the default-context
global row (".", "") and Confluent's `:.__GLOBAL:` row. The first row found wins as a whole;
a row without a level gets the server default level, not the next row's (a reference quirk
that clients can observe through GET /config/{s}).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from app.core.types import DEFAULT_CONTEXT, GLOBAL_CONTEXT, Mode

GLOBAL_KEY = (DEFAULT_CONTEXT, "")
SUPER_GLOBAL_KEY = (GLOBAL_CONTEXT, "")

# ConfigUpdateRequest keys; everything else in a PUT body is ignored, as Jackson does.
CONFIG_KEYS = (
    "compatibility", "alias", "normalize", "validateFields", "validateRules", "compatibilityGroup",
    "defaultMetadata", "overrideMetadata", "defaultRuleSet", "overrideRuleSet", "aliasForDeks",
    "validateNewSchemas", "compatibilityPolicy",
)
# Flags a subject's own config inherits from the default-context global config when unset.
INHERITED_FLAGS = (
    "normalize", "validateFields", "validateNewSchemas", "validateRules", "compatibilityPolicy",
    "compatibilityGroup",
)


class SettingsRow(Protocol):
    config: dict[str, Any] | None
    mode: str | None


def lookup_order(context: str, name: str) -> list[tuple[str, str]]:
    """A subject, then its context (the global row in the default context), then `:.__GLOBAL:`.
    A subject in a named context never consults the default-context global row."""
    keys = [(context, name)] if name else []
    keys.append((context, ""))
    if context != GLOBAL_CONTEXT:
        keys.append(SUPER_GLOBAL_KEY)
    return keys


def rows_needed(context: str, name: str) -> list[tuple[str, str]]:
    return [*lookup_order(context, name), GLOBAL_KEY]


def with_level(config: Mapping[str, Any], default_level: str) -> dict[str, Any]:
    out = dict(config)
    if not out.get("compatibility"):
        out["compatibility"] = default_level
    return out


SUBJECT_SOURCE = "subject"
CONTEXT_SOURCE = "context"
GLOBAL_SOURCE = "global"
DEFAULT_SOURCE = "default"


def _source(key: tuple[str, str]) -> str:
    """Which settings a row holds: a subject's, a named context's, or the global ones (the
    default context's row and `:.__GLOBAL:`)."""
    if key[1]:
        return SUBJECT_SOURCE
    return GLOBAL_SOURCE if key in (GLOBAL_KEY, SUPER_GLOBAL_KEY) else CONTEXT_SOURCE


def effective_config(
    context: str, name: str, rows: Mapping[tuple[str, str], SettingsRow], default_level: str
) -> dict[str, Any]:
    return resolve_config(context, name, rows, default_level)[0]


def resolve_config(
    context: str, name: str, rows: Mapping[tuple[str, str], SettingsRow], default_level: str
) -> tuple[dict[str, Any], str]:
    """The config in force and where its level comes from: the first row of `lookup_order`
    with a config, whole; its level is the server default's when that row sets none (as in Confluent:
    the source is then "default", although the row's other settings apply)."""
    for key in lookup_order(context, name):
        row = rows.get(key)
        if row is not None and row.config is not None:
            found = with_level(row.config, default_level)
            if name and key == (context, name):
                global_row = rows.get(GLOBAL_KEY)
                global_config = (global_row.config if global_row else None) or {}
                for flag in INHERITED_FLAGS:
                    if found.get(flag) is None and global_config.get(flag) is not None:
                        found[flag] = global_config[flag]
            return found, _source(key) if row.config.get("compatibility") else DEFAULT_SOURCE
    return {"compatibility": default_level}, DEFAULT_SOURCE


def effective_mode(context: str, name: str, rows: Mapping[tuple[str, str], SettingsRow]) -> Mode:
    return resolve_mode(context, name, rows)[0]


def resolve_mode(context: str, name: str, rows: Mapping[tuple[str, str], SettingsRow]) -> tuple[Mode, str]:
    """The mode in force and where it comes from. Up to Confluent 8.1 a global
    READONLY_OVERRIDE overrides every subject's own mode. "Global" is the top-level mode as
    Confluent resolves it: the default-context global row, else the `:.__GLOBAL:` row."""
    top = next(
        (row.mode for row in (rows.get(GLOBAL_KEY), rows.get(SUPER_GLOBAL_KEY)) if row is not None and row.mode),
        None,
    )
    if top == Mode.READONLY_OVERRIDE.value:
        return Mode.READONLY_OVERRIDE, GLOBAL_SOURCE
    for key in lookup_order(context, name):
        row = rows.get(key)
        if row is not None and row.mode is not None:
            return Mode(row.mode), _source(key)
    return Mode.READWRITE, DEFAULT_SOURCE


def merge_config(stored: Mapping[str, Any] | None, changes: Mapping[str, Any]) -> dict[str, Any]:
    """PUT semantics: absent keys keep the stored value, an explicit null clears it."""
    out = dict(stored or {})
    for key in CONFIG_KEYS:
        if key not in changes:
            continue
        if changes[key] is None:
            out.pop(key, None)
        else:
            out[key] = changes[key]
    return out
