"""The auth file (`REGISTRY_AUTH_FILE`): strict TOML in, `AuthFile` records out.

Operators write this file by hand, and a typo in a security file must not silently widen or
narrow access: every key is known, every value has the type and range the format gives it,
and the first problem found ends the load with an `AuthFileError` naming the entry
(`users[2].password`, `grants[0].subjects[1]`) and what is wrong. Everything downstream
(authenticators, the authorizer) receives validated records and never re-checks them:
regexes are compiled and password hashes decoded here, once per load.
"""
from __future__ import annotations

import ipaddress
import re
import tomllib
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from app.core.dek.errors import InvalidKey
from app.core.dek.records import NAME_MAX_LENGTH, check_kek_name
from app.security.errors import AuthFileError
from app.security.passwords import InvalidHash, parse_hash
from app.security.records import (
    AuthenticationSettings,
    AuthFile,
    BearerSettings,
    Grant,
    MtlsSettings,
    PatternKind,
    Role,
    SubjectPattern,
    User,
)

METHODS = frozenset({"basic", "bearer", "mtls"})
MTLS_SOURCES = ("cn", "san_dns", "san_email", "san_uri")
# Asymmetric JWS algorithms PyJWT implements. `none` and the HMAC family are refused by
# name: with a public JWKS, an HS* token "signed" with the public key would verify.
BEARER_ALGORITHMS = frozenset({
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES256K", "ES384", "ES512", "EdDSA",
})
ROLES = {"read": Role.READ, "write": Role.WRITE, "admin": Role.ADMIN}
_SECTIONS = ("authentication", "bearer", "mtls", "users", "grants")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

T = TypeVar("T")


