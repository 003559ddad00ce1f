"""Runtime configuration, read once from `REGISTRY_*` environment variables.

Everything tunable lives here so that the rest of the code receives a plain object
instead of reaching into `os.environ` at arbitrary moments (which would make tests
order-dependent and a fleet's behaviour hard to reason about).
"""
from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from ipaddress import IPv4Network, IPv6Network, ip_network
from dataclasses import dataclass, field, fields, replace


_TRUE = {"1", "true", "yes", "on"}
ACCESS_LOG_FORMATS = ("text", "json")
_FALSE = {"0", "false", "no", "off"}
# gunicorn's worker timeout (app/server/serving.py): a request that takes longer is stuck, and the
# worker is killed with every other request it serves. A work budget must end well before.
WORKER_TIMEOUT_SECONDS = 30


def _default_workers() -> int:
    return max(2, min(8, (os.cpu_count() or 1) * 2 + 1))


@dataclass(frozen=True)
class Settings:
    # SQLAlchemy URL. The embedded default keeps its file under ./data/ of the working directory.
    database_url: str = "sqlite:///data/registry.db"
    # Server-wide default compatibility level (Confluent's `schema.compatibility.level`).
    compatibility_level: str = "BACKWARD"
    # 40901 is what current Confluent releases send for an incompatible schema; 7.x clients saw 409.
    incompatible_error_code: int = 40901
    # 8.x replies always carry `schemaType`; 7.x left it out for AVRO. Set false for 7.x shapes.
    avro_schema_type_in_replies: bool = True
    # Largest schema text accepted, in bytes (Confluent's limit is the Kafka record size).
    max_schema_bytes: int = 1_048_576
    # Largest request body, in bytes: larger ones get 413 before they are read (app/api/limits.py).
    max_request_bytes: int = 4_194_304
    # How deeply a schema document may nest (JSON arrays and objects; Protobuf braces), checked
    # before any format parses it. At most the formats' own bound (app/formats/jackson.py), which
    # their recursive walks are built for: checked where settings and formats meet
    # (app/wiring.py's `build_registry`).
    max_schema_depth: int = 128
    # CPU seconds of work (parsing, policy rules, compatibility checks, diffs) one request may
    # spend before it is refused with 42201 (the web UI: 503); counted on the serving thread's
    # CPU clock (app/formats/work_budget.py), so a busy host never makes a valid schema fail.
    # Well under gunicorn's worker timeout (WORKER_TIMEOUT_SECONDS), which would take every
    # request the worker serves with it. 0: no budget.
    work_budget_seconds: float = 5.0
    # Whether `PUT /mode` may change modes at all (Confluent's `mode.mutability`).
    mode_mutability: bool = True
    # Apply pending Alembic migrations when the app starts.
    auto_migrate: bool = True
    # Memory, in MiB, for the in-process caches of each worker: stored content, parsed
    # schemas, rendered replies (all immutable once stored). Bounded by estimated bytes.
    schema_cache_mb: int = 64
    # Serve repeated `GET /schemas/ids/{id}` and `/subjects/{s}/versions/{v}` from memory while
    # no write has committed (app/storage/changes.py). Off: every such read asks the database.
    hot_read_cache: bool = True
    # Identity reported by GET /v1/metadata/id.
    cluster_id: str = "sqlregistry"
    # Serving (`sqlregistry serve` and deploy/gunicorn.conf.py). Loopback by default: listening
    # on every interface is a choice an operator makes (`--host 0.0.0.0`).
    host: str = "127.0.0.1"
    port: int = 8081
    workers: int = field(default_factory=_default_workers)
    # Threads per gunicorn worker; a few cover clients that hold idle keep-alive connections.
    threads: int = 4
    log_level: str = "info"
    # Access log: empty for none, `-` for stdout, else a file path (`true`/`false` also work).
    access_log: str = ""
    # `text`: gunicorn's combined-style lines; `json`: one JSON object per request with
    # method, route template, status, ms and subject (app/server/access_log.py).
    access_log_format: str = "text"
    # `GET /metrics` (Prometheus text) and the counting behind it.
    metrics: bool = True
    # Peers whose X-Forwarded-* headers are trusted (a load balancer's addresses; `*` for any).
    forwarded_allow_ips: str = "127.0.0.1,::1"
    # The auth file (TOML: users, grants, bearer and mTLS settings; app/security/authfile.py).
    # Empty: no authentication, every caller may do everything.
    auth_file: str = ""
    # The audit trail (app/core/audit.py): every change and refused write attempt gets a row.
    # Off only to measure what it costs (bench/registrations.py); an operator keeps it on.
    audit: bool = True
    # Comma-separated CIDRs of the proxies whose `X-Forwarded-For` the audit trail records;
    # from any other peer the header is ignored (a client could write anything in it).
    trusted_proxies: str = ""
    # Days the audit trail keeps a row; older rows are deleted by the server itself, at most
    # once an hour per process, after a write. 0 keeps every row (the default: a trail is
    # often evidence someone must keep, and deleting it is a decision an operator makes).
    audit_retention_days: int = 0
    # The highest schema id an IMPORT registration may give explicitly. An imported id moves
    # its context's id allocator past it, so the allocator's top half is kept out of reach:
    # one import of 2147483647 would otherwise leave no id for any later registration.
    max_imported_id: int = 2**30 - 1
    # TLS, served by gunicorn itself (gunicorn's --certfile, --keyfile, --ca-certs, --cert-reqs):
    # the server's certificate chain and key as PEM files; with `ca_certs`, the CA whose client
    # certificates are verified, and `cert_reqs` 1 (a client may present one) or 2 (every
    # client must). Empty `certfile`: plain HTTP.
    certfile: str = ""
    keyfile: str = ""
    ca_certs: str = ""
    cert_reqs: int = 0
    # The DEK registry's `local-kms` driver (app/core/dek/local_kms.py): the secret its KEKs are
    # derived from, the same one the clients give confluent-kafka's local KMS driver. Needed only
    # for `shared` KEKs (the server wraps their DEKs); the file form keeps it out of the
    # environment. Empty: no local KMS.
    kms_local_secret: str = ""
    kms_local_secret_file: str = ""
    # Hide and refuse every write action of the web UI (/ui/). A convenience for a browse-only
    # deployment, not a security boundary: the REST API still accepts writes.
    ui_readonly: bool = False
    # Run the exporters (`/exporters`): each serving process starts a runner thread, and the
    # lease in the database picks the one process that runs each exporter. Off: definitions
    # can still be managed, but nothing is copied by this process.
    exporters: bool = True
    # The most bytes read of any one reply from another registry: an exporter's target, and the
    # source and target of `sqlregistry export/import/mirror/verify`. A reply past it stops the
    # transfer (the exporter in ERROR), having cost no more memory than this.
    exporter_max_reply_bytes: int = 16 * 1024 * 1024

    def __post_init__(self) -> None:
        # Values gunicorn would accept and then fail on while booting a worker (threads=0), or
        # refuse with a traceback, are refused here with the variable's name.
        bounds = (
            ("port", 1, 65535), ("workers", 1, None), ("threads", 1, None),
            ("max_request_bytes", 1, None), ("max_schema_bytes", 1, None),
            ("audit_retention_days", 0, None), ("max_imported_id", 1, 2**31 - 1),
            ("exporter_max_reply_bytes", 1024, None),
        )
        for name, low, high in bounds:
            value = getattr(self, name)
            if value < low or (high is not None and value > high):
                bound = f"between {low} and {high}" if high is not None else f"at least {low}"
                raise ValueError(f"REGISTRY_{name.upper()} (--{name}): must be {bound}, got {value}")
        try:
            self.trusted_proxy_networks
        except ValueError as exc:
            raise ValueError(f"REGISTRY_TRUSTED_PROXIES: {exc}") from None
        if self.access_log_format not in ACCESS_LOG_FORMATS:
            raise ValueError(
                f"REGISTRY_ACCESS_LOG_FORMAT: must be one of {', '.join(ACCESS_LOG_FORMATS)}, "
                f"got {self.access_log_format!r}"
            )
        if not 0 <= self.work_budget_seconds < WORKER_TIMEOUT_SECONDS:
            raise ValueError(
                f"REGISTRY_WORK_BUDGET_SECONDS: must be at least 0 and under gunicorn's worker timeout "
                f"({WORKER_TIMEOUT_SECONDS} s), got {self.work_budget_seconds}"
            )
        self._check_tls()

    def _check_tls(self) -> None:
        """Combinations gunicorn would take and then serve wrongly are refused: client
        certificates without a CA file would be checked against the system's public CAs."""
        if self.cert_reqs not in (0, 1, 2):
            raise ValueError(f"REGISTRY_CERT_REQS (--cert-reqs): must be 0, 1 or 2, got {self.cert_reqs}")
        if not self.certfile and (self.keyfile or self.ca_certs or self.cert_reqs):
            raise ValueError("REGISTRY_CERTFILE (--certfile): needed with --keyfile, --ca-certs or --cert-reqs")
        if self.cert_reqs and not self.ca_certs:
            raise ValueError("REGISTRY_CA_CERTS (--ca-certs): needed to verify client certificates (--cert-reqs 1 or 2)")

    @property
    def trusted_proxy_networks(self) -> tuple[IPv4Network | IPv6Network, ...]:
        """`trusted_proxies` parsed (a bare address is a /32 or /128 network)."""
        return _networks(self.trusted_proxies)

    @property
    def access_log_target(self) -> str | None:
        """Where gunicorn writes the access log (None: nowhere)."""
        low = self.access_log.strip().lower()
        if low in _FALSE or not low:
            return None
        return "-" if low in _TRUE else self.access_log.strip()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Build settings from `REGISTRY_<FIELD>` variables; unknown variables are ignored."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get("REGISTRY_" + f.name.upper())
            if raw is None:
                continue
            values[f.name] = _convert(f.name, raw, type(getattr(_DEFAULTS, f.name)))
        return cls(**values)

    def with_overrides(self, **changes: object) -> Settings:
        return replace(self, **changes)


def _convert(name: str, raw: str, kind: type) -> object:
    if kind is bool:
        low = raw.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise ValueError(f"REGISTRY_{name.upper()}: expected a boolean, got {raw!r}")
    if kind is int:
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"REGISTRY_{name.upper()}: expected an integer, got {raw!r}") from None
    if kind is float:
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"REGISTRY_{name.upper()}: expected a number, got {raw!r}") from None
    return raw


@functools.cache
def _networks(text: str) -> tuple[IPv4Network | IPv6Network, ...]:
    """Parsed once per distinct value: the audit trail asks on every refused or committed write."""
    return tuple(ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


_DEFAULTS = Settings()
