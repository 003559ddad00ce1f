"""The DEK registry's SQL (`app.core.dek.records.DekStore`, a mixin of `SqlStore`).

Writes replace a row in place (an UPDATE, else an INSERT) inside the caller's transaction;
the service has read the row in the same transaction, and the primary keys back it up when
two writers race (the loser's IntegrityError is the repository's WriteConflict, and the
whole operation is retried).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, delete, func, insert, or_, select, update

from app.core.dek.records import Dek, DekKey, Kek
from app.storage.models import DataEncryptionKey, KeyEncryptionKey
from app.storage.version_writes import now_ms

K = KeyEncryptionKey.__table__
D = DataEncryptionKey.__table__


def _kek(row: Any) -> Kek:
    return Kek(row.context, row.name, row.kms_type, row.kms_key_id, dict(row.kms_props or {}), row.doc,
               bool(row.shared), row.ts, bool(row.deleted))


def _dek_key_filter(key: DekKey) -> Any:
    return (
        (D.c.context == key.context) & (D.c.kek_name == key.kek_name) & (D.c.subject == key.subject)
        & (D.c.algorithm == key.algorithm.value)
    )


class DekQueries:
    conn: Connection

    def kek(self, context: str, name: str) -> Kek | None:
        row = self.conn.execute(select(K).where((K.c.context == context) & (K.c.name == name))).first()
        return _kek(row) if row is not None else None

    def kek_names(self, context: str, deleted: bool) -> list[str]:
        query = select(K.c.name).where(K.c.context == context)
        if not deleted:
            query = query.where(K.c.deleted.is_(False))
        return list(self.conn.execute(query.order_by(K.c.name)).scalars())

    def kek_names_holding(self, context: str, subject_prefixes: list[str], deleted: bool) -> list[str]:
        """A `LIKE` per prefix, escaped, so a `%` or `_` in one is only itself."""
        if not subject_prefixes:
            return []
        held = or_(*(D.c.subject.startswith(prefix, autoescape=True) for prefix in subject_prefixes))
        query = select(D.c.kek_name).where((D.c.context == context) & held)
        if not deleted:
            query = query.where(D.c.deleted.is_(False))
        return list(self.conn.execute(query.distinct().order_by(D.c.kek_name)).scalars())

    def put_kek(self, kek: Kek) -> Kek:
        stored = replace(kek, ts=now_ms())
        values = {
            "kms_type": stored.kms_type, "kms_key_id": stored.kms_key_id, "kms_props": dict(stored.kms_props),
            "doc": stored.doc, "shared": stored.shared, "ts": stored.ts, "deleted": stored.deleted,
        }
        key = (K.c.context == kek.context) & (K.c.name == kek.name)
        if self.conn.execute(update(K).where(key).values(**values)).rowcount == 0:
            self.conn.execute(insert(K).values(context=kek.context, name=kek.name, **values))
        return stored

    def remove_kek(self, context: str, name: str) -> None:
        self.conn.execute(delete(K).where((K.c.context == context) & (K.c.name == name)))

    def dek_subjects(self, context: str, kek_name: str, deleted: bool) -> list[str]:
        query = select(D.c.subject).where((D.c.context == context) & (D.c.kek_name == kek_name))
        if not deleted:
            query = query.where(D.c.deleted.is_(False))
        return list(self.conn.execute(query.distinct().order_by(D.c.subject)).scalars())

    def deks(self, key: DekKey, deleted: bool) -> list[Dek]:
        query = select(D.c.version, D.c.encrypted_key_material, D.c.ts, D.c.deleted).where(_dek_key_filter(key))
        if not deleted:
            query = query.where(D.c.deleted.is_(False))
        rows = self.conn.execute(query.order_by(D.c.version)).all()
        return [Dek(key, r.version, r.encrypted_key_material, r.ts, bool(r.deleted)) for r in rows]

    def count_deks(self, context: str, kek_name: str, deleted: bool) -> int:
        query = select(func.count()).select_from(D).where((D.c.context == context) & (D.c.kek_name == kek_name))
        if not deleted:
            query = query.where(D.c.deleted.is_(False))
        return int(self.conn.execute(query).scalar_one())

    def material_elsewhere(self, material: str, key: DekKey, version: int) -> bool:
        """A scan of the DEKs (no index on the material): only asked of key material a client
        sends under a shared KEK, which Confluent's clients never do (they let the server
        make those keys)."""
        own = _dek_key_filter(key) & (D.c.version == version)
        query = select(D.c.version).where((D.c.encrypted_key_material == material) & ~own).limit(1)
        return self.conn.execute(query).first() is not None

    def put_dek(self, dek: Dek) -> Dek:
        stored = replace(dek, ts=now_ms())
        values = {"encrypted_key_material": stored.encrypted_key_material, "ts": stored.ts, "deleted": stored.deleted}
        where = _dek_key_filter(dek.key) & (D.c.version == dek.version)
        if self.conn.execute(update(D).where(where).values(**values)).rowcount == 0:
            key = dek.key
            self.conn.execute(insert(D).values(
                context=key.context, kek_name=key.kek_name, subject=key.subject, algorithm=key.algorithm.value,
                version=dek.version, **values))
        return stored

    def remove_deks(self, key: DekKey, versions: list[int]) -> None:
        if versions:
            self.conn.execute(delete(D).where(_dek_key_filter(key) & D.c.version.in_(versions)))

