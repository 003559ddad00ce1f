"""The exporters table's SQL (a mixin of `SqlStore`).

Definitions change in write transactions, with their audit rows, and those commits wake the
runners like any registry change. The runner's own bookkeeping (taking and renewing a lease,
reporting state, offset and trace) is single conditional UPDATEs run on a read connection,
which commits each at once: a heartbeat every second is no registry change, and bumping the
change token for it would empty every cached reply of the host and wake every runner.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, case, delete, func, insert, or_, select, update

from app.core.exporters.records import ExporterDefinition, ExporterStatus, StoredExporter
from app.storage.direct import json_value
from app.storage.listings import S, V
from app.storage.models import ExporterRow

E = ExporterRow.__table__


def _stored(row: Any) -> StoredExporter:
    definition = ExporterDefinition.from_json(json_value(row.definition))
    status = ExporterStatus(row.name, row.state, int(row.offset), int(row.ts), row.trace)
    return StoredExporter(definition, dict(json_value(row.config)), status, row.lease_owner, int(row.lease_expires),
                          int(row.lease_generation))


@dataclass(frozen=True)
class SubjectMark:
    """What changes whenever a subject's versions, config or mode change: a runner copies a
    subject again only when its mark moved (versions added, soft- or hard-deleted, replaced)."""

    context: str
    name: str
    versions: int
    live: int
    newest: int
    schema_keys: int
    config: Any
    mode: str | None

    @property
    def qualified(self) -> str:
        return self.name if self.context == "." else f":{self.context}:{self.name}"


class ExporterSourceQueries:
    conn: Connection

    def subject_marks(self) -> list[SubjectMark]:
        """Every subject's mark, in two queries whatever the number of subjects."""
        live = func.sum(case((V.c.deleted.is_(False), 1), else_=0))
        counts = {r[0]: r[1:] for r in self.conn.execute(
            select(V.c.subject_id, func.count(), live, func.max(V.c.version), func.sum(V.c.schema_pk))
            .group_by(V.c.subject_id))}
        marks = []
        for row in self.conn.execute(select(S.c.id, S.c.context, S.c.name, S.c.config, S.c.mode).where(S.c.name != "")):
            versions, alive, newest, keys = counts.get(row.id, (0, 0, 0, 0))
            config = json_value(row.config)
            if versions == 0 and config is None and row.mode is None:
                continue
            marks.append(SubjectMark(row.context, row.name, int(versions), int(alive or 0), int(newest or 0),
                                     int(keys or 0), config, row.mode))
        return marks


class ExporterQueries(ExporterSourceQueries):
    conn: Connection

    def exporter_names(self) -> list[str]:
        return [r.name for r in self.conn.execute(select(E.c.name).order_by(E.c.name))]

    def exporters(self) -> list[StoredExporter]:
        return [_stored(r) for r in self.conn.execute(select(E).order_by(E.c.name))]

    def exporter(self, name: str, lock: bool = False) -> StoredExporter | None:
        query = select(E).where(E.c.name == name)
        if lock and self.conn.dialect.name == "postgresql":
            query = query.with_for_update()
        row = self.conn.execute(query).first()
        return None if row is None else _stored(row)

    def insert_exporter(self, definition: ExporterDefinition, config: dict[str, str], state: str, now: int) -> None:
        self.conn.execute(insert(E).values(
            name=definition.name, definition=definition.to_json(), config=config, state=state, offset=0, ts=now,
            trace=None, lease_owner=None, lease_expires=0))

    def update_exporter(self, name: str, *, definition: ExporterDefinition | None = None,
                        config: dict[str, str] | None = None, state: str | None = None,
                        offset: int | None = None, trace: str | None = None, now: int | None = None) -> None:
        """Set what is given; `trace` "" clears it."""
        values: dict[str, Any] = {}
        if definition is not None:
            values["definition"] = definition.to_json()
        if config is not None:
            values["config"] = config
        if state is not None:
            values["state"] = state
        if offset is not None:
            values["offset"] = offset
        if trace is not None:
            values["trace"] = trace or None
        if now is not None:
            values["ts"] = now
        self.conn.execute(update(E).where(E.c.name == name).values(**values))

    def delete_exporter(self, name: str) -> None:
        self.conn.execute(delete(E).where(E.c.name == name))

    # ---------------------------------------------------------------- the runner's bookkeeping
    def take_exporter_lease(self, name: str, owner: str, now: int, expires: int) -> int | None:
        """Take `name`'s lease for `owner` until `expires`, when nobody holds it, its holder
        let it expire (died, or paused), or `owner` itself lost track of it: the lease's new
        generation (raised at every taking, the fencing token), None when another holds it."""
        taken = self.conn.execute(update(E).where(
            E.c.name == name,
            or_(E.c.lease_owner.is_(None), E.c.lease_owner == owner, E.c.lease_expires < now),
        ).values(lease_owner=owner, lease_expires=expires, lease_generation=E.c.lease_generation + 1)
            .returning(E.c.lease_generation)).first()
        return None if taken is None else int(taken[0])

    def renew_exporter_lease(self, name: str, owner: str, generation: int, expires: int) -> bool:
        """Extend the lease `owner` took at `generation`; False once anybody else took it since
        (even if `owner` took it back: that is another generation)."""
        renewed = self.conn.execute(update(E).where(
            E.c.name == name, E.c.lease_owner == owner, E.c.lease_generation == generation,
        ).values(lease_expires=expires))
        return renewed.rowcount == 1

    def holds_exporter_lease(self, name: str, owner: str, generation: int, now: int) -> bool:
        """The fence, read before each write to a target: `owner` still holds the lease it took
        at `generation`, and it has not expired (so nobody can take it meanwhile)."""
        return self.conn.execute(select(E.c.name).where(
            E.c.name == name, E.c.lease_owner == owner, E.c.lease_generation == generation,
            E.c.lease_expires > now)).first() is not None

    def release_exporter_lease(self, name: str, owner: str) -> None:
        self.conn.execute(update(E).where(E.c.name == name, E.c.lease_owner == owner)
                          .values(lease_owner=None, lease_expires=0))

    def report_exporter(self, name: str, owner: str, generation: int, states: tuple[str, ...], state: str,
                        offset: int, trace: str | None, now: int) -> bool:
        """The runner's report, applied only while `owner` holds the lease it took at
        `generation` and the state is one of `states`: a pause (or reset) that came in
        meanwhile is never overwritten, nor is a newer holder's report."""
        done = self.conn.execute(update(E).where(
            E.c.name == name, E.c.lease_owner == owner, E.c.lease_generation == generation, E.c.state.in_(states),
        ).values(state=state, offset=offset, trace=trace, ts=now))
        return done.rowcount == 1
