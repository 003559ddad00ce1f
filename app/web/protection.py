"""What every UI answer carries and what every UI POST must show.

Headers: a Content-Security-Policy that allows only this origin's own scripts and styles (no
inline script can run even if escaping failed somewhere), `nosniff` and a same-origin
referrer policy, on every answer under `/ui` (errors and static files included).

CSRF: a double-submit token. The first page a browser gets sets a random token in a
`SameSite=Strict`, HttpOnly cookie scoped to `/ui`; every form repeats it in a hidden field;
a POST whose field does not equal its cookie is refused before anything runs. It needs no
server-side state, so any gunicorn worker can check a token another one issued.

Text: every path value, query parameter and form field (names included) must be a string
both databases can store, without NUL or a lone surrogate (app/core/storable_text.py); one
that is not is refused with the UI's 400 page naming it before any page runs, as the API
refuses such a body.
"""
from __future__ import annotations

import hmac
import secrets

from flask import Response, g, request

from app.core.storable_text import problem, shown
from app.web.errors import BadForm, BadParameter

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
COOKIE = "sqlregistry_ui_csrf"
FIELD = "csrf_token"
UI_PREFIX = "/ui"


def is_ui_path(path: str) -> bool:
    return path == UI_PREFIX or path.startswith(UI_PREFIX + "/")


def secure_headers(response: Response) -> Response:
    """An app-level after-request hook (blueprint hooks miss unrouted 404s and 405s)."""
    if is_ui_path(request.path):
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        if response.mimetype == "text/html" and COOKIE not in request.cookies:
            csrf_token()  # every page hands out the token, so any later form can carry it
        token = g.get("csrf_issued")
        if token:
            response.set_cookie(COOKIE, token, path=UI_PREFIX, httponly=True, samesite="Strict")
    return response


def csrf_token() -> str:
    """The token this browser holds, or a new one that the answer will set."""
    token = request.cookies.get(COOKIE) or g.get("csrf_issued")
    if not token:
        token = g.csrf_issued = secrets.token_urlsafe(32)
    return token


def check_csrf() -> None:
    """Blueprint before-request hook: every POST proves it came from one of our forms."""
    if request.method != "POST":
        return
    cookie = request.cookies.get(COOKIE, "")
    sent = request.form.get(FIELD, "")
    if not cookie or not sent or not hmac.compare_digest(cookie, sent):
        raise BadForm(
            "This form's security token is missing or out of date, so nothing was done. "
            "Reload the page and submit it again."
        )


def check_text() -> None:
    """Blueprint before-request hook: no page sees a request string it could not store or show."""
    values = [*(request.view_args or {}).items(), *request.args.items(multi=True)]
    if request.method == "POST":
        values += request.form.items(multi=True)
    for name, value in values:
        for text in (name, value):
            if isinstance(text, str):
                found = problem(text)
                if found is not None:
                    raise BadParameter(shown(name), found)
