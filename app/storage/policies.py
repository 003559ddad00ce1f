"""Policy documents' SQL (`app.core.store.Store`'s policy methods, a mixin of `SqlStore`)."""
from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, null, select, tuple_, union_all, update

from app.core.store.rows import SettingsRead, SubjectRow
from app.storage.direct import DirectStatement, json_value
from app.storage.listings import storable
from app.storage.models import PolicyDocument
from app.storage.statements import SUBJECT_COLUMNS, S

P = PolicyDocument.__table__


@functools.cache
def _settings_and_policies(settings: int, policies: int) -> DirectStatement:
    """`settings` subject/context rows (parameters c0, n0, ...) and `policies` documents
    (pc0, pn0, ...) in one statement: a document comes as a row of `SUBJECT_COLUMNS` with no
    id, the document in the config column (both JSON) and no mode."""
    setting_keys = [tuple_(bindparam(f"c{i}"), bindparam(f"n{i}")) for i in range(settings)]
    policy_keys = [tuple_(bindparam(f"pc{i}"), bindparam(f"pn{i}")) for i in range(policies)]
    rows = select(*SUBJECT_COLUMNS).where(tuple_(S.c.context, S.c.name).in_(setting_keys))
    documents = select(null(), P.c.context, P.c.name, P.c.document, null()).where(
        tuple_(P.c.context, P.c.name).in_(policy_keys))
    return DirectStatement(union_all(rows, documents))


class PolicyQueries:
    conn: Connection

    def policy_documents(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        """The documents stored at `keys` (context, name), in one query."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        rows = self.conn.execute(
            select(P.c.context, P.c.name, P.c.document).where(tuple_(P.c.context, P.c.name).in_(wanted))
        ).all()
        return {(r.context, r.name): r.document for r in rows}

    def settings_and_policies(
        self, keys: Iterable[tuple[str, str]], policy_keys: Iterable[tuple[str, str]]
    ) -> SettingsRead:
        """`settings_rows(keys)` and `policy_documents(policy_keys)` in one round trip (the
        registration's write transaction needs both)."""
        wanted = sorted({(c, n) for c, n in keys if storable(c, n)})
        documents = sorted({(c, n) for c, n in policy_keys if storable(c, n)})
        if not wanted or not documents:  # at most one of the two reads has anything to ask
            rows = self.settings_rows(wanted)  # type: ignore[attr-defined]
            return SettingsRead(rows, self.policy_documents(documents))
        params: dict[str, str] = {}
        for i, (context, name) in enumerate(wanted):
            params[f"c{i}"], params[f"n{i}"] = context, name
        for i, (context, name) in enumerate(documents):
            params[f"pc{i}"], params[f"pn{i}"] = context, name
        read = SettingsRead({}, {})
        for sid, context, name, config, mode in _settings_and_policies(len(wanted), len(documents)).rows(
                self.conn, params):
            if sid is None:
                read.policies[(context, name)] = json_value(config)
            else:
                read.rows[(context, name)] = SubjectRow(sid, context, name, json_value(config), mode)
        return read

    def set_policy_document(self, context: str, name: str, document: dict[str, Any] | None) -> None:
        """Store, replace or (None) remove the document at (context, name)."""
        key = (P.c.context == context) & (P.c.name == name)
        if document is None:
            self.conn.execute(delete(P).where(key))
        elif self.conn.execute(update(P).where(key).values(document=document)).rowcount == 0:
            self.conn.execute(insert(P).values(context=context, name=name, document=document))

    def policy_selections(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Every selection (not the global document), for the removal guard."""
        rows = self.conn.execute(
            select(P.c.context, P.c.name, P.c.document).where(P.c.context != "").order_by(P.c.context, P.c.name)
        ).all()
        return [(r.context, r.name, r.document) for r in rows]
