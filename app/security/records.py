"""The auth file as records: what the file loader (`authfile.py`) produces and the
authenticators and the authorizer read. Every field is validated when the file is loaded,
so nothing downstream re-checks it. Roles are ordered: each includes the ones below it."""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field


class Role(enum.IntEnum):
    READ = 1
    WRITE = 2
    ADMIN = 3


class PatternKind(str, enum.Enum):
    ANY = "*"
    EXACT = "exact"
    PREFIX = "prefix"
    REGEX = "regex"


@dataclass(frozen=True)
class SubjectPattern:
    """One entry of a grant's `subjects` or `keks`; `regex` is compiled once, when the file is
    loaded, and must match the whole name (a subject's unqualified, a KEK's)."""

    kind: PatternKind
    text: str = ""
    regex: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Grant:
    """`principal` is `user:NAME`, `group:NAME`, `*` or `anonymous`. With `global_scope`,
    `subjects`, `keks` and `contexts` are empty; otherwise at least one of `subjects` and
    `keks` is not, and `contexts` is never empty (the file's default is `["."]`, and `"*"`
    stands for every context). `keks` names the key encryption keys of those contexts the
    role is held on: KEKs are not subjects, so no subject pattern reaches one."""

    principal: str
    role: Role
    global_scope: bool = False
    subjects: tuple[SubjectPattern, ...] = ()
    contexts: tuple[str, ...] = (".",)
    keks: tuple[SubjectPattern, ...] = ()


@dataclass(frozen=True)
class User:
    """A `[[users]]` entry. `password` is the PHC string (`$scrypt$...`), or None for an
    identity that only a client certificate proves. `groups` are bare names (no `group:`)."""

    name: str
    password: str | None = None
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuthenticationSettings:
    """`[authentication]`."""

    realm: str = "sqlregistry"
    methods: frozenset[str] = frozenset({"basic"})   # subset of {"basic", "bearer", "mtls"}
    allow_anonymous: bool = False
    cache_seconds: int = 300
    max_failures_per_minute: int = 20


@dataclass(frozen=True)
class BearerSettings:
    """`[bearer]`: exactly one of `jwks_url` and `jwks_file` is set; `algorithms` never holds
    `none` or an `HS*` algorithm; `jwks_url` is https unless its host is a loopback address."""

    algorithms: tuple[str, ...]
    jwks_url: str | None = None
    jwks_file: str | None = None
    issuer: str | None = None
    audience: str | None = None
    principal_claim: str = "sub"
    groups_claim: str | None = None      # dotted path, e.g. "realm_access.roles"
    leeway_seconds: int = 0


@dataclass(frozen=True)
class MtlsSettings:
    """`[mtls]`: `principal_from` is one of "cn", "san_dns", "san_email", "san_uri"."""

    principal_from: str = "cn"


@dataclass(frozen=True)
class AuthFile:
    """One loaded, valid auth file."""

    authentication: AuthenticationSettings
    users: tuple[User, ...] = ()
    grants: tuple[Grant, ...] = ()
    bearer: BearerSettings | None = None
    mtls: MtlsSettings | None = None
    users_by_name: dict[str, User] = field(default_factory=dict, compare=False)
