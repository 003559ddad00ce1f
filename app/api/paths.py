"""What the router sees: the request path as the client encoded it, with contexts applied.

Werkzeug percent-decodes the path before routing, so a subject such as `a/b` (sent as
`a%2Fb`, which the Python client does) would be split into two segments and never reach
its route. The middleware below therefore hands the router the path exactly as it was
written on the wire (taken from `RAW_URI` under gunicorn, `REQUEST_URI` under Werkzeug's
server and test client), and the `segment` converter decodes each path parameter on its
own. When neither variable is present the decoded path is re-encoded, which works for
everything except an encoded `/`.

The same middleware performs Confluent's context URL prefix rewrite:
`/contexts/{ctx}/<rest>` is turned into `<rest>` with the subject path segment, the
`subject`/`subjectPrefix` query parameters, or the bare `config`/`mode` target qualified
with `:.{ctx}:`. Doing it before routing keeps every blueprint unaware of it. A context
name with a colon is refused right there with 400, before routing, as Confluent's
pre-matching context filter does; the path is still rewritten (name and all) for the
refusal, so that its audit row knows which endpoint the request was meant for.

Subject segments are decoded strictly: bytes that are not UTF-8 would otherwise become
U+FFFD, so that `%FF` and `%EF%BF%BD` named one subject. They are kept as lone surrogates
and `requests.check_parameters` refuses them (42208) once the media types have been checked.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol
from urllib.parse import parse_qsl, quote, unquote, unquote_to_bytes, urlencode

from werkzeug.routing import BaseConverter

from app.api.render import standalone_error
from app.core.errors import BadRequest, RegistryError

# First path segments served by the API. Other paths (a browser UI, say) keep Werkzeug's
# ordinary decoded PATH_INFO.
API_ROOTS = frozenset({
    "", "subjects", "schemas", "compatibility", "config", "mode", "contexts", "v1", "audit", "dek-registry",
    "associations", "associations:batchGet", "associations:batchMutate",
})

# First path segments outside the API whose routes also read subjects from the encoded path
# (the web UI's `/ui/subjects/<subject>`); they get no context rewrite.
RAW_PATH_ROOTS = frozenset({"ui"})

# Characters left unescaped when the decoded PATH_INFO has to be re-encoded. `%` is not among
# them, so a literal percent sign survives the converter's unquoting.
_PATH_SAFE = "/:@!$&'()*+,;=~"

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class Refuse(Protocol):
    """How the API's WSGI middleware answers a request it refuses (errors.refusal_before_routing
    in the app; the bare error body by default). `scoped` False: the request's context name
    is what was refused."""

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any], error: RegistryError, *,
        scoped: bool = True,
    ) -> Iterable[bytes]: ...


def error_only(
    environ: dict[str, Any], start_response: Callable[..., Any], error: RegistryError, *, scoped: bool = True
) -> Iterable[bytes]:
    return standalone_error(environ, error)(environ, start_response)


class SegmentConverter(BaseConverter):
    """One percent-encoded path segment, decoded (UTF-8) only after routing."""

    regex = "[^/]+"
    part_isolating = True  # Werkzeug would guess False from the "/" in the regex and mis-handle trailing slashes

    def to_python(self, value: str) -> str:
        return unquote(value)

    def to_url(self, value: Any) -> str:
        return quote(str(value), safe="")


class SubjectConverter(SegmentConverter):
    """A subject segment; bytes that are not UTF-8 become lone surrogates (see the module docstring)."""

    def to_python(self, value: str) -> str:
        return unquote(value, errors="surrogateescape")


def first_segment(path: str) -> str:
    return path.lstrip("/").split("/", 1)[0]


def normalized_context(name: str, *, strict: bool = True) -> str:
    """`ctx`, `.ctx` or `:.ctx:` -> `.ctx`; the default context is `.`.

    Confluent refuses context names containing a colon (its ContextFilter answers 400);
    `strict` False keeps them (only to route a request that is refused anyway).
    """
    name = name.removeprefix(":")
    name = name.removesuffix(":")
    if strict and ":" in name:
        raise BadRequest("Context name cannot contain a colon")
    return name if name.startswith(".") else "." + name


def context_prefix(context: str) -> str:
    """The qualifier put in front of subject names: `:.ctx:`, or nothing for the default context."""
    return "" if context == "." else f":{context}:"


def _is_qualified(value: str) -> bool:
    return value.startswith((":.", ":*:"))


def _encoded_path(environ: dict[str, Any]) -> str | None:
    """The still-encoded path below SCRIPT_NAME, or None when no trustworthy raw URI exists.

    The raw URI is only used when it decodes to exactly the PATH_INFO the server computed,
    so a proxy or middleware that rewrote PATH_INFO is never overruled.
    """
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if not raw:
        return None
    if not raw.startswith("/"):  # absolute-form request target: scheme://host/path
        scheme_end = raw.find("://")
        path_start = raw.find("/", scheme_end + 3) if scheme_end >= 0 else -1
        if path_start < 0:
            return None
        raw = raw[path_start:]
    raw = raw.split("?", 1)[0].split("#", 1)[0]
    script = environ.get("SCRIPT_NAME", "")
    if script:
        if not raw.startswith(script):
            return None
        raw = raw[len(script):]
    try:
        decoded = unquote_to_bytes(raw.encode("latin-1"))
        expected = environ.get("PATH_INFO", "").encode("latin-1")
    except UnicodeEncodeError:
        return None
    return raw if decoded == expected else None


def _reencoded(path_info: str) -> str:
    """Percent-encode a decoded PATH_INFO again (WSGI strings are latin-1 by contract; a
    server that breaks it gets UTF-8 rather than a crash outside the error handlers)."""
    try:
        data = path_info.encode("latin-1")
    except UnicodeEncodeError:
        data = path_info.encode("utf-8", "surrogateescape")
    return quote(data, safe=_PATH_SAFE)


def rewrite_context_url(path: str, query: str, *, strict: bool = True) -> tuple[str, str]:
    """Apply the `/contexts/{ctx}/<rest>` rewrite to an encoded path and its query string.

    `/contexts/{ctx}` alone becomes `/contexts/:.ctx:` (the context delete endpoint);
    `/contexts` and `/contexts/` are left alone. Raises BadRequest for a colon in the name,
    unless `strict` is False.
    """
    parts = path[1:].split("/")
    while parts and parts[-1] == "":
        parts.pop()
    if len(parts) < 2 or parts[0] != "contexts":
        return path, query
    # Undecodable bytes in the name survive as surrogates and are encoded back as they came,
    # so the subject they end up qualifying is refused like any other (42208).
    context = normalized_context(unquote(parts[1], errors="surrogateescape"), strict=strict)
    prefix = context_prefix(context)
    encoded_prefix = quote(prefix, safe=":", errors="surrogateescape")
    rest = parts[2:]
    if not rest:
        return "/contexts/" + quote(f":{context}:", safe=":", errors="surrogateescape"), query

    out: list[str] = []
    expect_subject = False
    for index, part in enumerate(rest):
        if expect_subject:
            if not _is_qualified(unquote(part)):
                part = encoded_prefix + part
            expect_subject = False
        elif part == "subjects" or (index == 0 and part in ("config", "mode")):
            expect_subject = True
        out.append(part)
    if len(rest) == 1 and rest[0] in ("config", "mode") and prefix:  # the context's own setting
        out.append(encoded_prefix)
    new_path = "/" + "/".join(out)
    return new_path, _rewrite_query(new_path.strip("/"), query, prefix)


def _rewrite_query(path: str, query: str, prefix: str) -> str:
    """Qualify `subject` (schema-by-id reads) or `subjectPrefix` (listings) with the context.

    The query is handled as latin-1 text, one character per byte, so that bytes which are not
    UTF-8 reach the parameter parser unchanged (and are refused there) instead of being
    replaced here."""
    if not prefix:
        return query
    if path.startswith("schemas/ids"):
        name = "subject"
    elif path in ("schemas", "subjects"):
        name = "subjectPrefix"
    else:
        return query
    pairs = parse_qsl(query, keep_blank_values=True, encoding="latin-1")
    prefix = prefix.encode("utf-8", "surrogateescape").decode("latin-1")
    values = [v for k, v in pairs if k == name]
    if name == "subject":
        values = values[:1]  # the rewrite replaces every value with the (qualified) first one
    values = [v if _is_qualified(v) else prefix + v for v in values or [""]]
    kept = [(k, v) for k, v in pairs if k != name]
    return urlencode(kept + [(name, v) for v in values], encoding="latin-1")


class RawPathMiddleware:
    """WSGI middleware: give the router the encoded path, after the context rewrite."""

    def __init__(self, wsgi_app: WSGIApp, refuse: Refuse = error_only) -> None:
        self.wsgi_app = wsgi_app
        self.refuse = refuse

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path_info: str = environ.get("PATH_INFO", "")
        first = first_segment(path_info)
        if first in RAW_PATH_ROOTS:
            environ["PATH_INFO"] = _encoded_path(environ) or _reencoded(path_info)
        elif first in API_ROOTS:
            path = _encoded_path(environ) or _reencoded(path_info)
            if path.startswith("/contexts/"):
                query = environ.get("QUERY_STRING", "")
                try:
                    path, environ["QUERY_STRING"] = rewrite_context_url(path, query)
                except BadRequest as exc:
                    environ["PATH_INFO"], environ["QUERY_STRING"] = rewrite_context_url(path, query, strict=False)
                    return self.refuse(environ, start_response, exc, scoped=False)
            environ["PATH_INFO"] = path
        return self.wsgi_app(environ, start_response)
