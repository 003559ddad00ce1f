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
_SECRET_WORDS = ("password", "user.info", "token", "secret", "jaas")
# `scheme://user:password@`: the user info ends at the last `@` before the path, and a comma
# separates URLs, so each URL of a list is masked on its own.
_URL_USER_INFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,30}://)[^/?#,\s]*@")
# How many renames in a row `feeds_itself` follows before calling an exporter endless.
_SELF_FEEDING_STEPS = 4
_THIS_HOST = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "::"})
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
    lease_generation: int = 0


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


def feeds_itself(definition: ExporterDefinition, auto_context_name: str) -> bool:
    """Whether, copying into the registry it reads, the exporter would choose its own copies
    again and again (`orders-x` -> `orders-x-copy` -> `orders-x-copy-copy` ...): a subject its
    patterns choose, renamed, is chosen again, and so on. Tried on one subject per pattern
    (its stars made a letter), renamed `_SELF_FEEDING_STEPS` times: a rename that grows the
    name and lands where the patterns look keeps matching, one that leaves the patterns'
    reach stops within a step or two."""
    rename = definition.subject_rename_format
    if not rename or SUBJECT_PLACEHOLDER not in rename or rename == SUBJECT_PLACEHOLDER:
        return False  # a fixed name or no rename: a copy lands on itself, it does not grow
    for pattern in definition.subjects:
        subject = _qualified(pattern).replace("*", "x")
        for _ in range(_SELF_FEEDING_STEPS):
            renamed = definition.target_subject(subject, auto_context_name)
            if renamed == subject or not definition.includes(renamed):
                break
            subject = renamed
        else:
            return True
    return False


def same_address(urls: str, here: str | None) -> bool:
    """Whether one of `schema.registry.url`'s URLs names `here` (the URL this server was
    reached at, as the request that makes the change says): the same host and port, or a
    loopback or unspecified address at the same port, on both sides."""
    mine = {(host, _port(scheme, port)) for scheme, host, port in target_hosts(here or "")}
    for scheme, host, port in target_hosts(urls):
        for my_host, my_port in mine:
            if _port(scheme, port) == my_port and (host == my_host or host in _THIS_HOST and my_host in _THIS_HOST):
                return True
    return False


def _port(scheme: str, port: int | None) -> int:
    return port or (443 if scheme == "https" else 80)


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


def parse_config(given: Any, stored: dict[str, str] | None = None) -> dict[str, str]:
    """The target's config: string values, `schema.registry.url` http(s) URLs. With `stored`
    (an update) `given` is merged into it, as Confluent's registry does (a null drops a key),
    and a masked secret sent back (as GET showed it) keeps the stored one, but only while the
    target stays where it was: a stored secret never goes to a host it was not given for, so
    moving the URL to another host needs every secret sent again (or dropped with null)."""
    if not isinstance(given, dict) or not all(isinstance(k, str) for k in given):
        raise InvalidExporterConfig("Missing or invalid exporter config: a JSON object of strings")
    stored = stored or {}
    merged: dict[str, Any] = {**stored, **given}
    parsed: dict[str, str] = {}
    carried: list[str] = []  # keys whose secret comes from `stored`, not from this request
    for key, value in merged.items():
        if value is None:
            continue
        if not isinstance(value, (str, int, bool)):
            raise InvalidExporterConfig(f"Invalid exporter config {key!r}: a string")
        text = str(value).lower() if isinstance(value, bool) else str(value)
        kept = stored.get(key)
        if key not in given or (kept is not None and MASK in text and masked({key: kept})[key] == text):
            if kept is not None and masked({key: kept})[key] != kept:
                carried.append(key)
            parsed[key] = kept if kept is not None else text
        elif MASK in text:
            raise InvalidExporterConfig(f"Exporter config {key!r} holds the placeholder {MASK} where no stored "
                                        "secret matches it: send the secret itself")
        else:
            parsed[key] = text
    hosts = target_hosts(parsed.get(URL_KEY, ""))
    if not hosts:
        raise InvalidExporterConfig(f"Missing or invalid exporter config: {URL_KEY} must be one or more "
                                    "comma-separated http(s) URLs")
    if carried and stored.get(URL_KEY) is not None and not hosts <= target_hosts(stored[URL_KEY]):
        raise InvalidExporterConfig(
            f"{URL_KEY} now names another host: send the secrets for it again ({', '.join(sorted(carried))}), "
            "or null to drop them; a stored secret is never sent to a host it was not given for")
    source = parsed.get("basic.auth.credentials.source")
    if source not in (None, "USER_INFO", "URL"):
        raise InvalidExporterConfig("basic.auth.credentials.source must be USER_INFO or URL")
    if source == "USER_INFO" and ":" not in parsed.get("basic.auth.user.info", ""):
        raise InvalidExporterConfig("basic.auth.user.info must be USER:PASSWORD")
    return parsed


def target_hosts(urls: str) -> frozenset[tuple[str, str, int | None]]:
    """(scheme, host, port) of each of `schema.registry.url`'s comma-separated URLs; empty
    when any of them is not an http(s) URL with a host."""
    found = set()
    for url in urls.split(","):
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError:
            return frozenset()
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return frozenset()
        found.add((parts.scheme, parts.hostname.lower(), port))
    return frozenset(found)


def secret_key(key: str) -> bool:
    """Whether a config key's whole value is a secret: passwords, user info, tokens, secrets,
    JAAS configs, and PEM keys given inline (`ssl.keystore.key`)."""
    low = key.lower()
    return any(word in low for word in _SECRET_WORDS) or low.endswith(".key")


def masked(config: dict[str, str]) -> dict[str, str]:
    """The config as GET and the audit show it: every secret-bearing key masked whole (a
    `sasl.jaas.config` too: its syntax has too many ways to hold a password to cut one out),
    and the user info of every URL in any value (each of a comma-separated
    `schema.registry.url`'s, not only the first's)."""
    return {key: MASK if secret_key(key) else mask_text(value) for key, value in config.items()}


def mask_text(text: str) -> str:
    """`text` with the user info of every URL in it masked."""
    return _URL_USER_INFO.sub(lambda m: m.group(1) + MASK + "@", text)


def trace_text(text: str) -> str:
    """A failure as the status shows it: one readable text, bounded, and storable (the target's
    reply is quoted in it, and a NUL or lone surrogate there would make PostgreSQL refuse the
    report, leaving the runner to fail the same way every second), with any URL's user info
    masked."""
    text = shown(mask_text(text))
    return text if len(text) <= _TRACE_CHARS else text[:_TRACE_CHARS] + " ..."
