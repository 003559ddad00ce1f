"""What the Associations API's layers pass each other, and the storage interface under them.

An association links a resource (a Kafka topic: its id, name and namespace, the cluster id)
to the subject its key or value uses. The request records are read from Confluent's JSON
bodies here, with Confluent's property names in the 42212 messages; what they mean (defaults,
which combinations are allowed) is `rules`'s business.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.core.associations.errors import InvalidAssociation
from app.core.records import SubjectVersion
from app.core.types import QualifiedSubject, SchemaRequest

STRONG, WEAK = "STRONG", "WEAK"
LIFECYCLES = (STRONG, WEAK)
KEY, VALUE = "key", "value"
ASSOCIATION_TYPES = (KEY, VALUE)
TOPIC = "topic"
# The namespace (and, by resource name, the name) that matches any: Confluent's RESOURCE_WILDCARD.
WILDCARD = "-"
CREATE, UPSERT, DELETE = "CREATE", "UPSERT", "DELETE"

SchemaReader = Callable[[dict[str, Any]], SchemaRequest]


@dataclass(frozen=True)
class Association:
    """A stored association. `subject` is qualified (its context kept), as Confluent answers it."""

    guid: str
    subject: QualifiedSubject
    resource_name: str
    resource_namespace: str
    resource_id: str
    resource_type: str
    association_type: str
    lifecycle: str
    frozen: bool
    created_ts: int
    updated_ts: int

    @classmethod
    def stored(cls, guid: str, context: str, subject: str, resource_name: str, resource_namespace: str,
               resource_id: str, resource_type: str, association_type: str, lifecycle: str, frozen: bool,
               created_ts: int, updated_ts: int) -> Association:
        """From storage's row, whose subject is a context and a name."""
        return cls(guid, QualifiedSubject(context, subject), resource_name, resource_namespace, resource_id,
                   resource_type, association_type, lifecycle, frozen, created_ts, updated_ts)

    @property
    def subject_name(self) -> str:
        return self.subject.qualified()

    @property
    def order(self) -> tuple[str, str, str, str, str]:
        """Confluent's `Association.compareTo`: name, namespace, type, association type, subject."""
        return (self.resource_name, self.resource_namespace, self.resource_type, self.association_type,
                self.subject_name)


@dataclass(frozen=True)
class AssociationFilter:
    """The filters every read takes. `resource_type` None: any (Confluent's routes default it
    to `topic`; only the subject's delete guard asks about every type)."""

    resource_type: str | None = TOPIC
    association_types: tuple[str, ...] = ()
    lifecycle: str | None = None

    def admits(self, association: Association) -> bool:
        return ((self.resource_type is None or association.resource_type == self.resource_type)
                and (not self.association_types or association.association_type in self.association_types)
                and (self.lifecycle is None or association.lifecycle == self.lifecycle))


NONE = "NONE"  # `GET /schemas?lifecycle=NONE`: subjects without any association


@dataclass(frozen=True)
class SchemaAssociationFilter:
    """`GET /schemas`'s association filters (Confluent's): with none given no filtering. A
    subject's associations of the resource type (any when absent) and association types
    decide: with none, it is kept only for `NONE`; with some, those of a requested lifecycle
    are kept (all of them when no lifecycle is requested) and the subject with them, if any."""

    resource_type: str | None = None
    association_types: tuple[str, ...] = ()
    lifecycles: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.resource_type is not None or self.association_types or self.lifecycles)

    def select(self, found: Sequence[Association]) -> tuple[Association, ...] | None:
        """The associations to show with a subject's schemas, or None to leave them out."""
        narrowed = AssociationFilter(self.resource_type, self.association_types)
        matching = sorted((a for a in found if narrowed.admits(a)), key=lambda a: a.order)
        if not matching:
            return () if NONE in self.lifecycles else None
        wanted = [lc for lc in self.lifecycles if lc != NONE]
        if not wanted:
            return None if self.lifecycles else tuple(matching)
        chosen = tuple(a for a in matching if a.lifecycle in wanted)
        return chosen or None


@dataclass
class AssociationChange:
    """One association of a create or update request (Confluent's AssociationCreateOrUpdateInfo),
    or one CREATE / UPSERT op of a batch. Mutable: validation fills in the defaults, as
    Confluent's does, and the service reads the settled values."""

    subject: str | None = None
    association_type: str | None = None
    lifecycle: str | None = None
    frozen: bool | None = None
    schema: SchemaRequest | None = None
    normalize: bool = False
    op: str = CREATE


@dataclass(frozen=True)
class AssociationRemoval:
    """A DELETE op of a batch."""

    association_type: str
    cascade_lifecycle: bool = False
    op: str = DELETE


@dataclass
class ResourceChange:
    """A create or update request for one resource (AssociationCreateOrUpdateRequest), or one
    request of a batch (AssociationOpRequest, whose `ops` may mix the three kinds)."""

    resource_name: str | None
    resource_namespace: str | None
    resource_id: str | None
    resource_type: str | None
    ops: list[AssociationChange | AssociationRemoval] = field(default_factory=list)

    @property
    def changes(self) -> list[AssociationChange]:
        return [op for op in self.ops if isinstance(op, AssociationChange)]

    def default_subject(self, association_type: str) -> str:
        """The subject a STRONG association's schema lives in: `:.{namespace}:{topic}-{type}`."""
        return f":.{self.resource_namespace}:{self.resource_name}-{association_type}"


