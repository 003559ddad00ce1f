"""What an exporter copies in one pass, with the transfer's own reader and writer: the chosen
subjects' histories read from this registry (`export.read_subject`), renamed and put in the
target context the definition says, checked against the target (`preflight`) and written with
their ids and versions (`importer.write_plan`: IMPORT mode while writing, the subjects' modes
and configs last). A pass is safe to repeat: what the target already holds is skipped, which
is how a runner that took over, or one resumed after an error, goes on without copying
anything twice.
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from dataclasses import replace
from urllib.parse import unquote, urlsplit, urlunsplit

from app.client.transport import basic_auth_header
from app.core.exporters.records import URL_KEY, ExporterDefinition
from app.core.types import QualifiedSubject
from app.transfer.dump import Dump, SettingRecord, VersionRecord
from app.transfer.errors import TransferError
from app.transfer.export import SubjectHistory, read_subject
from app.transfer.importer import ImportOptions, write_plan
from app.transfer.preflight import preflight
from app.transfer.progress import Progress
from app.transfer.rest import Endpoint, RestRegistry
from app.transfer.state import ImportState

class _Nowhere(io.TextIOBase):
    """Where a pass's progress lines go: a server's log is no place for a line per pass."""

    def write(self, text: str) -> int:
        return len(text)


_QUIET = Progress(enabled=False, stream=_Nowhere())
# A pass keeps no state file: a subject it finds in IMPORT mode was left so by a pass cut short.
_OPTIONS = ImportOptions(skip_global_config=True, workers=2, state_file=None, import_mode_is_ours=True)
_CONFLICTS_SHOWN = 10


def target_endpoint(config: Mapping[str, str]) -> Endpoint:
    """The target from Confluent's exporter config keys: the first of `schema.registry.url`'s
    URLs; Basic credentials from `basic.auth.user.info` (source USER_INFO) or the URL's user
    info (source URL, or none given); a bearer token (`bearer.auth.token`); PEM files for TLS
    (`schema.registry.ssl.ca.location`, `...certificate.location`, `...key.location`)."""
    parts = urlsplit(config[URL_KEY].split(",")[0].strip())
    authorization = None
    if config.get("basic.auth.credentials.source") == "USER_INFO":
        authorization = basic_auth_header(config["basic.auth.user.info"])
    elif parts.username is not None:
        authorization = basic_auth_header((unquote(parts.username), unquote(parts.password or "")))
    if config.get("bearer.auth.token"):
        authorization = f"Bearer {config['bearer.auth.token']}"
    netloc = parts.netloc.rpartition("@")[2]
    clean = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    return Endpoint(clean, authorization, config.get("schema.registry.ssl.ca.location"),
                    config.get("schema.registry.ssl.certificate.location"),
                    config.get("schema.registry.ssl.key.location"))


def _reference_subject(definition: ExporterDefinition, auto_context: str, source_context: str,
                       target_context: str, subject: str) -> str:
    """A reference's subject as the target must name it: renamed like the subject it names,
    and relative to the referring schema's (target) context."""
    qualified = subject if subject.startswith(":") else QualifiedSubject(source_context, subject).qualified()
    renamed = QualifiedSubject.parse(definition.target_subject(qualified, auto_context))
    return renamed.name if renamed.context == target_context else renamed.qualified()


def translate(histories: Iterable[SubjectHistory], definition: ExporterDefinition, auto_context: str) -> Dump:
    """The histories as the target is to hold them: a dump of renamed subjects."""
    dump = Dump(header={})
    for history in histories:
        subject = definition.target_subject(history.subject, auto_context)
        context = QualifiedSubject.parse(subject).context
        for version, content in history.versions:
            references = tuple((name, _reference_subject(definition, auto_context, history.context, context, ref), v)
                               for name, ref, v in content.references)
            record = replace(content, context=context, references=references)
            known = dump.schemas.setdefault((context, record.id), record)
            if known.content_key() != record.content_key():
                raise TransferError(f"two source schemas would land under id {record.id} in the target context "
                                    f"{context} (contextType {definition.context_type} merges contexts); "
                                    "choose subjects of one context or contextType NONE")
            dump.versions.append(VersionRecord(subject, context, version.version, record.id, version.deleted))
        if history.config is not None:
            dump.configs.append(SettingRecord("config", "subject", context, subject, history.config))
        if history.mode is not None:
            dump.modes.append(SettingRecord("mode", "subject", context, subject, history.mode))
    return dump


def copy_subjects(source: RestRegistry, target: RestRegistry, definition: ExporterDefinition, auto_context: str,
                  subjects: Iterable[str]) -> int:
    """Copy `subjects` (qualified source names) as they are now; the number of write requests
    the target took. TransferError, naming what the target refused, when it cannot hold them."""
    dump = translate((read_subject(source, s) for s in sorted(subjects)), definition, auto_context)
    plan = preflight(target, dump, _OPTIONS.workers, _QUIET)
    if plan.conflicts:
        lines = [c.line() for c in plan.conflicts[:_CONFLICTS_SHOWN]]
        more = len(plan.conflicts) - len(lines)
        raise TransferError(f"the target {target.where.url} holds other content where the export must go "
                            f"(nothing written): " + "; ".join(lines) + (f"; and {more} more" if more > 0 else ""))
    return write_plan(target, dump, plan, ImportState(None, target.where.url, {}, {}), _OPTIONS, _QUIET)
