"""The associations table's SQL (a mixin of `SqlStore`): reads by resource id, by resource
name and namespace, and by subject, each served by an index; writes by guid."""
from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from app.core.associations.records import Association
from app.storage.listings import storable
from app.storage.models import AssociationRow

A = AssociationRow.__table__


def _association(row: Any) -> Association:
    return Association.stored(
        row.guid, row.context, row.subject, row.resource_name, row.resource_namespace, row.resource_id,
        row.resource_type, row.association_type, row.lifecycle, bool(row.frozen), int(row.created_ts),
        int(row.updated_ts),
    )


class AssociationQueries:
    conn: Connection

    def associations_of_resource(self, resource_id: str) -> list[Association]:
        if not storable(resource_id):
            return []
        return [_association(r) for r in self.conn.execute(select(A).where(A.c.resource_id == resource_id))]

    def associations_named(self, resource_name: str | None, resource_namespace: str | None) -> list[Association]:
        if not storable(resource_name, resource_namespace):
            return []
        query = select(A)
        if resource_name is not None:
            query = query.where(A.c.resource_name == resource_name)
        if resource_namespace is not None:
            query = query.where(A.c.resource_namespace == resource_namespace)
        return [_association(r) for r in self.conn.execute(query)]

    def associations_of_subject(self, context: str, name: str) -> list[Association]:
        if not storable(context, name):
            return []
        query = select(A).where(A.c.context == context, A.c.subject == name)
        return [_association(r) for r in self.conn.execute(query)]

    def put_association(self, association: Association) -> None:
        values = {
            "resource_id": association.resource_id, "resource_type": association.resource_type,
            "resource_name": association.resource_name, "resource_namespace": association.resource_namespace,
            "association_type": association.association_type, "context": association.subject.context,
            "subject": association.subject.name, "lifecycle": association.lifecycle, "frozen": association.frozen,
            "created_ts": association.created_ts, "updated_ts": association.updated_ts,
        }
        changed = self.conn.execute(update(A).where(A.c.guid == association.guid).values(**values))
        if changed.rowcount == 0:
            self.conn.execute(insert(A).values(guid=association.guid, **values))

    def remove_association(self, guid: str) -> None:
        self.conn.execute(delete(A).where(A.c.guid == guid))
