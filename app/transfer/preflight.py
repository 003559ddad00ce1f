"""Preflight: read the target, decide for every dumped version whether it is to be written,
already there, or in conflict, before anything is written.

"Same content" is judged by the target itself where texts differ: each registry has its own
canonical form (Protobuf above all), so the dumped schema is looked up under the subject
(`POST /subjects/{s}?deleted=true`) and must come back as that version with that id. Equal
parsed JSON is the fallback for AVRO and JSON, whose texts may differ only in layout.
"""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from app.transfer.dump import DEFAULT_CONTEXT, Dump, SchemaRecord, VersionRecord
from app.transfer.export import schema_record, split_subject
from app.transfer.progress import Progress
from app.transfer.rest import RestRegistry


@dataclass(frozen=True)
class Conflict:
    kind: str  # VERSION_TAKEN | ID_TAKEN | UNSUPPORTED
    detail: str

    def line(self) -> str:
        return f"conflict: {self.kind} {self.detail}"


@dataclass
class Plan:
    """What the import must do; `present` versions need nothing (unless a soft delete)."""

    to_write: list[VersionRecord] = field(default_factory=list)
    present: list[VersionRecord] = field(default_factory=list)
    to_soft_delete: list[VersionRecord] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)


def _doc(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":")) if value else ""


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def same_documents(a: SchemaRecord, b: SchemaRecord) -> bool:
    """Type, references, metadata and rule set agree (the text is judged separately)."""
    return (a.schema_type == b.schema_type and a.references == b.references
            and _doc(a.metadata) == _doc(b.metadata) and _doc(a.rule_set) == _doc(b.rule_set))


def same_text(a: SchemaRecord, b: SchemaRecord) -> bool:
    """The texts agree as written, or (for the JSON-text types, AVRO and JSON) as parsed JSON:
    registries differ in how they print a schema back. Otherwise the target's own lookup judges."""
    if a.schema == b.schema:
        return True
    return a.schema_type in ("AVRO", "JSON") and _parsed(a.schema) == _parsed(b.schema)


def same_content(target: RestRegistry, subject: str, version: int, dumped: SchemaRecord,
                 found: SchemaRecord) -> bool:
    """Whether `found` (the target's `subject` `version`) holds the dumped content."""
    if not same_documents(dumped, found):
        return False
    if same_text(dumped, found):
        return True
    match = target.lookup(subject, dumped.request_body())
    return bool(match) and match.get("version") == version and match.get("id") == found.id


def check_target(target: RestRegistry, dump: Dump) -> list[Conflict]:
    """The target can hold the dump at all: every type, every context; and it answers /mode."""
    conflicts: list[Conflict] = []
    supported = set(target.schema_types())
    for missing in sorted(dump.schema_types - supported):
        conflicts.append(Conflict("UNSUPPORTED", f"schemaType={missing} (the target offers {sorted(supported)})"))
    if dump.contexts and target.contexts() is None:
        for context in sorted(dump.contexts):
            conflicts.append(Conflict("UNSUPPORTED", f"context={context} (the target has no contexts)"))
    target.mode(None)  # raises when the target cannot answer
    return conflicts


def preflight(target: RestRegistry, dump: Dump, workers: int, progress: Progress) -> Plan:
    plan = Plan(conflicts=check_target(target, dump))
    unsupported = {c.detail.split()[0].partition("=")[2] for c in plan.conflicts}
    by_subject: dict[str, list[VersionRecord]] = {}
    for v in sorted(dump.versions, key=lambda v: (v.subject, v.version)):
        by_subject.setdefault(v.subject, []).append(v)
    with progress.phase("preflight", len(dump.versions), unit="version") as phase:
        def one(versions: list[VersionRecord]) -> list[tuple[VersionRecord, str, Conflict | None]]:
            # One listing per subject: versions it does not list need no read of their own.
            listed = set(target.versions(versions[0].subject, deleted=True))
            out = []
            for v in versions:
                if v.version in listed or _unsupported(dump, v, unsupported):
                    out.append((v, *_version_state(target, dump, v, unsupported)))
                else:
                    out.append((v, "write", None))
                phase.advance()
            return out

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            states = [state for group in pool.map(one, by_subject.values()) for state in group]
        for v, state, conflict in states:
            if conflict is not None:
                plan.conflicts.append(conflict)
            elif state == "write":
                plan.to_write.append(v)
                if v.deleted:
                    plan.to_soft_delete.append(v)
            else:
                plan.present.append(v)
                if state == "delete":
                    plan.to_soft_delete.append(v)
        holding = _contexts_holding_ids(target, plan)
        written_ids = [key for key in sorted({(v.context, v.id) for v in plan.to_write}) if key[0] in holding]
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            taken = list(pool.map(lambda key: _id_conflict(target, dump.schemas[key]), written_ids))
        plan.conflicts.extend(c for c in taken if c is not None)
    return plan


def _contexts_holding_ids(target: RestRegistry, plan: Plan) -> set[str]:
    """Contexts where the target has any subject (soft-deleted ones too): elsewhere no id can
    be taken, so an import into an empty registry checks no id one by one."""
    if not plan.to_write:
        return set()
    return {split_subject(s)[0] for s in target.subjects(deleted=True)}


def _unsupported(dump: Dump, v: VersionRecord, unsupported: set[str]) -> bool:
    dumped = dump.schemas[(v.context, v.id)]
    return dumped.schema_type in unsupported or (v.context != DEFAULT_CONTEXT and v.context in unsupported)


def _version_state(target: RestRegistry, dump: Dump, v: VersionRecord,
                   unsupported: set[str]) -> tuple[str, Conflict | None]:
    dumped = dump.schemas[(v.context, v.id)]
    where = f"subject={v.subject} version={v.version} id={v.id}"
    if _unsupported(dump, v, unsupported):
        return "conflict", Conflict("UNSUPPORTED", f"{where} schemaType={dumped.schema_type} context={v.context}")
    body = target.version(v.subject, v.version)
    if body is None:
        return "write", None
    found = schema_record(v.context, body)
    if found.id != v.id:
        return "conflict", Conflict("VERSION_TAKEN", f"{where} target_id={found.id}")
    if not same_content(target, v.subject, v.version, dumped, found):
        return "conflict", Conflict("VERSION_TAKEN", f"{where} target_id={found.id} (other content)")
    target_deleted = bool(body.get("deleted")) if "deleted" in body else (
        v.version not in set(target.versions(v.subject, deleted=False)))
    if target_deleted and not v.deleted:
        return "conflict", Conflict("VERSION_TAKEN", f"{where} target_id={found.id} (soft-deleted on the target)")
    return ("delete" if v.deleted and not target_deleted else "present"), None


def _id_conflict(target: RestRegistry, dumped: SchemaRecord) -> Conflict | None:
    body = target.schema_by_id(dumped.id, dumped.context)
    if body is None:
        return None
    found = schema_record(dumped.context, {**body, "id": dumped.id})
    where = f"context={dumped.context} id={dumped.id}"
    if not same_documents(dumped, found):
        return Conflict("ID_TAKEN", f"{where} (the target holds other content under this id)")
    if same_text(dumped, found):
        return None
    holder = body.get("subject")
    if holder:
        match = target.lookup(holder, dumped.request_body())
        if match and match.get("id") == dumped.id:
            return None
    return Conflict("ID_TAKEN", f"{where} (the target holds other content under this id)")
