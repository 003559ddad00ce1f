"""Export over REST, read-only: every subject's versions (soft-deleted ones too), their content
under each (context, id), and the stored configs and modes at every scope.

Registries differ in what a version's reply carries: 8.x says `deleted` and `schemaType`, 7.x
and several other products leave both out. A version is therefore soft-deleted when its body
says so, or, without the field, when it is listed with `deleted=true` but not without; a
missing `schemaType` means AVRO. Subjects are fetched by `--workers` threads, and the records
are sorted before writing, so the dump does not depend on the worker count.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from app.transfer.dump import DEFAULT_CONTEXT, Dump, SchemaRecord, SettingRecord, VersionRecord, header
from app.transfer.errors import TransferError
from app.transfer.progress import Progress
from app.transfer.rest import RestRegistry


@dataclass(frozen=True)
class Scope:
    """`--subject-prefix` (on the name inside its context) and `--context` filters."""

    prefix: str = ""
    contexts: frozenset[str] | None = None

    @classmethod
    def of(cls, prefix: str | None, contexts: list[str] | None) -> Scope:
        named = frozenset(normal_context(c) for c in contexts) if contexts else None
        return cls(prefix or "", named)

    def context_in(self, context: str) -> bool:
        return self.contexts is None or context in self.contexts

    def includes(self, subject: str) -> bool:
        context, name = split_subject(subject)
        return self.context_in(context) and name.startswith(self.prefix)


def normal_context(raw: str) -> str:
    """`staging`, `.staging` and `:.staging:` all name the context `.staging`."""
    text = raw.strip(":") or DEFAULT_CONTEXT
    return text if text.startswith(".") else "." + text


def split_subject(subject: str) -> tuple[str, str]:
    """(context, name) of a subject as listed: `:.ctx:name` or a plain name."""
    if subject.startswith(":."):
        context, sep, name = subject[1:].partition(":")
        if sep:
            return context, name
    return DEFAULT_CONTEXT, subject


def context_scope(context: str) -> str:
    """The `/config/{s}` and `/mode/{s}` segment that addresses a context's own setting."""
    return f":{context}:"


def put_shape(config: dict[str, Any]) -> dict[str, Any]:
    """A GET config (`compatibilityLevel`) in the PUT shape (`compatibility`), nulls dropped."""
    out = {("compatibility" if k == "compatibilityLevel" else k): v for k, v in config.items() if v is not None}
    return dict(sorted(out.items()))


def schema_record(context: str, body: dict[str, Any]) -> SchemaRecord:
    refs = tuple((str(r["name"]), str(r["subject"]), int(r["version"])) for r in body.get("references") or ())
    return SchemaRecord(
        context=context, id=int(body["id"]), schema_type=str(body.get("schemaType") or "AVRO"),
        schema=str(body["schema"]), references=refs, metadata=body.get("metadata") or None,
        rule_set=body.get("ruleSet") or None, guid=body.get("guid"),
    )


@dataclass
class SubjectHistory:
    subject: str
    context: str
    versions: list[tuple[VersionRecord, SchemaRecord]] = field(default_factory=list)
    config: dict[str, Any] | None = None
    mode: str | None = None


def read_subject(source: RestRegistry, subject: str, settings: bool = True) -> SubjectHistory:
    """One subject's versions with their content, and (with `settings`) its stored config and mode."""
    context, _ = split_subject(subject)
    history = SubjectHistory(subject, context)
    bodies = [(number, source.version(subject, number)) for number in source.versions(subject, deleted=True)]
    bodies = [(number, body) for number, body in bodies if body is not None]  # None: hard-deleted meanwhile
    live: set[int] | None = None
    if any("deleted" not in body for _, body in bodies):  # 7.x shapes: compare the two listings
        live = set(source.versions(subject, deleted=False))
    for number, body in bodies:
        deleted = bool(body["deleted"]) if live is None else number not in live
        content = schema_record(context, body)
        history.versions.append((VersionRecord(subject, context, number, content.id, deleted), content))
    if settings:
        stored = source.config(subject)
        history.config = None if stored is None else put_shape(stored)
        history.mode = source.mode(subject)
    return history


def source_contexts(source: RestRegistry) -> list[str]:
    listed = source.contexts()
    return [DEFAULT_CONTEXT] if listed is None else sorted(set(listed) | {DEFAULT_CONTEXT})


def export_rest(source: RestRegistry, scope: Scope, workers: int, progress: Progress) -> Dump:
    contexts = [c for c in source_contexts(source) if scope.context_in(c)]
    subjects = sorted(s for s in source.subjects(deleted=True) if scope.includes(s))
    histories: list[SubjectHistory] = []
    with progress.phase("export", len(subjects), unit="subject") as phase:
        def one(subject: str) -> SubjectHistory:
            history = read_subject(source, subject)
            phase.advance()
            return history

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            histories = list(pool.map(one, subjects))
    dump = Dump(header={})
    holders: dict[tuple[str, int], VersionRecord] = {}
    for history in histories:
        for version, content in history.versions:
            key = (content.context, content.id)
            known = dump.schemas.get(key)
            if known is not None and known.content_key() != content.content_key():
                first = holders[key]
                raise TransferError(
                    f"the source serves two different schemas under id {content.id} in context "
                    f"{content.context}: subject {first.subject!r} version {first.version} and "
                    f"subject {version.subject!r} version {version.version}; nothing exported"
                )
            if known is None:
                dump.schemas[key], holders[key] = content, version
            dump.versions.append(version)
        if history.config is not None:
            dump.configs.append(SettingRecord("config", "subject", history.context, history.subject, history.config))
        if history.mode is not None:
            dump.modes.append(SettingRecord("mode", "subject", history.context, history.subject, history.mode))
    _scope_settings(source, dump, contexts)
    dump.contexts = [c for c in contexts if c != DEFAULT_CONTEXT]
    dump.header = header(
        {"kind": "url", "url": source.where.url, "serverVersion": source.server_version()},
        now(), dump.schema_types, _max_ids(source, dump),
    )
    return dump


def _scope_settings(source: RestRegistry, dump: Dump, contexts: list[str]) -> None:
    """The global config and mode, and each context's own (stored ones only)."""
    stored = source.config(None)
    if stored is not None:
        dump.configs.append(SettingRecord("config", "global", DEFAULT_CONTEXT, None, put_shape(stored)))
    mode = source.mode(None)
    if mode is not None:
        dump.modes.append(SettingRecord("mode", "global", DEFAULT_CONTEXT, None, mode))
    for context in contexts:
        if context == DEFAULT_CONTEXT:
            continue
        config = source.config(context_scope(context))
        if config is not None:
            dump.configs.append(SettingRecord("config", "context", context, None, put_shape(config)))
        mode = source.mode(context_scope(context))
        if mode is not None:
            dump.modes.append(SettingRecord("mode", "context", context, None, mode))


def _max_ids(source: RestRegistry, dump: Dump) -> dict[str, int]:
    """Per context, the highest id the source issued: its `maxId` where it tells, else the
    highest id seen (the most a REST reader can know)."""
    seen: dict[str, int] = {}
    for context, schema_id in dump.schemas:
        seen[context] = max(seen.get(context, 0), schema_id)
    for context, highest in list(seen.items()):
        body = source.schema_by_id(highest, context, max_id=True)
        if body is not None and isinstance(body.get("maxId"), int):
            seen[context] = max(highest, body["maxId"])
    return seen


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
