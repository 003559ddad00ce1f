"""Policy documents' SQL (`app.core.store.Store`'s policy methods, a mixin of `SqlStore`)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, delete, insert, select, tuple_, update

from app.storage.models import PolicyDocument

P = PolicyDocument.__table__


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
