"""Import over REST through IMPORT mode, so the same steps work into Confluent and its peers.

Order of work, each step safe to repeat: preflight (reads only; any conflict stops here with
nothing written and no mode changed, save that a re-run puts back the modes an interrupted
run of the same import had changed); reserve the source's highest id (reservation.py); save each
touched subject's previous mode in the state file; put those subjects in IMPORT mode (force,
so the target keeps its own soft-deleted versions); register versions with explicit id and
version, referenced versions first; soft-delete; configs; modes last. A run killed anywhere
is finished by running it again: the preflight sees what is already there, and the state
file still knows the modes to restore and the reservation to finish. Writes that would
change nothing are never sent, which is what makes a second import of the same dump write
nothing at all.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from app.transfer.dump import DEFAULT_CONTEXT, Dump, SettingRecord, VersionRecord
from app.transfer.errors import Conflicts, TransferError
from app.transfer.export import context_scope, put_shape, split_subject
from app.transfer.preflight import Plan, preflight
from app.transfer.progress import Progress
from app.transfer.reservation import IdToReserve, ids_to_reserve, reserve
from app.transfer.rest import RestRegistry
from app.transfer.state import ImportState


@dataclass(frozen=True)
class ImportOptions:
    dry_run: bool = False
    skip_global_config: bool = False
    apply_global_mode: bool = False
    workers: int = 4
    state_file: Path | None = Path("import-state.json")  # None: in memory (one-transaction imports)
    # A subject found in IMPORT mode was left so by an earlier run cut short (an exporter's pass
    # whose lease was lost): the mode to put back is then none, not IMPORT.
    import_mode_is_ours: bool = False


def report_conflicts(plan: Plan) -> None:
    for conflict in plan.conflicts:
        print(conflict.line(), file=sys.stderr)
    kinds: dict[str, int] = {}
    for conflict in plan.conflicts:
        kinds[conflict.kind] = kinds.get(conflict.kind, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    print(f"import: {len(plan.conflicts)} conflicts ({summary}); nothing written", file=sys.stderr)
    raise Conflicts()


def import_dump(target: RestRegistry, dump: Dump, options: ImportOptions, progress: Progress) -> int:
    plan = preflight(target, dump, options.workers, progress)
    if plan.conflicts:
        if not options.dry_run:
            _put_back_saved_modes(target, options)
        report_conflicts(plan)
    state = ImportState.load(options.state_file, target.where.url)  # a dry run only reads it
    reservations = ids_to_reserve(target, dump, plan, state)
    if options.dry_run:
        for r in reservations:
            print(f"would reserve: context={r.context} id={r.id}")
        for v in order_for_writing(dump, plan.to_write):
            print(f"would write: subject={v.subject} version={v.version} id={v.id}")
        for v in plan.to_soft_delete:
            print(f"would soft-delete: subject={v.subject} version={v.version}")
        print(f"dry run: {len(plan.to_write)} to write, {len(plan.present)} already present")
        return 0
    writes = write_plan(target, dump, plan, state, options, progress, reservations)
    outcome = f"{len(plan.to_write)} written, {len(plan.present)} already present"
    progress.result(f"import: {outcome} ({writes} write requests)", outcome)
    return 0


def write_plan(target: RestRegistry, dump: Dump, plan: Plan, state: ImportState, options: ImportOptions,
               progress: Progress, reservations: Sequence[IdToReserve] = ()) -> int:
    """Every write of a conflict-free plan (see the module's docstring for the order); the
    number of write requests sent. The exporters' runner calls it too, one pass at a time."""
    writes = sum(reserve(target, wanted, state) for wanted in reservations)
    touched = sorted({v.subject for v in plan.to_write} | {v.subject for v in plan.to_soft_delete})
    with ThreadPoolExecutor(max_workers=max(1, options.workers)) as pool:
        unsaved = [s for s in touched if s not in state.modes]
        found = list(pool.map(target.mode, unsaved))
        if options.import_mode_is_ours:
            found = [None if mode == "IMPORT" else mode for mode in found]
        state.modes.update(zip(unsaved, found))
        if touched or state.modes:
            state.save()

        if touched:
            with progress.phase("IMPORT mode", len(touched), unit="subject") as phase:
                def to_import_mode(subject: str) -> int:
                    switched = target.mode(subject) != "IMPORT"
                    if switched:
                        target.put_mode(subject, "IMPORT", force=True)
                    phase.advance()
                    return int(switched)

                writes += sum(pool.map(to_import_mode, touched))
        writes += _write_versions(target, dump, plan, pool, progress)
        # What follows the versions can take as long as writing them (a request or two per
        # subject): each step is a phase of its own, so that a terminal never sits still.
        if plan.to_soft_delete:
            with progress.phase("soft-delete", len(plan.to_soft_delete), unit="version") as phase:
                for wave in reversed(levels_for_writing(dump, plan.to_soft_delete)):  # referrers first
                    list(pool.map(lambda v: target.delete_version(v.subject, v.version), wave))
                    phase.advance(len(wave))
                    writes += len(wave)
        writes += _apply_configs(target, dump, options, pool, progress)
        writes += _apply_modes(target, dump, state, options, pool, progress)
    state.remove()
    return writes


def _put_back_saved_modes(target: RestRegistry, options: ImportOptions) -> None:
    """A re-run that meets a conflict (another writer got in after an earlier run of this
    import was interrupted) puts back the modes that run changed: they are this import's own
    writes, and leaving them would keep those subjects in IMPORT mode until an operator notices.
    The state file keeps only what a later run still needs (an unfinished reservation)."""
    state = ImportState.load(options.state_file, target.where.url)
    if not state.modes:
        return
    changed = sum(_set_mode(target, subject, mode) for subject, mode in sorted(state.modes.items()))
    state.modes = {}
    if any(not r.done for r in state.reservations.values()):
        state.save()
    else:
        state.remove()
    print(f"import: put back the modes an interrupted run of this import had changed ({changed} subjects)",
          file=sys.stderr)


def _set_mode(target: RestRegistry, scope: str | None, mode: str | None) -> int:
    """`scope`'s mode made `mode` (None: its own mode removed); 1 when a write was sent, 0
    when it already was, so that a repeated import writes nothing."""
    if target.mode(scope) == mode:
        return 0
    if mode is None:
        target.delete_mode(scope)  # type: ignore[arg-type]
    else:
        target.put_mode(scope, mode, force=True)
    return 1


def _key(context: str, subject: str) -> tuple[str, str]:
    """(context, name) of a subject or a reference's subject, relative to `context`."""
    ctx, name = split_subject(subject)
    return (context, name) if ctx == DEFAULT_CONTEXT and not subject.startswith(":.:") else (ctx, name)


def levels_for_writing(dump: Dump, versions: list[VersionRecord]) -> list[list[VersionRecord]]:
    """`versions` in waves: a version comes in a later wave than every subject-version it
    references, and than the first writer of its id (so one id is created once); within a
    wave by (context, id, subject, version). Waves may be written in parallel."""
    ordered = sorted(versions, key=lambda v: (v.context, v.id, v.subject, v.version))
    by_key = {(_key(v.context, v.subject), v.version): v for v in ordered}
    first_of_id: dict[tuple[str, int], VersionRecord] = {}
    for v in ordered:
        first_of_id.setdefault((v.context, v.id), v)
    depth: dict[VersionRecord, int] = {}

    def level(v: VersionRecord, seen: frozenset[VersionRecord]) -> int:
        if v in depth:
            return depth[v]
        if v in seen:
            raise TransferError(f"reference cycle through subject {v.subject!r} version {v.version}")
        deps = [by_key.get((_key(v.context, subj), ver)) for _, subj, ver in dump.schemas[(v.context, v.id)].references]
        first = first_of_id[(v.context, v.id)]
        if first is not v:
            deps.append(first)
        found = [level(d, seen | {v}) + 1 for d in deps if d is not None]
        depth[v] = max(found, default=0)
        return depth[v]

    for v in ordered:
        level(v, frozenset())
    waves: list[list[VersionRecord]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for v in ordered:
        waves[depth[v]].append(v)
    return waves


def order_for_writing(dump: Dump, versions: list[VersionRecord]) -> list[VersionRecord]:
    return [v for wave in levels_for_writing(dump, versions) for v in wave]


def _write_versions(target: RestRegistry, dump: Dump, plan: Plan, pool: ThreadPoolExecutor, progress: Progress) -> int:
    with progress.phase("write", len(plan.to_write), unit="version") as phase:
        def one(v: VersionRecord) -> None:
            body = dump.schemas[(v.context, v.id)].request_body(version=v.version)
            reply = target.register(v.subject, body)
            if not isinstance(reply, dict) or reply.get("id") != v.id:
                got = reply.get("id") if isinstance(reply, dict) else reply
                raise TransferError(f"the target stored subject {v.subject!r} version {v.version} under id "
                                    f"{got}, not {v.id}; stopping (modes stay IMPORT until a re-run)")
            phase.advance()

        for wave in levels_for_writing(dump, plan.to_write):
            list(pool.map(one, wave))
    return len(plan.to_write)


def _apply_configs(target: RestRegistry, dump: Dump, options: ImportOptions, pool: ThreadPoolExecutor,
                   progress: Progress) -> int:
    wanted = [s for s in sorted(dump.configs, key=lambda s: s.key)
              if not (s.scope == "global" and options.skip_global_config)]
    if not wanted:
        return 0
    with progress.phase("configs", len(wanted), unit="config") as phase:
        def apply(setting: SettingRecord) -> int:
            scope = _scope(setting)
            current = target.config(scope)
            current_shape = put_shape(current) if current is not None else {}
            if current_shape != setting.value:
                body = {**{k: None for k in current_shape if k not in setting.value}, **setting.value}
                target.put_config(scope, body)
            phase.advance()
            return int(current_shape != setting.value)

        return sum(pool.map(apply, wanted))


def _scope(setting: SettingRecord) -> str | None:
    if setting.scope == "global":
        return None
    if setting.scope == "context":
        return context_scope(setting.context)
    return setting.subject


def _apply_modes(target: RestRegistry, dump: Dump, state: ImportState, options: ImportOptions,
                 pool: ThreadPoolExecutor, progress: Progress) -> int:
    """Dumped modes where they differ; touched subjects without one back to their saved mode.
    The global and context modes go first, so no subject is left under a scope mode that
    differs from the dump's while its own is being set."""
    wanted: dict[str | None, str | None] = {s: m for s, m in state.modes.items()}
    for setting in dump.modes:
        if setting.scope == "global" and not options.apply_global_mode:
            continue
        wanted[_scope(setting)] = setting.value

    if not wanted:
        return 0
    scopes = [item for item in wanted.items() if item[0] is None or not split_subject(item[0])[1]]
    subjects = [item for item in wanted.items() if item not in scopes]
    with progress.phase("modes", len(wanted), unit="mode") as phase:
        def apply(item: tuple[str | None, str | None]) -> int:
            written = _set_mode(target, *item)
            phase.advance()
            return written

        return sum(map(apply, sorted(scopes, key=lambda i: i[0] or ""))) + sum(pool.map(apply, sorted(subjects)))
