"""Config and mode endpoints: reading them back, PUT merges, deletes, the IMPORT switch.

A `subject` of None, "" or ":.:" addresses the global (default-context) row; ":.ctx:"
addresses a context's row and ":.__GLOBAL:" Confluent's global-settings context.
"""
from __future__ import annotations

from typing import Any

from app.core.audit import DELETE_CONFIG, DELETE_MODE, NO_AUDIT, SET_CONFIG, SET_MODE, Audit
from app.core.config import (
    GLOBAL_KEY,
    effective_config,
    effective_mode,
    merge_config,
    rows_needed,
    with_level,
)
from app.core.errors import (
    BadRequest,
    OperationNotPermitted,
    ReferenceExists,
    SubjectCompatibilityNotConfigured,
    SubjectModeNotConfigured,
    SubjectNotFound,
)
from app.core.metadata import normalize_metadata, normalize_rule_set
from app.core.subjects import check_writable, validate_subject
from app.core.types import CompatibilityLevel, Mode, QualifiedSubject
from app.formats.base import LENIENT_POLICY, STRICT_POLICY
from app.settings import Settings
from app.core.store.protocol import Storage, Store
from app.core.store.rows import VersionRow

_BOOLEAN_KEYS = ("normalize", "validateFields", "validateRules", "validateNewSchemas")
# Confluent's `CompatibilityPolicy` names, read case-insensitively; LOGICAL adds checks of its own
# on top of STRICT, which formats treat as STRICT.
_POLICIES = (STRICT_POLICY, LENIENT_POLICY, "LOGICAL")
_STRING_KEYS = ("alias", "compatibilityGroup", "aliasForDeks", "compatibilityPolicy")


def _scope(subject: str | None) -> tuple[str, str]:
    if not subject:
        return GLOBAL_KEY
    qs = QualifiedSubject.parse(subject)
    return qs.context, qs.name


