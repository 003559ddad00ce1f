"""The dump format, version 1: JSON Lines ending in a line that counts and checksums the rest.

The end line is what makes a dump trustworthy: an importer must refuse a truncated or edited
file before it writes anything, so the reader checks every line's shape, the section order,
the counts and the SHA-256 of every byte before the end line, and only then hands back the
records. Writer and reader share the record classes below so that a dump read back compares
equal to the one written (the round-trip test relies on it).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

FORMAT = "sqlregistry-dump"
FORMAT_VERSION = 1
SECTIONS = ("header", "context", "schema", "version", "config", "mode", "end")
COUNTED = ("context", "schema", "version", "config", "mode")
DEFAULT_CONTEXT = "."


class DumpError(Exception):
    """The dump cannot be trusted (unreadable, truncated, corrupted); nothing may be written."""


@dataclass(frozen=True)
class SchemaRecord:
    """One (context, id) and its content, exactly as the source serves it."""

    context: str
    id: int
    schema_type: str
    schema: str
    references: tuple[tuple[str, str, int], ...] = ()
    metadata: Any = None
    rule_set: Any = None
    guid: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "schema", "context": self.context, "id": self.id,
                               "schemaType": self.schema_type, "schema": self.schema}
        if self.references:
            out["references"] = [{"name": n, "subject": s, "version": v} for n, s, v in self.references]
        if self.metadata:
            out["metadata"] = self.metadata
        if self.rule_set:
            out["ruleSet"] = self.rule_set
        if self.guid:
            out["guid"] = self.guid
        return out

    def content_key(self) -> tuple[Any, ...]:
        """What must agree for two records to be the same schema (the guid is derived)."""
        return (self.schema_type, self.schema, self.references, _canonical(self.metadata), _canonical(self.rule_set))

    def request_body(self, version: int | None = None) -> dict[str, Any]:
        """The registration body for this content (IMPORT adds `id` and `version`)."""
        body: dict[str, Any] = {"schema": self.schema, "schemaType": self.schema_type}
        if self.references:
            body["references"] = [{"name": n, "subject": s, "version": v} for n, s, v in self.references]
        if self.metadata:
            body["metadata"] = self.metadata
        if self.rule_set:
            body["ruleSet"] = self.rule_set
        if version is not None:
            body["version"] = version
            body["id"] = self.id
        return body


@dataclass(frozen=True)
class VersionRecord:
    subject: str
    context: str
    version: int
    id: int
    deleted: bool

    def to_json(self) -> dict[str, Any]:
        return {"type": "version", "subject": self.subject, "context": self.context,
                "version": self.version, "id": self.id, "deleted": self.deleted}


@dataclass(frozen=True)
class SettingRecord:
    """A stored config (`value` in the PUT shape) or mode (`value` a string) at one scope."""

    kind: str  # "config" | "mode"
    scope: str  # "global" | "context" | "subject"
    context: str
    subject: str | None
    value: Any

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "scope": self.scope, "context": self.context}
        if self.subject is not None:
            out["subject"] = self.subject
        out[self.kind] = self.value
        return out

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.kind, self.scope, self.context, self.subject or "")


@dataclass
class Dump:
    header: dict[str, Any]
    contexts: list[str] = field(default_factory=list)
    schemas: dict[tuple[str, int], SchemaRecord] = field(default_factory=dict)
    versions: list[VersionRecord] = field(default_factory=list)
    configs: list[SettingRecord] = field(default_factory=list)
    modes: list[SettingRecord] = field(default_factory=list)

    @property
    def max_ids(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in (self.header.get("maxId") or {}).items()}

    @property
    def schema_types(self) -> set[str]:
        return {s.schema_type for s in self.schemas.values()}

    def records(self) -> Iterator[dict[str, Any]]:
        """Every line but the end one, in the format's order."""
        yield {"type": "header", **self.header}
        for context in sorted(self.contexts):
            yield {"type": "context", "context": context}
        for key in sorted(self.schemas):
            yield self.schemas[key].to_json()
        for v in sorted(self.versions, key=lambda v: (v.subject, v.version)):
            yield v.to_json()
        for setting in sorted(self.configs, key=lambda s: s.key):
            yield setting.to_json()
        for setting in sorted(self.modes, key=lambda s: s.key):
            yield setting.to_json()


def header(source: dict[str, Any], created_at: str, schema_types: Iterable[str], max_ids: dict[str, int]) -> dict[str, Any]:
    return {"format": FORMAT, "formatVersion": FORMAT_VERSION, "createdAt": created_at, "source": source,
            "schemaTypes": sorted(schema_types), "maxId": dict(sorted(max_ids.items()))}


def _line(record: dict[str, Any]) -> bytes:
    """One line; a lone surrogate an older version stored is written as its JSON escape
    (`\\ud800`), which reads back as what was stored, instead of failing the export."""
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "backslashreplace")


def _canonical(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":")) if doc else ""


def write_dump(dump: Dump, out: IO[bytes]) -> dict[str, int]:
    """Write `dump` and its end line; the counts written."""
    digest = hashlib.sha256()
    counts = dict.fromkeys(COUNTED, 0)
    for record in dump.records():
        data = _line(record)
        digest.update(data)
        out.write(data)
        if record["type"] in counts:
            counts[record["type"]] += 1
    out.write(_line({"type": "end", "counts": counts, "sha256": digest.hexdigest()}))
    out.flush()
    return counts


def read_dump(path: Path | str) -> Dump:
    """The dump at `path`, or DumpError saying what is wrong with it."""
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise DumpError(f"cannot read the dump {path}: {exc.strerror or exc}") from None
    with handle:
        return _read(handle, str(path))


