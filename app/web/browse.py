"""Pages that span subjects: the list and summary, contexts, settings, search, schemas by id."""
from __future__ import annotations

from flask import redirect, render_template, url_for
from werkzeug.wrappers import Response

from app.core.access import Action
from app.web import params, reads
from app.web.blueprint import bp
from app.web.permissions import may, principal, registry



def _context_param() -> str | None:
    raw = params.text("context").strip()
    if not raw:
        return None
    raw = raw.strip(":")
    return raw if raw.startswith(".") else "." + raw


def _filters(**values: object) -> dict[str, object]:
    """The query a paging link repeats: only what is set, so links stay short."""
    return {k: v for k, v in values.items() if v not in ("", None, False)}


@bp.get("/")
def index() -> str:
    q = params.text("q")
    context = _context_param()
    schema_type = params.text("type").strip().upper()
    level = params.text("level").strip().upper()
    own, deleted = params.flag("own"), params.flag("deleted")
    sort = params.choice("sort", ("name", "updated"), "name")
    paging = params.paging()
    service, who = registry(), principal()
    found = service.browse.browse_subjects(
        principal=who, q=q, context=context, schema_type=schema_type or None, level=level or None, own=own,
        deleted=deleted, sort=sort, page=paging.page, per_page=paging.per_page,
    )
    return render_template(
        "index.html", rows=found.items, total=found.total, paging=paging, window=paging.window(found.total),
        q=q, context=context, schema_type=schema_type, level=level, own=own, deleted=deleted, sort=sort,
        unknown_context=found.unknown_context, summary=service.browse.registry_summary(principal=who),
        types=service.schema_types(), levels=params.LEVELS,
        filters=_filters(q=q, context=context, type=schema_type, level=level, own="1" if own else "",
                         deleted="1" if deleted else "", sort=sort if sort != "name" else "",
                         per_page=paging.per_page if paging.per_page != params.DEFAULT_PER_PAGE else None),
    )


@bp.get("/contexts")
def contexts() -> str:
    return render_template("contexts.html", summary=registry().browse.registry_summary(principal=principal()))


@bp.get("/config")
def config() -> str:
    """The global (default context's) and each context's own settings, then the subjects that
    override them (a config or a mode of their own), paged like the list."""
    paging = params.paging()
    service, who = registry(), principal()
    summary = service.browse.registry_summary(principal=who)
    overriding = service.browse.browse_subjects(principal=who, overriding=True, deleted=True, page=paging.page,
                                         per_page=paging.per_page)
    return render_template(
        "config.html", summary=summary, overriding=overriding.items, total=overriding.total, paging=paging,
        window=paging.window(overriding.total), levels=params.LEVELS, modes=params.MODES,
        may_write=may(Action.WRITE_CONFIG, ""),
        filters=_filters(per_page=paging.per_page if paging.per_page != params.DEFAULT_PER_PAGE else None),
    )


@bp.get("/search")
def search() -> str | Response:
    q = params.text("q").strip()
    if q.isdigit():
        return redirect(url_for("ui.schema", schema_id=int(q)), 303)
    paging = params.paging()
    scope = params.choice("scope", ("latest", "all"), "latest")
    found = registry().browse.search(
        q, principal=principal(), all_versions=scope == "all", page=paging.page, per_page=paging.per_page
    )
    total = max(found.subjects.total, found.fields.total, found.types.total)
    return render_template(
        "search.html", q=q, scope=scope, found=found, total=total, paging=paging, window=paging.window(total),
        filters=_filters(q=q, scope=scope if scope != "latest" else "",
                         per_page=paging.per_page if paging.per_page != params.DEFAULT_PER_PAGE else None),
    )


@bp.get("/schemas/<int:schema_id>")
def schema(schema_id: int) -> str:
    context = _context_param()
    deleted = params.flag("deleted")
    found = reads.schema_by_id(schema_id, context)
    shown_context = found.schema.context
    elsewhere = []
    if context is None:
        for other in registry().list_contexts(principal=principal()):
            if other == shown_context:
                continue
            try:
                reads.schema_by_id(schema_id, other)
            except reads.NoSuchSchema:
                continue
            elsewhere.append(other)
    from app.core.browse.inspection import pretty_text  # loaded on first use, not at a worker's start

    return render_template(
        "schema.html", found=found, schema_id=schema_id, context=shown_context, deleted=deleted,
        holders=reads.schema_holders(schema_id, shown_context, deleted), elsewhere=elsewhere,
        text=pretty_text(found.text), outline=registry().browse.outline(found.schema),
    )


@bp.get("/schemas/<segment:raw_id>")
def schema_bad_id(raw_id: str) -> str:
    raise params.BadParameter("id", "must be a number")
