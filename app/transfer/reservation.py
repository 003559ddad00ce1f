"""Step 3 of an import: reserve the source's highest id in each context, before any version
is written, when the source issued ids above every dumped one (hard-deleted since) and the
target has not counted that far: a placeholder registered in IMPORT mode under that id,
then soft- and hard-deleted, leaves the target's counter past it for good.

Deciding whether it is needed must also work on a re-run, where repeating it would break
"a second import writes nothing". The target's own `maxId` (`fetchMaxId`) answers that where
offered, asked of an id of the dump the target already holds. A target without it is judged
by what the preflight found: when every dumped version of the context is already there, an
import of this dump has written them, and it reserved before writing, so nothing is done
again. A reservation cut short by a crash is finished, on the same temporary subject, from
the state file.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from app.transfer.dump import DEFAULT_CONTEXT, Dump
from app.transfer.errors import TransferError
from app.transfer.export import context_scope, split_subject
from app.transfer.preflight import Plan
from app.transfer.rest import RestRegistry
from app.transfer.state import ImportState, Reservation

RESERVE_PREFIX = "_sqlregistry_reserve_"


@dataclass(frozen=True)
class IdToReserve:
    context: str
    id: int


def ids_to_reserve(target: RestRegistry, dump: Dump, plan: Plan, state: ImportState) -> list[IdToReserve]:
    """Per context, the source's `maxId` when the target must still be moved past it (reads only)."""
    wanted = []
    holders: dict[str, str] | None = None  # listed once, and only when some context needs it
    for context, source_max in sorted(dump.max_ids.items()):
        dumped = [i for c, i in dump.schemas if c == context]
        if dumped and source_max <= max(dumped):
            continue  # writing the dumped ids moves the counter far enough
        reservation = state.reservations.get(context)
        if reservation is not None:
            if not reservation.done:
                wanted.append(IdToReserve(context, source_max))
            continue
        present = sorted(v.id for v in plan.present if v.context == context)
        if not present and holders is None:
            holders = _a_subject_per_context(target)
        probe = present[-1] if present else _an_id_of(target, (holders or {}).get(context))
        all_present = bool(present) and not any(v.context == context for v in plan.to_write)
        if not _target_has_counted_to(target, context, source_max, probe, all_present):
            wanted.append(IdToReserve(context, source_max))
    return wanted


def _a_subject_per_context(target: RestRegistry) -> dict[str, str]:
    """Context -> the first subject the target lists there (soft-deleted ones included)."""
    found: dict[str, str] = {}
    for subject in sorted(target.subjects(deleted=True)):
        found.setdefault(split_subject(subject)[0], subject)
    return found


def _an_id_of(target: RestRegistry, subject: str | None) -> int | None:
    """The id of `subject`'s newest version on the target (a probe for `fetchMaxId`)."""
    numbers = target.versions(subject, deleted=True) if subject else []
    body = target.version(subject, numbers[-1]) if subject and numbers else None
    return int(body["id"]) if body and "id" in body else None


def _target_has_counted_to(target: RestRegistry, context: str, source_max: int, probe: int | None,
                           all_present: bool) -> bool:
    """Whether the target's counter in `context` is known to be at `source_max` or past it.
    `probe` is an id the target holds there; `all_present` says every dumped version of
    the context is already on the target."""
    if probe is not None:
        body = target.schema_by_id(probe, context, max_id=True) or {}
        if isinstance(body.get("maxId"), int):
            return body["maxId"] >= source_max  # the target's own count decides
        if probe >= source_max:
            return True
    if target.schema_by_id(source_max, context) is not None:
        return True
    # No `fetchMaxId` here: every dumped version of the context present means an import of
    # this dump wrote them, and it reserved first.
    return all_present


def reserve(target: RestRegistry, wanted: IdToReserve, state: ImportState) -> int:
    """Register the placeholder under `wanted.id`, then delete it for good; each step is
    skipped when a crashed earlier run already took it. The number of write requests."""
    reservation = state.reservations.get(wanted.context)
    if reservation is None:
        name = RESERVE_PREFIX + secrets.token_hex(6)
        subject = name if wanted.context == DEFAULT_CONTEXT else f"{context_scope(wanted.context)}{name}"
        reservation = state.reservations[wanted.context] = Reservation(subject)
        state.save()  # before the first write, so a re-run finds this subject again
    subject = reservation.subject
    writes = 0
    if target.mode(subject) != "IMPORT":
        target.put_mode(subject, "IMPORT", force=True)
        writes += 1
    if 1 not in target.versions(subject, deleted=True):
        name = subject.rpartition(":")[2]
        placeholder = json.dumps({"type": "record", "name": name, "fields": []})
        reply = target.register(subject, {"schema": placeholder, "schemaType": "AVRO", "id": wanted.id, "version": 1})
        if not isinstance(reply, dict) or reply.get("id") != wanted.id:
            raise TransferError(f"the target did not reserve id {wanted.id} in context {wanted.context} "
                                f"(it answered {reply}); stopping before any version is written")
        writes += 1
    if 1 in target.versions(subject, deleted=False):
        target.delete_version(subject, 1)
        writes += 1
    if 1 in target.versions(subject, deleted=True):
        target.delete_version(subject, 1, permanent=True)
        writes += 1
    target.delete_mode(subject)
    reservation.done = True
    state.save()
    return writes + 1
