"""Pages that span subjects: the list and summary, contexts, settings, search, schemas by id."""
from __future__ import annotations

from flask import redirect, render_template, url_for
from werkzeug.wrappers import Response

from app.core.access import Action
from app.core.inspection import pretty_text
from app.core.types import DEFAULT_CONTEXT
from app.web import params, reads
from app.web.blueprint import bp
from app.web.permissions import may, registry



def _context_param() -> str | None:
    raw = params.text("context").strip()
    if not raw:
        return None
    raw = raw.strip(":")
    return raw if raw.startswith(".") else "." + raw


@bp.get("/")
def index() -> str:
    q = params.text("q")
    context = _context_param()
    schema_type = params.text("type").strip().upper()
    level = params.text("level").strip().upper()
    own, deleted = params.flag("own"), params.flag("deleted")
    sort = params.choice("sort", ("name", "updated"), "name")
    paging = params.paging()
    contexts = registry().list_contexts()
    unknown_context = context is not None and context not in contexts
    names = [] if unknown_context else reads.subject_names(context, deleted)
    if q:
        needle = q.casefold()
        names = [n for n in names if needle in n.casefold()]
    if schema_type or level or own or sort == "updated":
        rows = [reads.subject_row(n) for n in names]
        rows = [
            r for r in rows
            if (not schema_type or r.schema_type == schema_type)
            and (not level or r.level.value == level)
            and (not own or r.level.source == "subject" or r.mode.source == "subject")
        ]
        if sort == "updated":
            rows.sort(key=lambda r: -r.ts)
        total = len(rows)
        rows = rows[paging.offset:paging.offset + paging.per_page]
    else:
        total = len(names)
        rows = [reads.subject_row(n) for n in names[paging.offset:paging.offset + paging.per_page]]
    return render_template(
        "index.html",
        rows=rows, total=total, paging=paging, window=paging.window(total),
        q=q, context=context, schema_type=schema_type, level=level, own=own, deleted=deleted, sort=sort,
        unknown_context=unknown_context, contexts=contexts, types=registry().schema_types(), levels=params.LEVELS,
        global_level=reads.effective_level(None), global_mode=reads.effective_mode(None),
        subject_count=len(reads.subject_names(None, False)),
        filters={"q": q, "context": context or "", "type": schema_type, "level": level,
                 "own": "1" if own else "", "deleted": "1" if deleted else "", "sort": sort,
                 "per_page": paging.per_page},
    )


@bp.get("/contexts")
def contexts() -> str:
    rows = []
    for context in registry().list_contexts():
        scope = None if context == DEFAULT_CONTEXT else f":{context}:"
        own = reads.own_settings(scope) if scope else {"compatibility": None, "mode": None}
        rows.append((context, len(reads.subject_names(context, False)), own))
    return render_template("contexts.html", rows=rows)


@bp.get("/config")
def config() -> str:
    paging = params.paging()
    scopes = [(None, "global")] + [
        (f":{c}:", c) for c in registry().list_contexts() if c != DEFAULT_CONTEXT
    ]
    settings = [(scope, label, reads.own_settings(scope)) for scope, label in scopes]
    overriding = []
    for name in reads.subject_names(None, True):
        own = reads.own_settings(name)
        if own["compatibility"] or own["mode"]:
            overriding.append((name, own))
    total = len(overriding)
    return render_template(
        "config.html", settings=settings, overriding=overriding[paging.offset:paging.offset + paging.per_page],
        total=total, paging=paging, window=paging.window(total), levels=params.LEVELS, modes=params.MODES,
        global_level=reads.effective_level(None), global_mode=reads.effective_mode(None),
        may_write=may(Action.WRITE_CONFIG, ""), filters={"per_page": paging.per_page},
    )


@bp.get("/search")
def search() -> str | Response:
    q = params.text("q").strip()
    if q.isdigit():
        return redirect(url_for("ui.schema", schema_id=int(q)), 303)
    paging = params.paging()
    scope = params.choice("scope", ("latest", "all"), "latest")
    names = []
    if q:
        needle = q.casefold()
        names = [n for n in reads.subject_names(None, False) if needle in n.casefold()]
    total = len(names)
    return render_template(
        "search.html", q=q, scope=scope, subjects=names[paging.offset:paging.offset + paging.per_page],
        total=total, paging=paging, window=paging.window(total), fields=[], types=[],
        filters={"q": q, "scope": scope, "per_page": paging.per_page},
    )


@bp.get("/schemas/<int:schema_id>")
def schema(schema_id: int) -> str:
    context = _context_param()
    deleted = params.flag("deleted")
    found = reads.schema_by_id(schema_id, context)
    shown_context = found.schema.context
    elsewhere = []
    if context is None:
        for other in registry().list_contexts():
            if other == shown_context:
                continue
            try:
                reads.schema_by_id(schema_id, other)
            except reads.NoSuchSchema:
                continue
            elsewhere.append(other)
    return render_template(
        "schema.html", found=found, schema_id=schema_id, context=shown_context, deleted=deleted,
        holders=reads.schema_holders(schema_id, shown_context, deleted), elsewhere=elsewhere,
        text=pretty_text(found.text), outline=registry().outline(found.schema),
    )


@bp.get("/schemas/<segment:raw_id>")
def schema_bad_id(raw_id: str) -> str:
    raise params.BadParameter("id", "must be a number")
