"""Runtime configuration, read once from `REGISTRY_*` environment variables.

Everything tunable lives here so that the rest of the code receives a plain object
instead of reaching into `os.environ` at arbitrary moments (which would make tests
order-dependent and a fleet's behaviour hard to reason about).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace

_TRUE = {"1", "true", "yes", "on"}
ACCESS_LOG_FORMATS = ("text", "json")
_FALSE = {"0", "false", "no", "off"}


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
    # method, route template, status, ms and subject (app/access_log.py).
    access_log_format: str = "text"
    # `GET /metrics` (Prometheus text) and the counting behind it.
    metrics: bool = True
    # Peers whose X-Forwarded-* headers are trusted (a load balancer's addresses; `*` for any).
    forwarded_allow_ips: str = "127.0.0.1,::1"
    # Hide and refuse every write action of the web UI (/ui/). A convenience for a browse-only
    # deployment, not a security boundary: the REST API still accepts writes.
    ui_readonly: bool = False

    def __post_init__(self) -> None:
        # Values gunicorn would accept and then fail on while booting a worker (threads=0), or
        # refuse with a traceback, are refused here with the variable's name.
        for name, low, high in (("port", 1, 65535), ("workers", 1, None), ("threads", 1, None)):
            value = getattr(self, name)
            if value < low or (high is not None and value > high):
                bound = f"between {low} and {high}" if high is not None else f"at least {low}"
                raise ValueError(f"REGISTRY_{name.upper()} (--{name}): must be {bound}, got {value}")
        if self.access_log_format not in ACCESS_LOG_FORMATS:
            raise ValueError(
                f"REGISTRY_ACCESS_LOG_FORMAT: must be one of {', '.join(ACCESS_LOG_FORMATS)}, "
                f"got {self.access_log_format!r}"
            )

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
    return raw


_DEFAULTS = Settings()