def load_auth_file(path: str | Path) -> AuthFile:
    """Read and validate the file at `path`."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise AuthFileError("(file)", f"cannot read it: {exc.strerror or exc}") from None
    return parse_auth_file(raw)


def parse_auth_file(raw: bytes | str) -> AuthFile:
    try:
        document = tomllib.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except UnicodeDecodeError as exc:
        raise AuthFileError("(file)", f"not UTF-8: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise AuthFileError("(file)", f"not valid TOML: {exc}") from None
    _known_keys(document, _SECTIONS, "(file)")
    authentication = _authentication(_table(document, "authentication"))
    bearer_table = _table(document, "bearer")
    bearer = _bearer(bearer_table) if bearer_table is not None else None
    if "bearer" in authentication.methods and bearer is None:
        raise AuthFileError("[authentication].methods", "lists bearer, but there is no [bearer] section")
    mtls_table = _table(document, "mtls")
    mtls = _mtls(mtls_table) if mtls_table is not None else None
    if mtls is None and "mtls" in authentication.methods:
        mtls = MtlsSettings()
    users = tuple(_user(entry, f"users[{i}]") for i, entry in enumerate(_array(document, "users")))
    by_name: dict[str, User] = {}
    for i, user in enumerate(users):
        if user.name in by_name:
            raise AuthFileError(f"users[{i}].name", f"duplicate user {user.name!r}")
        by_name[user.name] = user
    grants = tuple(_grant(entry, f"grants[{i}]") for i, entry in enumerate(_array(document, "grants")))
    return AuthFile(authentication, users, grants, bearer, mtls, by_name)


# ------------------------------------------------------------------ sections
def _authentication(table: dict[str, Any] | None) -> AuthenticationSettings:
    where = "[authentication]"
    if table is None:
        return AuthenticationSettings()
    _known_keys(table, ("realm", "methods", "allow_anonymous", "cache_seconds", "max_failures_per_minute"), where)
    defaults = AuthenticationSettings()
    realm = _get(table, "realm", str, where, defaults.realm)
    if not realm or '"' in realm or "\\" in realm or _CONTROL.search(realm):
        raise AuthFileError(f"{where}.realm", "must be non-empty, without quotes, backslashes or control characters")
    methods = _strings(table, "methods", where, default=sorted(defaults.methods))
    for method in methods:
        if method not in METHODS:
            raise AuthFileError(f"{where}.methods", f"unknown method {method!r} (known: basic, bearer, mtls)")
    if not methods or len(set(methods)) != len(methods):
        raise AuthFileError(f"{where}.methods", "must list each of basic, bearer, mtls at most once, at least one")
    return AuthenticationSettings(
        realm=realm,
        methods=frozenset(methods),
        allow_anonymous=_get(table, "allow_anonymous", bool, where, defaults.allow_anonymous),
        cache_seconds=_integer(table, "cache_seconds", where, defaults.cache_seconds, 0, 86_400),
        max_failures_per_minute=_integer(
            table, "max_failures_per_minute", where, defaults.max_failures_per_minute, 1, 1_000_000
        ),
    )


def _bearer(table: dict[str, Any]) -> BearerSettings:
    where = "[bearer]"
    _known_keys(table, ("jwks_url", "jwks_file", "issuer", "audience", "algorithms", "principal_claim",
                        "groups_claim", "leeway_seconds"), where)
    jwks_url = _optional_text(table, "jwks_url", where)
    jwks_file = _optional_text(table, "jwks_file", where)
    if (jwks_url is None) == (jwks_file is None):
        raise AuthFileError(where, "set exactly one of jwks_url and jwks_file")
    if jwks_url is not None:
        _check_jwks_url(jwks_url, f"{where}.jwks_url")
    if "algorithms" not in table:
        raise AuthFileError(f"{where}.algorithms", "is required (for example [\"RS256\", \"ES256\"])")
    algorithms = _strings(table, "algorithms", where)
    if not algorithms:
        raise AuthFileError(f"{where}.algorithms", "must list at least one algorithm")
    for algorithm in algorithms:
        if algorithm.lower() == "none" or algorithm.upper().startswith("HS"):
            raise AuthFileError(f"{where}.algorithms", f"{algorithm!r} is refused: only asymmetric algorithms")
        if algorithm not in BEARER_ALGORITHMS:
            raise AuthFileError(
                f"{where}.algorithms",
                f"unknown algorithm {algorithm!r} (known: {', '.join(sorted(BEARER_ALGORITHMS))})",
            )
    groups_claim = _optional_text(table, "groups_claim", where)
    if groups_claim is not None and "" in groups_claim.split("."):
        raise AuthFileError(f"{where}.groups_claim", f"{groups_claim!r} has an empty path segment")
    return BearerSettings(
        algorithms=tuple(dict.fromkeys(algorithms)),
        jwks_url=jwks_url,
        jwks_file=jwks_file,
        issuer=_optional_text(table, "issuer", where),
        audience=_optional_text(table, "audience", where),
        principal_claim=_optional_text(table, "principal_claim", where) or "sub",
        groups_claim=groups_claim,
        leeway_seconds=_integer(table, "leeway_seconds", where, 0, 0, 3_600),
    )


def _check_jwks_url(url: str, where: str) -> None:
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as exc:
        raise AuthFileError(where, f"not a URL: {exc}") from None
    if parts.scheme not in ("https", "http") or not host:
        raise AuthFileError(where, "must be an https:// URL with a host")
    if parts.scheme == "http" and not _is_loopback(host):
        raise AuthFileError(where, "must use https (plain http only for a loopback host)")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _mtls(table: dict[str, Any]) -> MtlsSettings:
    where = "[mtls]"
    _known_keys(table, ("principal_from",), where)
    source = _get(table, "principal_from", str, where, "cn")
    if source not in MTLS_SOURCES:
        raise AuthFileError(f"{where}.principal_from", f"{source!r} is not one of {', '.join(MTLS_SOURCES)}")
    return MtlsSettings(principal_from=source)


def _user(entry: Any, where: str) -> User:
    if not isinstance(entry, dict):
        raise AuthFileError(where, "must be a table ([[users]])")
    _known_keys(entry, ("name", "password", "groups"), where)
    if "name" not in entry:
        raise AuthFileError(where, "has no name")
    name = _name(_get(entry, "name", str, where, ""), f"{where}.name")
    if not isinstance(entry.get("password", ""), str):  # said without the value: it may be a plain password
        raise AuthFileError(f"{where}.password", "must be a string (a $scrypt$ PHC hash)")
    password = _optional_text(entry, "password", where)
    if password is not None:
        if ":" in name:
            raise AuthFileError(
                f"{where}.name", "a user with a password cannot have ':' in its name (Basic splits there)"
            )
        try:
            parse_hash(password)
        except InvalidHash as exc:
            raise AuthFileError(f"{where}.password", str(exc)) from None
    groups = tuple(_name(group, f"{where}.groups[{i}]") for i, group in enumerate(_strings(entry, "groups", where)))
    return User(name=name, password=password, groups=tuple(dict.fromkeys(groups)))


def _grant(entry: Any, where: str) -> Grant:
    if not isinstance(entry, dict):
        raise AuthFileError(where, "must be a table ([[grants]])")
    _known_keys(entry, ("principal", "role", "scope", "subjects", "keks", "contexts"), where)
    for key in ("principal", "role"):
        if key not in entry:
            raise AuthFileError(where, f"has no {key}")
    principal = _principal(_get(entry, "principal", str, where, ""), f"{where}.principal")
    role_name = _get(entry, "role", str, where, "")
    if role_name not in ROLES:
        raise AuthFileError(f"{where}.role", f"unknown role {role_name!r} (known: read, write, admin)")
    role = ROLES[role_name]
    if "scope" in entry:
        if _get(entry, "scope", str, where, "") != "global":
            raise AuthFileError(f"{where}.scope", "the only scope is \"global\"")
        for key in ("subjects", "keks", "contexts"):
            if key in entry:
                raise AuthFileError(f"{where}.{key}", "cannot be combined with scope = \"global\"")
        return Grant(principal=principal, role=role, global_scope=True, subjects=(), contexts=())
    if "subjects" not in entry and "keks" not in entry:
        raise AuthFileError(where, "needs either scope = \"global\", subjects or keks")
    subjects = _patterns(entry, "subjects", where)
    keks = _patterns(entry, "keks", where)
    for i, kek in enumerate(keks):
        if kek.kind is PatternKind.EXACT and not _is_kek_name(kek.text):
            raise AuthFileError(f"{where}.keks[{i}]", f"{kek.text!r} is not a KEK name (a letter or _, then "
                                                      f"letters, digits, _ or -; {NAME_MAX_LENGTH} at most)")
    contexts = _strings(entry, "contexts", where, default=["."])
    if not contexts:
        raise AuthFileError(f"{where}.contexts", "must list at least one context (\".\" is the default context)")
    for i, context in enumerate(contexts):
        if context != "*" and (not context.startswith(".") or ":" in context or _CONTROL.search(context)):
            raise AuthFileError(
                f"{where}.contexts[{i}]", f"{context!r} is not a context name (\".\", \".name\" or \"*\")"
            )
    return Grant(principal=principal, role=role, subjects=subjects, contexts=tuple(dict.fromkeys(contexts)),
                 keks=keks)


def _patterns(entry: dict[str, Any], key: str, where: str) -> tuple[SubjectPattern, ...]:
    """`subjects` or `keks`: absent is none, present must list at least one pattern."""
    if key not in entry:
        return ()
    texts = _strings(entry, key, where)
    if not texts:
        raise AuthFileError(f"{where}.{key}", "must list at least one pattern")
    return tuple(_pattern(text, f"{where}.{key}[{i}]") for i, text in enumerate(texts))


def _is_kek_name(name: str) -> bool:
    try:
        check_kek_name(name)
    except InvalidKey:
        return False
    return True


def _principal(text: str, where: str) -> str:
    if text in ("*", "anonymous"):
        return text
    kind, colon, name = text.partition(":")
    if colon and kind in ("user", "group") and name and not _CONTROL.search(name):
        return text
    raise AuthFileError(where, f"{text!r} is not user:NAME, group:NAME, * or anonymous")


def _pattern(text: str, where: str) -> SubjectPattern:
    if text == "*":
        return SubjectPattern(PatternKind.ANY)
    kind, colon, body = text.partition(":")
    if not colon or kind not in ("exact", "prefix", "regex"):
        raise AuthFileError(where, f"{text!r} is not \"*\", exact:NAME, prefix:TEXT or regex:PATTERN")
    if not body:
        raise AuthFileError(where, f"{text!r} has nothing after {kind}:")
    if kind == "regex":
        try:
            compiled = re.compile(body)
        except re.error as exc:
            raise AuthFileError(where, f"regex does not compile: {exc}") from None
        return SubjectPattern(PatternKind.REGEX, body, compiled)
    return SubjectPattern(PatternKind(kind), body)


# ------------------------------------------------------------------ typed access
def _known_keys(table: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in known:
            raise AuthFileError(where, f"unknown key {key!r} (known: {', '.join(known)})")


def _table(document: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = document.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise AuthFileError(f"[{key}]", "must be a table")
    return value


def _array(document: dict[str, Any], key: str) -> list[Any]:
    value = document.get(key, [])
    if not isinstance(value, list):
        raise AuthFileError(key, f"must be an array of tables ([[{key}]])")
    return value


def _get(table: dict[str, Any], key: str, kind: type[T], where: str, default: T) -> T:
    value = table.get(key, default)
    # TOML booleans are Python bools, which are ints too: keep the two apart.
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise AuthFileError(f"{where}.{key}", f"must be {_KIND_NAMES.get(kind, kind.__name__)}, got {value!r}")
    return value


def _integer(table: dict[str, Any], key: str, where: str, default: int, low: int, high: int) -> int:
    value = _get(table, key, int, where, default)
    if not low <= value <= high:
        raise AuthFileError(f"{where}.{key}", f"must be between {low} and {high}, got {value}")
    return value


def _optional_text(table: dict[str, Any], key: str, where: str) -> str | None:
    if key not in table:
        return None
    value = _get(table, key, str, where, "")
    if not value.strip():
        raise AuthFileError(f"{where}.{key}", "must not be empty")
    return value


def _strings(table: dict[str, Any], key: str, where: str, default: list[str] | None = None) -> list[str]:
    value = table.get(key, default if default is not None else [])
    if not isinstance(value, list):
        raise AuthFileError(f"{where}.{key}", f"must be a list of strings, got {value!r}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise AuthFileError(f"{where}.{key}[{i}]", f"must be a string, got {item!r}")
    return value


def _name(text: str, where: str) -> str:
    if not text or text != text.strip() or _CONTROL.search(text):
        raise AuthFileError(where, f"{text!r} must be non-empty, without surrounding spaces or control characters")
    return text


_KIND_NAMES: dict[type, str] = {str: "a string", bool: "true or false", int: "an integer"}
