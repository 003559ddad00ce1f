"""Confluent's checks on an association request before anything is read (its request
entities' `validate` and `applyDefaults`), each refusal a 42212 naming the property.

The model they enforce: a WEAK association points at a subject that exists on its own and
carries no schema; a STRONG one owns its subject (`:.{namespace}:{topic}-{type}`), is
frozen, and is created together with its schema. A create fills in the defaults (a schema
makes it STRONG, none WEAK); an update leaves unset what the stored association decides.
"""
from __future__ import annotations

from app.core.associations.errors import InvalidAssociation
from app.core.associations.records import (
    ASSOCIATION_TYPES,
    CREATE,
    STRONG,
    TOPIC,
    VALUE,
    WEAK,
    AssociationChange,
    AssociationRemoval,
    ResourceChange,
    ResourceQuery,
)

NAME_MAX_LENGTH = 256
RESOURCE_ID_MAX_LENGTH = 255


def check_name(value: str | None, prop: str) -> str:
    """A resource name or namespace: letters, digits, `_` and `-`, at most 256 of them."""
    if not value:
        raise InvalidAssociation.property(prop, "cannot be null or empty")
    if len(value) > NAME_MAX_LENGTH:
        raise InvalidAssociation.property(prop, f"exceeds max length of {NAME_MAX_LENGTH}")
    for char in value:
        if not (char.isalnum() or char in "_-"):
            raise InvalidAssociation.property(prop, f"illegal character '{char}'")
    return value


def check_resource_id(value: str | None) -> None:
    """Confluent sets no bound; the column holds 255 characters, which a topic id (22) never nears."""
    if value is not None and (len(value) > RESOURCE_ID_MAX_LENGTH or any(ord(c) < 0x20 for c in value)):
        raise InvalidAssociation.property(
            "resourceId", f"must be at most {RESOURCE_ID_MAX_LENGTH} characters, none of them control characters")


def check_subject(subject: str) -> None:
    if not subject or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in subject):
        raise InvalidAssociation.property("subject", "must not be empty")


def check_association_type(value: str | None) -> str:
    if not value:
        return VALUE
    if value not in ASSOCIATION_TYPES:
        raise InvalidAssociation.property("associationType", "must be either 'key' or 'value'")
    return value


def apply_defaults(change: AssociationChange, creating: bool) -> None:
    """For an association that does not exist yet. A create's schema makes it frozen STRONG;
    an upsert may not bring a schema (a STRONG association is created with its topic)."""
    if not creating and change.schema is not None:
        raise InvalidAssociation.property(
            "schema", "cannot be provided when adding an association to an existing topic; "
            "an association with a schema must be created with the topic")
    if change.schema is not None:
        if change.lifecycle == WEAK:
            raise InvalidAssociation.property("lifecycle", "cannot be WEAK when schema is provided")
        if change.frozen is False:
            raise InvalidAssociation.property("frozen", "cannot be false when a schema is provided")
        change.lifecycle = STRONG
    elif change.lifecycle is None:
        change.lifecycle = WEAK
    wanted = change.lifecycle == STRONG
    if change.frozen is not None and change.frozen != wanted:
        raise InvalidAssociation.property(
            "frozen", f"association with lifecycle of {change.lifecycle} cannot be frozen={_java(change.frozen)}")
    change.frozen = wanted


def _check_change(change: AssociationChange, creating: bool) -> None:
    if change.subject is not None:
        check_subject(change.subject)
    if creating:
        apply_defaults(change, True)
    change.association_type = check_association_type(change.association_type)
    if change.lifecycle == WEAK:
        if change.schema is not None:
            raise InvalidAssociation.property("lifecycle", "cannot be WEAK when schema is provided")
        if change.frozen:
            raise InvalidAssociation.property("frozen", "association with lifecycle of WEAK cannot be frozen")
        if creating and change.subject is None:
            raise InvalidAssociation.property("subject", "must be provided for WEAK associations")


def check_resource(request: ResourceChange, dry_run: bool) -> None:
    check_name(request.resource_name, "resourceName")
    check_name(request.resource_namespace, "resourceNamespace")
    if not dry_run and not request.resource_id:
        raise InvalidAssociation.property("resourceId", "cannot be null or empty")
    check_resource_id(request.resource_id)
    if request.resource_type is None:
        request.resource_type = TOPIC
    elif request.resource_type != TOPIC:
        raise InvalidAssociation.property("resourceType", f"must be '{TOPIC}'")
    if not request.ops:
        raise InvalidAssociation.property("associations", "cannot be null or empty")


def check_request(request: ResourceChange, creating: bool, dry_run: bool) -> None:
    """`POST /associations` (`creating`), `PUT /associations/resources/{id}`, and each request
    of a batch (whose ops say each whether it creates). A create's subject defaults to the
    STRONG subject; a frozen association must use it and a WEAK one may not."""
    check_resource(request, dry_run)
    seen: set[str] = set()
    for op in request.ops:
        if isinstance(op, AssociationRemoval):
            kind = check_association_type(op.association_type)
        else:
            op_creates = creating or op.op == CREATE
            _check_change(op, op_creates)
            kind = op.association_type or VALUE
            if op_creates:
                default = request.default_subject(kind)
                if op.subject is None:
                    op.subject = default
                if op.frozen and op.subject != default:
                    raise InvalidAssociation.property("subject", f"frozen associations must use subject '{default}'")
                if op.lifecycle == WEAK and op.subject == default:
                    raise InvalidAssociation.property("subject", f"WEAK associations cannot use subject '{default}'")
        if kind in seen:
            raise InvalidAssociation.property(
                "associationType", f"may only appear once per request, but '{kind}' appears more than once")
        seen.add(kind)


def check_query(query: ResourceQuery) -> None:
    if not query.resource_id and not query.resource_name:
        raise InvalidAssociation.property("resourceId", "either resourceId or resourceName must be specified")
    if query.resource_name and not query.resource_namespace:
        raise InvalidAssociation.property(
            "resourceNamespace", "resourceNamespace is required when resourceName is specified")


def _java(value: bool) -> str:
    return "true" if value else "false"