def _read(lines: Iterable[bytes], name: str) -> Dump:
    digest = hashlib.sha256()
    counts = dict.fromkeys(COUNTED, 0)
    dump: Dump | None = None
    schema_lines: dict[tuple[str, int], int] = {}
    section = -1
    number = 0
    for number, raw in enumerate(lines, start=1):
        where = f"{name} line {number}"
        if section == SECTIONS.index("end"):
            raise DumpError(f"{where}: content after the end line")
        if not raw.endswith(b"\n"):
            raise DumpError(f"{where}: truncated (no line end); the dump is incomplete")
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise DumpError(f"{where}: not a JSON object ({exc})") from None
        if not isinstance(record, dict) or record.get("type") not in SECTIONS:
            raise DumpError(f"{where}: not a dump record (unknown or missing \"type\")")
        kind = record["type"]
        index = SECTIONS.index(kind)
        if index < section or (index == 0 and section == 0):
            raise DumpError(f"{where}: a {kind} record out of order")
        if section < 0 and kind != "header":
            raise DumpError(f"{where}: the dump must start with its header")
        section = index
        if kind == "end":
            _check_end(record, counts, digest.hexdigest(), where)
            continue
        digest.update(raw)
        try:
            if kind == "header":
                dump = Dump(header=_header(record, where))
                continue
            assert dump is not None
            counts[kind] += 1
            if kind == "schema":
                _keep_schema(dump, _schema(record), schema_lines, number, where)
            else:
                _add(dump, kind, record)
        except (KeyError, TypeError, ValueError) as exc:
            raise DumpError(f"{where}: malformed {kind} record ({type(exc).__name__}: {exc})") from None
    if dump is None:
        raise DumpError(f"{name}: empty file, not a dump")
    if section != SECTIONS.index("end"):
        raise DumpError(f"{name}: no end line after line {number}; the dump is truncated")
    return dump


def _header(record: dict[str, Any], where: str) -> dict[str, Any]:
    if record.get("format") != FORMAT:
        raise DumpError(f"{where}: not a {FORMAT} file")
    if record.get("formatVersion") != FORMAT_VERSION:
        raise DumpError(f"{where}: formatVersion {record.get('formatVersion')!r} is not supported "
                        f"(this version reads {FORMAT_VERSION})")
    if not isinstance(record.get("maxId", {}), dict):
        raise ValueError("maxId must be an object")
    return {k: v for k, v in record.items() if k != "type"}


def _schema(record: dict[str, Any]) -> SchemaRecord:
    refs = tuple((_text(r["name"]), _text(r["subject"]), int(r["version"])) for r in record.get("references") or ())
    return SchemaRecord(
        context=_text(record["context"]), id=int(record["id"]), schema_type=_text(record["schemaType"]),
        schema=_text(record["schema"]), references=refs, metadata=record.get("metadata"),
        rule_set=record.get("ruleSet"), guid=record.get("guid"),
    )


def _keep_schema(dump: Dump, schema: SchemaRecord, lines: dict[tuple[str, int], int], number: int,
                 where: str) -> None:
    """One schema record per (context, id): a second one, above all with other content, means
    the dump (or its source) gives one id two meanings, and no import may pick one."""
    key = (schema.context, schema.id)
    first = dump.schemas.get(key)
    if first is not None:
        what = "the same schema again" if first.content_key() == schema.content_key() else "a different schema"
        raise DumpError(f"{where}: {what} under id {schema.id} in context {schema.context} "
                        f"(the first is on line {lines[key]}); one id must have one content")
    dump.schemas[key], lines[key] = schema, number


def _add(dump: Dump, kind: str, record: dict[str, Any]) -> None:
    """A context, version, config or mode record (schemas go through `_keep_schema`)."""
    if kind == "context":
        dump.contexts.append(_text(record["context"]))
    elif kind == "version":
        dump.versions.append(VersionRecord(
            subject=_text(record["subject"]), context=_text(record["context"]), version=int(record["version"]),
            id=int(record["id"]), deleted=bool(record.get("deleted", False)),
        ))
        last = dump.versions[-1]
        if (last.context, last.id) not in dump.schemas:
            raise ValueError(f"version {last.version} of {last.subject} names id {last.id} with no schema record")
    else:
        scope = record["scope"]
        if scope not in ("global", "context", "subject"):
            raise ValueError(f"unknown scope {scope!r}")
        value = record[kind]
        if kind == "config" and not isinstance(value, dict):
            raise ValueError("config must be an object")
        if kind == "mode" and not isinstance(value, str):
            raise ValueError("mode must be a string")
        subject = record.get("subject") if scope == "subject" else None
        if scope == "subject" and not isinstance(subject, str):
            raise ValueError("a subject-level setting needs a subject")
        setting = SettingRecord(kind, scope, _text(record.get("context", DEFAULT_CONTEXT)), subject, value)
        (dump.configs if kind == "config" else dump.modes).append(setting)


def _check_end(record: dict[str, Any], counts: dict[str, int], sha256: str, where: str) -> None:
    stated = record.get("counts")
    if not isinstance(stated, dict) or any(stated.get(k, 0) != counts[k] for k in COUNTED):
        raise DumpError(f"{where}: the end line's counts {stated} disagree with the file's {counts}")
    if record.get("sha256") != sha256:
        raise DumpError(f"{where}: checksum mismatch (the file says {record.get('sha256')}, its content "
                        f"hashes to {sha256}); the dump was changed or damaged")


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value
