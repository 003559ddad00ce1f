"""Pages about one subject: its overview, one version, a diff of two versions, and downloads."""
from __future__ import annotations

import io
import json
import zipfile

from flask import Response, render_template

from app.core.access import Action
from app.core.errors import VersionNotFound
from app.web import field_display, params, reads, texts  # noqa: F401  (field_display: template helpers)
from app.web.blueprint import bp
from app.web.errors import NoSuchVersion
from app.web.permissions import may, principal, registry


def _actions(subject: str) -> dict[str, bool]:
    return {
        "write": may(Action.WRITE, subject),
        "delete": may(Action.DELETE, subject),
        "config": may(Action.WRITE_CONFIG, subject),
    }


@bp.get("/subjects/<subject:subject>")
def subject(subject: str) -> str:
    deleted = params.flag("deleted")
    versions = reads.versions_of(subject)
    live = [v for v in versions if not v.deleted]
    shown = versions if deleted else live
    latest = reads.version_of(subject, str(live[-1].version)) if live else None
    if latest is None and not deleted:
        raise reads.missing_subject(subject)
    level, mode = reads.effective_settings(subject)
    from app.core.browse.inspection import pretty_text  # loaded on first use, not at a worker's start

    return render_template(
        "subject.html", subject=subject, versions=shown, all_versions=versions, latest=latest, deleted=deleted,
        level=level, mode=mode,
        own=reads.own_settings(subject), text=pretty_text(latest.text) if latest else "",
        uses=latest.schema.references if latest else (),
        used_by=reads.used_by(subject, latest.version) if latest else [],
        actions=_actions(subject), levels=params.LEVELS, modes=params.MODES,
        outline=registry().browse.outline(latest.schema) if latest else None,
        encryption=registry().browse.encryption(latest.schema) if latest else [],
        impact=registry().impact(subject, principal=principal()) if latest else None,
    )


@bp.get("/subjects/<subject:subject>/versions/<segment:version>")
def version(subject: str, version: str) -> str:
    found = reads.version_of(subject, version)
    versions = reads.versions_of(subject)
    live = [v.version for v in versions if not v.deleted]
    older = [v.version for v in versions if v.version < found.version and not v.deleted]
    from app.core.browse.inspection import pretty_text  # loaded on first use, not at a worker's start

    return render_template(
        "version.html", subject=found.subject, found=found, text=pretty_text(found.text),
        canonical=found.schema.schema, previous=older[-1] if older else None,
        latest=live[-1] if live else None, uses=found.schema.references,
        tree=reads.reference_tree(found), used_by=reads.used_by(found.subject, found.version),
        metadata=_as_json(found.schema.metadata), rule_set=_as_json(found.schema.rule_set),
        actions=_actions(found.subject), registered=reads.utc(found.ts), outline=registry().browse.outline(found.schema),
    )


def _as_json(document: object) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) if document else ""


@bp.get("/subjects/<subject:subject>/diff")
def diff(subject: str) -> str:
    """Structural rows, both directions and the verdict under the effective level come from
    the service (`RegistryService.diff`); the text view is a line diff of its texts, bounded
    (`texts.side_by_side`)."""
    from_n, to_n = params.number("from"), params.number("to")
    view = params.choice("view", ("structural", "text"), "structural")
    normalize = params.flag("normalize")
    versions = reads.versions_of(subject)
    try:
        found = registry().browse.diff(
            subject, None if from_n is None else str(from_n), None if to_n is None else str(to_n), normalize,
            principal=principal(),
        )
    except VersionNotFound as exc:
        missing = to_n if to_n is not None and to_n not in [v.version for v in versions] else from_n
        raise NoSuchVersion(subject, str(missing), [v.version for v in versions]) from exc
    single = len(found.versions) == 1
    identical = found.old.version == found.new.version
    return render_template(
        "diff.html", subject=found.subject, found=found, versions=versions, view=view, normalize=normalize,
        single=single and identical, identical=identical, from_n=found.old.version, to_n=found.new.version,
        text_diff=texts.side_by_side(found.old_text, found.new_text), rows=found.diff.rows,
    )


def _utf8(text: str) -> bytes:
    """A file's bytes; a lone surrogate stored by an older version is written as its JSON
    escape (`\\ud800`), which is how the schema's text spelled it, instead of failing."""
    return text.encode("utf-8", "backslashreplace")


@bp.get("/subjects/<subject:subject>/versions/<segment:version>/download")
def download(subject: str, version: str) -> Response:
    found = reads.version_of(subject, version)
    name = texts.file_name(found.subject, found.version, found.schema.schema_type)
    return Response(
        _utf8(found.text), mimetype="text/plain",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@bp.get("/subjects/<subject:subject>/export.zip")
def export(subject: str) -> Response:
    """Every version (soft-deleted ones included, flagged) and a manifest describing them."""
    manifest = {"subject": subject, "versions": []}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in reads.versions_of(subject):
            found = reads.version_of(subject, str(entry.version))
            name = texts.file_name(found.subject, found.version, found.schema.schema_type)
            archive.writestr(name, _utf8(found.text))
            manifest["versions"].append({
                "version": found.version, "id": found.id, "schemaType": found.schema.schema_type,
                "file": name, "deleted": found.deleted, "registeredAt": reads.utc(found.ts),
                "references": [r.to_json() for r in found.schema.references],
            })
        archive.writestr("manifest.json", _utf8(json.dumps(manifest, indent=2, ensure_ascii=False)))
    stem = texts.file_name(subject, 0, "").rsplit("-v0", 1)[0]
    return Response(
        buffer.getvalue(), mimetype="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{stem}.zip"'},
    )