@dataclass(frozen=True)
class ResourceQuery:
    """One query of `POST /associations:batchGet` (AssociationGetRequest)."""

    resource_name: str | None
    resource_namespace: str | None
    resource_id: str | None
    resource_type: str
    association_types: tuple[str, ...]
    lifecycle: str | None


@dataclass(frozen=True)
class AssociationInfo:
    """An association as a resource's reply lists it, with the schema registered for it (a
    create with an inline schema) or the subject's latest (`includeSchemas`)."""

    subject: str
    association_type: str
    lifecycle: str
    frozen: bool
    schema: SubjectVersion | None = None


@dataclass(frozen=True)
class ResourceReply:
    """Confluent's AssociationResponse."""

    resource_name: str | None
    resource_namespace: str | None
    resource_id: str | None
    resource_type: str | None
    associations: tuple[AssociationInfo, ...] = ()


@dataclass(frozen=True)
class BatchResult:
    """One entry of a batch's 207 reply: a reply or the error that request ended with."""

    reply: ResourceReply | None = None
    error_code: int | None = None
    message: str | None = None


class AssociationStore(Protocol):
    def associations_of_resource(self, resource_id: str) -> list[Association]: ...
    def associations_named(self, resource_name: str | None, resource_namespace: str | None) -> list[Association]:
        """By name and namespace; None matches any."""
        ...
    def associations_of_subject(self, context: str, name: str) -> list[Association]: ...
    def put_association(self, association: Association) -> None:
        """Insert, or replace the association with the same guid."""
        ...
    def remove_association(self, guid: str) -> None: ...


# ------------------------------------------------------------------ reading request bodies
def _text(body: dict[str, Any], key: str, prop: str | None = None) -> str | None:
    value = body.get(key)
    if value is None or isinstance(value, str):
        return value
    raise InvalidAssociation.property(prop or key, "must be a string")


def _flag(body: dict[str, Any], key: str) -> bool | None:
    value = body.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise InvalidAssociation.property(key, "must be a boolean")


def lifecycle_filters(values: Sequence[str]) -> tuple[str, ...]:
    """`GET /schemas`'s repeatable `lifecycle`: STRONG, WEAK or NONE."""
    for value in values:
        if value not in (*LIFECYCLES, NONE):
            raise InvalidAssociation.property("lifecycle", "must be one of STRONG, WEAK, NONE")
    return tuple(values)


def lifecycle_value(value: Any, prop: str = "lifecycle") -> str | None:
    if value is None:
        return None
    if value not in LIFECYCLES:
        raise InvalidAssociation.property(prop, "must be one of STRONG, WEAK")
    return str(value)


def _object(value: Any, prop: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidAssociation.property(prop, "must be an object")
    return value


def _list(value: Any, prop: str) -> list[Any] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise InvalidAssociation.property(prop, "must be an array")
    return value


def _change(body: Any, read_schema: SchemaReader, op: str = CREATE) -> AssociationChange:
    body = _object(body, "associations")
    schema = body.get("schema")
    return AssociationChange(
        subject=_text(body, "subject"),
        association_type=_text(body, "associationType") or None,
        lifecycle=lifecycle_value(body.get("lifecycle")),
        frozen=_flag(body, "frozen"),
        schema=None if schema is None else read_schema(_object(schema, "schema")),
        normalize=bool(_flag(body, "normalize")),
        op=op,
    )


def _resource(body: dict[str, Any]) -> tuple[str | None, str | None, str | None, str | None]:
    return (_text(body, "resourceName"), _text(body, "resourceNamespace"), _text(body, "resourceId"),
            _text(body, "resourceType") or None)


def parse_resource_change(body: Any, read_schema: SchemaReader) -> ResourceChange:
    """`POST /associations` and `PUT /associations/resources/{id}`."""
    body = _object(body, "request")
    items = _list(body.get("associations"), "associations") or []
    return ResourceChange(*_resource(body), ops=[_change(item, read_schema) for item in items])


def parse_op_request(body: Any, read_schema: SchemaReader) -> ResourceChange:
    """One request of `POST /associations:batchMutate`: ops with their `opType`."""
    body = _object(body, "requests")
    ops: list[AssociationChange | AssociationRemoval] = []
    for item in _list(body.get("associations"), "associations") or []:
        item = _object(item, "associations")
        op = item.get("opType")
        if op in (CREATE, UPSERT):
            ops.append(_change(item, read_schema, op))
        elif op == DELETE:
            ops.append(AssociationRemoval(_text(item, "associationType") or VALUE,
                                          bool(_flag(item, "cascadeLifecycle"))))
        else:
            raise InvalidAssociation.property("opType", "must be one of CREATE, UPSERT, DELETE")
    return ResourceChange(*_resource(body), ops=ops)


def parse_query(body: Any) -> ResourceQuery:
    """One query of `POST /associations:batchGet`."""
    body = _object(body, "requests")
    name, namespace, resource_id, resource_type = _resource(body)
    types = _list(body.get("associationTypes"), "associationTypes") or []
    if not all(isinstance(t, str) for t in types):
        raise InvalidAssociation.property("associationTypes", "must be an array of strings")
    return ResourceQuery(name, namespace, resource_id, resource_type or TOPIC, tuple(types),
                         lifecycle_value(body.get("lifecycle")))


def batch_items(body: Any) -> Sequence[Any]:
    """The `requests` of a batch body; 42212 when there are none, as Confluent answers."""
    items = _list(_object(body, "request").get("requests"), "requests")
    if not items:
        raise InvalidAssociation.property("requests", "cannot be null or empty")
    return items
