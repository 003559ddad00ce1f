"""What associations forbid the registry's other changes, as Confluent's registry checks them:
a subject a STRONG association owns cannot be referenced (42205); a subject with any
association cannot be deleted (40904); its last live version cannot be soft-deleted (40907),
though a permanent delete of an already soft-deleted version is allowed. Registration and
deletes call these inside their own transactions.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.core.associations.errors import AssociationForSubjectExists, NoActiveSubjectVersion
from app.core.associations.records import STRONG, AssociationStore
from app.core.errors import OperationNotPermitted
from app.core.records import SchemaReference
from app.core.store.rows import VersionRow
from app.core.types import QualifiedSubject


def check_reference_targets(store: AssociationStore, referrer: QualifiedSubject,
                            references: Iterable[SchemaReference]) -> None:
    for ref in references:
        target = QualifiedSubject.parse(ref.subject) if ref.subject.startswith(":") \
            else QualifiedSubject(referrer.context, ref.subject)
        if any(a.lifecycle == STRONG for a in store.associations_of_subject(target.context, target.name)):
            raise OperationNotPermitted(f"Subject '{ref.subject}' has a strong association and cannot be referenced")


def check_subject_deletable(store: AssociationStore, qs: QualifiedSubject) -> None:
    if store.associations_of_subject(qs.context, qs.name):
        raise AssociationForSubjectExists.for_subject(qs.qualified())


def check_version_deletable(store: AssociationStore, qs: QualifiedSubject, versions: Sequence[VersionRow],
                            target: VersionRow, permanent: bool) -> None:
    if permanent or any(not v.deleted and v.version != target.version for v in versions):
        return
    if store.associations_of_subject(qs.context, qs.name):
        raise NoActiveSubjectVersion.for_subject(qs.qualified())
