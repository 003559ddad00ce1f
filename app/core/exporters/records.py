"""An exporter's definition, config and status, and the rules the API holds them to.

An exporter copies the subjects its `subjects` patterns choose (`*` matches any run of
characters; a pattern without a `:.ctx:` prefix chooses subjects of the default context, as a
plain subject name does everywhere else) into the registry its config names, under
`subjectRenameFormat` (`${subject}` stands for the subject's name) and in the context its
`contextType` says: AUTO a context named after this registry's cluster id, CUSTOM `context`,
NONE the subject's own.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from app.core.exporters.errors import InvalidExporterConfig, InvalidExporterName, InvalidExporterSubjects
from app.core.storable_text import shown
from app.core.types import DEFAULT_CONTEXT, QualifiedSubject

CONTEXT_TYPES = ("AUTO", "CUSTOM", "NONE")
STARTING, RUNNING, PAUSED, ERROR = "STARTING", "RUNNING", "PAUSED", "ERROR"
STATES = (STARTING, RUNNING, PAUSED, ERROR)
SUBJECT_PLACEHOLDER = "${subject}"
URL_KEY = "schema.registry.url"
# What GET shows instead of a secret; a PUT that sends it back keeps the stored secret, so a
# config read, edited and written back does not lose its credentials.
MASK = "********"
_SECRET_WORDS = ("password", "user.info", "token", "secret")
_NAME = re.compile(r"[A-Za-z0-9._-]{1,255}")
_TRACE_CHARS = 4000


@dataclass(frozen=True)
class ExporterDefinition:
    name: str
    subjects: tuple[str, ...] = ("*",)
    context_type: str = "AUTO"
    context: str = DEFAULT_CONTEXT
    subject_rename_format: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "subjects": list(self.subjects), "contextType": self.context_type,
                "context": self.context, "subjectRenameFormat": self.subject_rename_format}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ExporterDefinition:
        return cls(str(doc["name"]), tuple(doc["subjects"]), str(doc["contextType"]), str(doc["context"]),
                   doc.get("subjectRenameFormat"))

    def includes(self, subject: str) -> bool:
        """Whether the qualified `subject` (`:.ctx:name` or a plain name) is exported."""
        qualified = _qualified(subject)
        return any(_glob_match(_qualified(p), qualified) for p in self.subjects)

    def target_subject(self, subject: str, auto_context: str) -> str:
        """The qualified name `subject` gets on the target."""
        source = QualifiedSubject.parse(subject)
        name = source.name
        if self.subject_rename_format:
            name = self.subject_rename_format.replace(SUBJECT_PLACEHOLDER, name)
        context = {"AUTO": auto_context, "CUSTOM": self.context}.get(self.context_type, source.context)
        return QualifiedSubject(context, name).qualified()


@dataclass(frozen=True)
class ExporterStatus:
    name: str
    state: str
    offset: int = 0
    ts: int = 0
    trace: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "state": self.state, "offset": self.offset, "ts": self.ts,
                "trace": self.trace or ""}


@dataclass(frozen=True)
class StoredExporter:
    """A row of the exporters table, as the core and the runner see it."""

    definition: ExporterDefinition
    config: dict[str, str]
    status: ExporterStatus
    lease_owner: str | None = None
    lease_expires: int = 0


class ExporterStore(Protocol):
    """The exporters table as the core's operations use it (part of the core's `Store`; the
    runner's lease and report statements are the storage's own business with the runner)."""

    def exporter_names(self) -> list[str]: ...
    def exporters(self) -> list[StoredExporter]: ...
    def exporter(self, name: str, lock: bool = False) -> StoredExporter | None:
        """`lock`: held until the transaction ends, so that two changes of one exporter queue."""
        ...
    def insert_exporter(self, definition: ExporterDefinition, config: dict[str, str], state: str,
                        now: int) -> None: ...
    def update_exporter(self, name: str, *, definition: ExporterDefinition | None = None,
                        config: dict[str, str] | None = None, state: str | None = None,
                        offset: int | None = None, trace: str | None = None, now: int | None = None) -> None:
        """Set what is given; `trace` "" clears it."""
        ...
    def delete_exporter(self, name: str) -> None: ...


def _qualified(subject: str) -> str:
    return subject if subject.startswith(":") else f":{DEFAULT_CONTEXT}:{subject}"


def _glob_match(pattern: str, text: str) -> bool:
    """Whether `text` matches `pattern`, where `*` matches any run and the rest is literal.
    The pieces between stars are found left to right, each at its first place after the one
    before: with `*` the only wildcard, an earlier place never hurts, so nothing is retried.
    (A regular expression of `.*`s backtracks: twelve characters of pattern took seconds over
    a 200-character subject, on the runner's thread.)"""
    if "*" not in pattern:
        return pattern == text
    first, *middle, last = pattern.split("*")
    end = len(text) - len(last)
    if end < len(first) or not text.startswith(first) or not text.endswith(last):
        return False
    position = len(first)
    for piece in middle:
        found = text.find(piece, position, end)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def auto_context(cluster_id: str) -> str:
    """AUTO's target context: named after this registry, as Confluent names it after its cluster."""
    return "." + re.sub(r"[^A-Za-z0-9_-]", "_", cluster_id or "source")


def valid_name(name: Any) -> bool:
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def check_name(name: Any) -> str:
    if not valid_name(name):
        raise InvalidExporterName(f"Missing or invalid exporter name: {name!r} (letters, digits, '.', '_', '-')")
    return name


def parse_definition(body: Any, base: ExporterDefinition | None = None) -> ExporterDefinition:
    """A POST body (`base` None) or a PUT body over `base` (absent fields keep their value)."""
    if not isinstance(body, dict):
        raise InvalidExporterConfig("The request body must be a JSON object")
    name = check_name(body.get("name") if base is None else base.name)
    subjects = body.get("subjects", list(base.subjects) if base else ["*"])
    if (not isinstance(subjects, list) or not subjects
            or not all(isinstance(s, str) and s and len(s) <= 1024 for s in subjects)):
        raise InvalidExporterSubjects("Invalid exporter subjects: a non-empty list of subject names or patterns")
    context_type = body.get("contextType", base.context_type if base else "AUTO")
    if context_type not in CONTEXT_TYPES:
        raise InvalidExporterConfig(f"Invalid contextType {context_type!r}: one of {', '.join(CONTEXT_TYPES)}")
    context = body.get("context", base.context if base else DEFAULT_CONTEXT)
    if context in (None, ""):
        context = DEFAULT_CONTEXT
    if not isinstance(context, str) or ":" in context or len(context) > 255:
        raise InvalidExporterConfig(f"Invalid context {context!r}")
    context = context if context.startswith(".") else "." + context
    if context_type == "CUSTOM" and context == DEFAULT_CONTEXT:
        raise InvalidExporterConfig("contextType CUSTOM needs a context other than the default one")
    rename = body.get("subjectRenameFormat", base.subject_rename_format if base else None)
    if rename is not None and (not isinstance(rename, str) or not rename or ":" in rename or len(rename) > 1024):
        raise InvalidExporterConfig(f"Invalid subjectRenameFormat {rename!r}")
    return ExporterDefinition(name, tuple(subjects), context_type, context, rename)


def parse_config(config: Any, stored: dict[str, str] | None = None) -> dict[str, str]:
    """The target's config: string values, `schema.registry.url` an http(s) URL, a masked
    secret replaced by the one `stored`."""
    if not isinstance(config, dict) or not all(isinstance(k, str) for k in config):
        raise InvalidExporterConfig("Missing or invalid exporter config: a JSON object of strings")
    parsed: dict[str, str] = {}
    for key, value in config.items():
        if value is None:
            continue
        if not isinstance(value, (str, int, bool)):
            raise InvalidExporterConfig(f"Invalid exporter config {key!r}: a string")
        text = str(value).lower() if isinstance(value, bool) else str(value)
        kept = (stored or {}).get(key)
        parsed[key] = kept if kept is not None and MASK in text and masked({key: kept})[key] == text else text
    url = parsed.get(URL_KEY, "")
    parts = urlsplit(url.split(",")[0].strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidExporterConfig(f"Missing or invalid exporter config: {URL_KEY} must be an http(s) URL")
    source = parsed.get("basic.auth.credentials.source")
    if source not in (None, "USER_INFO", "URL"):
        raise InvalidExporterConfig("basic.auth.credentials.source must be USER_INFO or URL")
    if source == "USER_INFO" and ":" not in parsed.get("basic.auth.user.info", ""):
        raise InvalidExporterConfig("basic.auth.user.info must be USER:PASSWORD")
    return parsed


def masked(config: dict[str, str]) -> dict[str, str]:
    """The config as GET shows it: every secret (passwords, user info, tokens) masked, and a
    URL's own password too."""
    shown = {}
    for key, value in config.items():
        if any(word in key.lower() for word in _SECRET_WORDS):
            shown[key] = MASK
        elif key == URL_KEY and "@" in value:
            parts = urlsplit(value)
            shown[key] = value.replace(parts.netloc, MASK + "@" + parts.netloc.rpartition("@")[2], 1)
        else:
            shown[key] = value
    return shown


def trace_text(text: str) -> str:
    """A failure as the status shows it: one readable text, bounded, and storable (the target's
    reply is quoted in it, and a NUL or lone surrogate there would make PostgreSQL refuse the
    report, leaving the runner to fail the same way every second)."""
    text = shown(text)
    return text if len(text) <= _TRACE_CHARS else text[:_TRACE_CHARS] + " ..."