class SubjectSettings:
    def __init__(self, storage: Storage, settings: Settings):
        self.storage = storage
        self.default_level = settings.compatibility_level
        self.mode_mutability = settings.mode_mutability

    # ------------------------------------------------------------------ config
    def get_config(self, subject: str | None, default_to_global: bool) -> dict[str, Any]:
        key = _scope(subject)
        with self.storage.read() as store:
            rows = store.settings_rows(rows_needed(*key))
        own = rows.get(key)
        if default_to_global:
            return effective_config(key[0], key[1], rows, self.default_level)
        if own is not None and own.config is not None:
            return with_level(own.config, self.default_level)
        if key == GLOBAL_KEY:
            return {"compatibility": self.default_level}
        raise SubjectCompatibilityNotConfigured.for_subject(subject or "")

    def update_config(
        self, subject: str | None, changes: dict[str, Any], audit: Audit = NO_AUDIT
    ) -> dict[str, Any]:
        key = _scope(subject)
        if subject:
            validate_subject(QualifiedSubject(*key), subject, registering=False)
        changes = _validated_changes(changes)
        with self.storage.write() as store:
            check_writable(store, QualifiedSubject(*key))
            own = store.subject(*key)
            merged = merge_config(own.config if own else None, changes)
            store.set_subject_settings(key[0], key[1], config=merged)
            old = own.config if own else None
            audit.record(store, SET_CONFIG, QualifiedSubject(*key), detail={"old": old, "new": merged})
        return merged

    def delete_config(self, subject: str | None, audit: Audit = NO_AUDIT) -> dict[str, Any]:
        key = _scope(subject)
        with self.storage.write() as store:
            own = store.subject(*key)
            if key != GLOBAL_KEY and (own is None or own.config is None):
                raise SubjectNotFound.for_subject(subject or "")
            check_writable(store, QualifiedSubject(*key))
            old = with_level((own.config if own else None) or {}, self.default_level)
            if own is not None:
                store.set_subject_settings(key[0], key[1], config=None)
                store.drop_subject_if_unused(own.id)
            audit.record(store, DELETE_CONFIG, QualifiedSubject(*key), detail={"old": own.config if own else None})
        return old

    # ------------------------------------------------------------------ mode
    def get_mode(self, subject: str | None, default_to_global: bool) -> str:
        key = _scope(subject)
        with self.storage.read() as store:
            rows = store.settings_rows(rows_needed(*key))
        if default_to_global:
            return effective_mode(key[0], key[1], rows).value
        global_row = rows.get(GLOBAL_KEY)
        if global_row is not None and global_row.mode == Mode.READONLY_OVERRIDE.value:
            return global_row.mode  # up to 8.1 the global override is what every subject reports
        own = rows.get(key)
        if own is not None and own.mode is not None:
            return own.mode
        if key == GLOBAL_KEY:
            return Mode.READWRITE.value
        raise SubjectModeNotConfigured.for_subject(subject or "")

    def update_mode(
        self, subject: str | None, mode: str | None, force: bool, audit: Audit = NO_AUDIT
    ) -> str | None:
        key = _scope(subject)
        if subject:
            validate_subject(QualifiedSubject(*key), subject, registering=False)
        new = Mode.parse(mode).value if mode is not None else None
        if not self.mode_mutability:
            raise OperationNotPermitted("Mode changes are not allowed")
        with self.storage.write() as store:
            rows = store.settings_rows(rows_needed(*key))
            purged: dict[str, list[int]] = {}
            if new == Mode.IMPORT.value and effective_mode(key[0], key[1], rows) is not Mode.IMPORT and not force:
                purged = self._prepare_import(store, key)
            store.set_subject_settings(key[0], key[1], mode=new)
            if new is None:
                row = store.subject(*key)
                if row is not None:
                    store.drop_subject_if_unused(row.id)
            own = rows.get(key)
            detail: dict[str, Any] = {"old": own.mode if own else None, "new": new}
            if force:
                detail["force"] = True
            if purged:
                detail["purged"] = purged
            audit.record(store, SET_MODE, QualifiedSubject(*key), detail=detail)
        return new

    def delete_mode(self, subject: str | None, recursive: bool, audit: Audit = NO_AUDIT) -> str:
        key = _scope(subject)
        with self.storage.write() as store:
            own = store.subject(*key)
            if key != GLOBAL_KEY and (own is None or own.mode is None) and not recursive:
                raise SubjectNotFound.for_subject(subject or "")
            old = (own.mode if own else None) or Mode.READWRITE.value
            if own is not None and own.mode is not None:
                store.set_subject_settings(key[0], key[1], mode=None)
                store.drop_subject_if_unused(own.id)
            cleared = []
            if recursive and not key[1]:
                for row in store.subject_modes(key[0]):
                    store.set_subject_settings(row.context, row.name, mode=None)
                    store.drop_subject_if_unused(row.id)
                    cleared.append(QualifiedSubject(row.context, row.name).qualified())
            detail: dict[str, Any] = {"old": own.mode if own else None}
            if recursive:
                detail.update(recursive=True, cleared=cleared)
            audit.record(store, DELETE_MODE, QualifiedSubject(*key), detail=detail)
        return old

    # ------------------------------------------------------------------ helpers
    def _prepare_import(self, store: Store, key: tuple[str, str]) -> dict[str, list[int]]:
        """Switching a scope to IMPORT: refuse while it has live versions; otherwise its
        soft-deleted versions are hard-deleted first (unless something references them).
        Returns what went (qualified subject -> versions), for the audit row."""
        context, name = key
        if key == GLOBAL_KEY:
            scope = store.versions_in_scope(None, None)
        else:
            scope = store.versions_in_scope(context, name or None)
        if any(not item.version.deleted for item in scope):
            raise OperationNotPermitted("Cannot import since found existing subjects")
        for item in sorted(scope, key=lambda item: (item.context, item.subject, item.version.version)):
            if store.referrers(item.context, item.subject, [item.version.version]):
                raise ReferenceExists.for_version(
                    QualifiedSubject(item.context, item.subject).qualified(), item.version.version
                )
        by_subject: dict[int, list[VersionRow]] = {}
        for item in scope:
            by_subject.setdefault(item.subject_id, []).append(item.version)
        for subject_id, versions in by_subject.items():
            store.hard_delete(subject_id, [v.version for v in versions], [v.schema_pk for v in versions])
            store.clear_subject(subject_id)
        purged: dict[str, list[int]] = {}
        for item in sorted(scope, key=lambda item: (item.context, item.subject, item.version.version)):
            purged.setdefault(QualifiedSubject(item.context, item.subject).qualified(), []).append(item.version.version)
        return purged


def _validated_changes(changes: dict[str, Any]) -> dict[str, Any]:
    """Type-check a ConfigUpdateRequest (a mismatch is a 400, as Jackson gives) and validate
    its level (42203) and rule sets (42210) before anything is stored; a policy is spelled as
    Confluent stores it."""
    out = dict(changes)
    level = out.get("compatibility")
    if level is not None:
        out["compatibility"] = CompatibilityLevel.parse(level).value
    for key in _BOOLEAN_KEYS:
        if out.get(key) is not None and not isinstance(out[key], bool):
            raise BadRequest(f"{key} must be a boolean")
    for key in _STRING_KEYS:
        if out.get(key) is not None and not isinstance(out[key], str):
            raise BadRequest(f"{key} must be a string")
    policy = out.get("compatibilityPolicy")
    if policy is not None:
        # Confluent's `CompatibilityPolicy.forName`: a name it does not know becomes null, so the
        # update clears the stored policy instead of failing.
        out["compatibilityPolicy"] = policy.upper() if policy.upper() in _POLICIES else None
    for key in ("defaultMetadata", "overrideMetadata"):
        if out.get(key) is not None:
            out[key] = normalize_metadata(out[key])
    for key in ("defaultRuleSet", "overrideRuleSet"):
        if out.get(key) is not None:
            out[key] = normalize_rule_set(out[key])
    return out
