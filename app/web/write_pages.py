"""The check form and every write: register, delete, and the level and mode settings.

Each write asks `permissions.require` first (and the service checks again inside the
operation); a refusal from the registry's rules (42206 still referenced, 40901 incompatible,
42205 read-only mode, ...) comes back as a readable page with its code. Deletes take a
second, server-rendered confirmation step: the first POST shows what will happen, the
second (with `confirm=yes`) does it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from app.core.access import Action
from app.core.errors import InvalidSchema, RegistryError, WorkBudgetSpent
from app.web import params, reads
from app.web.attempts import note_error_code, ui_origin
from app.web.blueprint import bp
from app.web.forms import SchemaForm, read_form
from app.web.permissions import may, principal, registry, require

if TYPE_CHECKING:
    from app.core.browse.inspection import CandidateCheck
    from app.core.compatibility.impact import Impact


def _refused(error: RegistryError, back: str) -> tuple[str, int]:
    """A write the registry's rules refused, shown with the rule's code and message."""
    note_error_code(error.error_code)
    return render_template("refused.html", error=error, back=back), error.http_status


# ---------------------------------------------------------------- check
@bp.route("/subjects/<subject:subject>/check", methods=["GET", "POST"])
def check(subject: str) -> tuple[str, int] | str:
    versions = reads.versions_of(subject, deleted=False)
    if request.method == "GET":
        form = SchemaForm(schema_type=_latest_type(subject, versions))
        return _check_page(subject, versions, form, None, None)
    form = read_form()
    target = None if form.target == "registration" else form.target
    if target is not None and not target.isdigit():
        raise params.BadParameter("target", "must be a version number or registration")
    try:
        result = registry().browse.check_candidate(subject, form.request(), target, principal=principal())
        # what the candidate would break beyond the subject: only for a subject with versions
        impact = registry().impact(subject, form.request(), principal=principal()) if versions else None
    except WorkBudgetSpent:
        raise  # the error page's 503
    except InvalidSchema as exc:
        return _check_page(subject, versions, form, None, exc.message), 422
    except RegistryError as exc:
        return _check_page(subject, versions, form, None, f"{exc.message} (error {exc.error_code})"), exc.http_status
    return _check_page(subject, versions, form, result, None, impact)


def _latest_type(subject: str, versions: list[reads.VersionEntry]) -> str:
    if not versions:
        return SchemaForm().schema_type
    return reads.version_of(subject, str(versions[-1].version)).schema.schema_type


def _check_page(
    subject: str, versions: list[reads.VersionEntry], form: SchemaForm, result: CandidateCheck | None,
    error: str | None, impact: Impact | None = None,
) -> str:
    return render_template(
        "check.html", subject=subject, versions=versions, form=form, result=result, error=error, impact=impact,
        types=registry().schema_types(), level=reads.effective_level(subject),
        may_register=may(Action.WRITE, subject),
    )


# ---------------------------------------------------------------- register
@bp.route("/new", methods=["GET", "POST"])
def new() -> tuple[str, int] | str | Response:
    if request.method == "GET":
        form = SchemaForm(subject=params.text("subject", limit=1000))
        return render_template("new.html", form=form, error=None, types=registry().schema_types(),
                               may_write=may(Action.WRITE, form.subject))
    form = read_form()
    if not form.subject.strip():
        return render_template("new.html", form=form, error="Name the subject to register under.",
                               types=registry().schema_types(), may_write=True), 400
    require(Action.WRITE, form.subject)
    try:
        done = registry().register(form.subject, form.request(), principal=principal(), origin=ui_origin())
    except WorkBudgetSpent:
        raise  # the error page's 503
    except InvalidSchema as exc:
        note_error_code(exc.error_code)
        return render_template("new.html", form=form, error=exc.message, types=registry().schema_types(),
                               may_write=True), 422
    except RegistryError as exc:
        return _refused(exc, url_for("ui.new"))
    return redirect(url_for("ui.version", subject=done.subject, version=done.version, done="registered"), 303)


@bp.post("/subjects/<subject:subject>/register")
def register(subject: str) -> tuple[str, int] | Response:
    require(Action.WRITE, subject)
    form = read_form()
    try:
        done = registry().register(subject, form.request(), principal=principal(), origin=ui_origin())
    except WorkBudgetSpent:
        raise  # the error page's 503
    except RegistryError as exc:
        return _refused(exc, url_for("ui.check", subject=subject))
    return redirect(url_for("ui.version", subject=done.subject, version=done.version, done="registered"), 303)


# ---------------------------------------------------------------- deletes
@bp.post("/subjects/<subject:subject>/delete")
def delete_subject(subject: str) -> tuple[str, int] | str | Response:
    require(Action.DELETE, subject)
    permanent = params.flag("permanent")
    if request.form.get("confirm") != "yes":
        return render_template(
            "confirm.html", subject=subject, version=None, permanent=permanent,
            action=url_for("ui.delete_subject", subject=subject),
        )
    try:
        registry().delete_subject(subject, permanent=permanent, principal=principal(), origin=ui_origin())
    except RegistryError as exc:
        return _refused(exc, url_for("ui.subject", subject=subject, deleted=1))
    if permanent:
        return redirect(url_for("ui.index", done="deleted"), 303)
    return redirect(url_for("ui.subject", subject=subject, deleted=1, done="deleted"), 303)


@bp.post("/subjects/<subject:subject>/versions/<segment:version>/delete")
def delete_version(subject: str, version: str) -> tuple[str, int] | str | Response:
    require(Action.DELETE, subject)
    permanent = params.flag("permanent")
    if request.form.get("confirm") != "yes":
        return render_template(
            "confirm.html", subject=subject, version=version, permanent=permanent,
            action=url_for("ui.delete_version", subject=subject, version=version),
        )
    try:
        registry().delete_version(subject, version, permanent=permanent, principal=principal(), origin=ui_origin())
    except RegistryError as exc:
        return _refused(exc, url_for("ui.subject", subject=subject, deleted=1))
    try:
        reads.versions_of(subject)
    except reads.NoSuchSubject:
        return redirect(url_for("ui.index", done="deleted"), 303)
    return redirect(url_for("ui.subject", subject=subject, deleted=1, done="deleted"), 303)


# ---------------------------------------------------------------- settings
def _apply_setting(scope: str | None, back: str) -> tuple[str, int] | None:
    """`what` is compatibility or mode; an empty `value` clears the scope's own setting."""
    what = params.choice("what", ("compatibility", "mode"), "compatibility")
    value = request.form.get("value", "").strip()
    service, who, origin = registry(), principal(), ui_origin()
    try:
        if what == "compatibility" and value:
            service.update_config(scope, {"compatibility": value}, principal=who, origin=origin)
        elif what == "compatibility":
            service.update_config(scope, {"compatibility": None}, principal=who, origin=origin)
        elif value:
            service.update_mode(scope, value, principal=who, origin=origin)
        else:
            service.update_mode(scope, None, principal=who, origin=origin)
    except RegistryError as exc:
        return _refused(exc, back)
    return None


@bp.post("/subjects/<subject:subject>/settings")
def subject_settings(subject: str) -> tuple[str, int] | Response:
    require(Action.WRITE_CONFIG, subject)
    back = url_for("ui.subject", subject=subject)
    refused = _apply_setting(subject, back)
    return refused or redirect(url_for("ui.subject", subject=subject, done="settings"), 303)


@bp.post("/config")
def scope_settings() -> tuple[str, int] | Response:
    scope = request.form.get("scope", "")
    require(Action.WRITE_CONFIG, scope)
    refused = _apply_setting(scope or None, url_for("ui.config"))
    return refused or redirect(url_for("ui.config", done="settings"), 303)
