"""Every exporter operation of the API: definitions, config, status and the runner's controls.

Only a server administrator (a global admin grant) may see or change an exporter: its config
holds another registry's credentials, and what it copies is every chosen subject. Each change
is one transaction with its audit row. The runner (app/server/runners/exporters.py) does the
copying; these operations only move the state it obeys: create and resume set STARTING (the
runner compares everything chosen with the target, then reports RUNNING), pause PAUSED,
reset clears offset and trace. As in Confluent's registry, deleting needs a stopped exporter,
and so do changing its definition, its config and resetting it: PAUSED, or ERROR (an exporter
in ERROR is stopped too: fixing its config is how an error is cleared, and a broken one can be
deleted).

An exporter whose target is this registry, and whose rename its own patterns choose again,
would copy its copies without end: it is refused (`feeds_itself`, `same_address`). "This
registry" is told by the target URL's host and port against the address the request that
makes the change reached (its Host header), loopback names counting as one: a cluster id
cannot tell (every sqlregistry says `sqlregistry` unless configured otherwise).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from app.core import audit
from app.core.access import ANONYMOUS, OPEN, Action, Guard, Principal
from app.core.audit import NO_AUDIT, Audit
from app.core.exporters.errors import ExporterExists, ExporterNotFound, ExporterNotPaused, InvalidExporterSubjects
from app.core.exporters.records import (
    ERROR,
    PAUSED,
    RUNNING,
    STARTING,
    URL_KEY,
    ExporterDefinition,
    StoredExporter,
    auto_context,
    feeds_itself,
    masked,
    parse_config,
    parse_definition,
    same_address,
    valid_name,
)
from app.core.store.audit import NO_ORIGIN, Origin
from app.core.store.protocol import Storage, Store

_STOPPED = (PAUSED, ERROR)
NOT_RUN = ("This server does not run exporters (REGISTRY_EXPORTERS is off): nothing copies this one "
           "unless another instance of the fleet runs them")


def now_ms() -> int:
    return int(time.time() * 1000)


class ExporterService:
    def __init__(self, storage: Storage, *, guard: Callable[[Principal], Guard] = lambda principal: OPEN,
                 audit_for: Callable[[Principal, Origin], Audit] = lambda principal, origin: NO_AUDIT,
                 cluster_id: str = "", running: bool = True) -> None:
        """`running`: whether this server runs exporters (REGISTRY_EXPORTERS); a status says
        so when it does not and the exporter should be running."""
        self.storage = storage
        self._guard = guard
        self._audit = audit_for
        self._auto_context = auto_context(cluster_id)
        self._running = running

    def _admin(self, principal: Principal) -> None:
        self._guard(principal).check(Action.ADMIN, "")

    def _load(self, store: Store, name: str, lock: bool = False) -> StoredExporter:
        found = store.exporter(name, lock=lock) if valid_name(name) else None
        if found is None:  # a name no exporter can have is not found either, as in Confluent
            raise ExporterNotFound.named(name)
        return found

    def _record(self, store: Store, principal: Principal, origin: Origin, action: str, name: str,
                **detail: Any) -> None:
        self._audit(principal, origin).record(store, action, None, detail={"exporter": name, **detail})

    # ---------------------------------------------------------------- reads
    def names(self, *, principal: Principal = ANONYMOUS) -> list[str]:
        self._admin(principal)
        with self.storage.read() as store:
            return store.exporter_names()

    def describe(self, name: str, *, principal: Principal = ANONYMOUS) -> dict[str, Any]:
        self._admin(principal)
        with self.storage.read() as store:
            found = self._load(store, name)
        return {**found.definition.to_json(), "config": masked(found.config)}

    def status(self, name: str, *, principal: Principal = ANONYMOUS) -> dict[str, Any]:
        self._admin(principal)
        with self.storage.read() as store:
            status = self._load(store, name).status.to_json()
        if not self._running and status["state"] in (STARTING, RUNNING) and not status["trace"]:
            status["trace"] = NOT_RUN
        return status

    def config(self, name: str, *, principal: Principal = ANONYMOUS) -> dict[str, str]:
        self._admin(principal)
        with self.storage.read() as store:
            return masked(self._load(store, name).config)

    # ---------------------------------------------------------------- writes
    def create(self, body: Any, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN,
               here: str | None = None) -> dict[str, str]:
        """`here`: the URL the request reached (see the module's docstring)."""
        self._admin(principal)
        definition = parse_definition(body)
        config = parse_config(body.get("config"))
        self._not_endless(definition, config, here)
        with self.storage.write() as store:
            if store.exporter(definition.name) is not None:
                raise ExporterExists.named(definition.name)
            store.insert_exporter(definition, config, STARTING, now_ms())
            self._record(store, principal, origin, audit.CREATE_EXPORTER, definition.name,
                         definition=definition.to_json(), config=masked(config))
        return {"name": definition.name}

    def update(self, name: str, body: Any, *, principal: Principal = ANONYMOUS,
               origin: Origin = NO_ORIGIN, here: str | None = None) -> dict[str, str]:
        self._admin(principal)
        with self.storage.write() as store:
            found = self._stopped(store, name)
            definition = parse_definition(body, base=found.definition)
            config = found.config
            if isinstance(body, dict) and body.get("config") is not None:
                config = parse_config(body["config"], found.config)
            self._not_endless(definition, config, here)
            store.update_exporter(name, definition=definition, config=config)
            self._record(store, principal, origin, audit.UPDATE_EXPORTER, name,
                         definition=definition.to_json(), config=masked(config))
        return {"name": name}

    def put_config(self, name: str, body: Any, *, principal: Principal = ANONYMOUS,
                   origin: Origin = NO_ORIGIN, here: str | None = None) -> dict[str, str]:
        self._admin(principal)
        with self.storage.write() as store:
            found = self._stopped(store, name)
            config = parse_config(body, found.config)
            self._not_endless(found.definition, config, here)
            store.update_exporter(name, config=config)
            self._record(store, principal, origin, audit.UPDATE_EXPORTER, name, config=masked(config))
        return {"name": name}

    def delete(self, name: str, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> None:
        self._admin(principal)
        with self.storage.write() as store:
            self._stopped(store, name)
            store.delete_exporter(name)
            self._record(store, principal, origin, audit.DELETE_EXPORTER, name)

    def pause(self, name: str, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> dict[str, str]:
        return self._control(name, principal, origin, audit.PAUSE_EXPORTER, lambda found: PAUSED)

    def resume(self, name: str, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> dict[str, str]:
        """A running exporter stays as it is; a paused or failed one starts over its comparison."""
        return self._control(name, principal, origin, audit.RESUME_EXPORTER,
                             lambda found: STARTING if found.status.state in _STOPPED else found.status.state)

    def reset(self, name: str, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> dict[str, str]:
        """Offset and trace cleared; a failed exporter starts again, a paused one stays paused."""
        def state(found: StoredExporter) -> str:
            if found.status.state not in _STOPPED:
                raise ExporterNotPaused.named(name)
            return PAUSED if found.status.state == PAUSED else STARTING

        return self._control(name, principal, origin, audit.RESET_EXPORTER, state, reset=True)

    def _control(self, name: str, principal: Principal, origin: Origin, action: str,
                 state: Callable[[StoredExporter], str], reset: bool = False) -> dict[str, str]:
        self._admin(principal)
        with self.storage.write() as store:
            found = self._load(store, name, lock=True)
            new_state = state(found)
            extra: dict[str, Any] = {"offset": 0, "trace": ""} if reset else {}
            if new_state == STARTING:
                extra["trace"] = ""
            store.update_exporter(name, state=new_state, now=now_ms(), **extra)
            self._record(store, principal, origin, action, name, state=new_state)
        return {"name": name}

    def _not_endless(self, definition: ExporterDefinition, config: dict[str, str], here: str | None) -> None:
        if same_address(config[URL_KEY], here) and feeds_itself(definition, self._auto_context):
            raise InvalidExporterSubjects(
                f"Exporter '{definition.name}' would copy into this registry (its {URL_KEY} is this server) "
                f"subjects its own patterns choose again after subjectRenameFormat "
                f"{definition.subject_rename_format!r}, growing without end: choose subjects the rename takes "
                "out of reach, another context (contextType CUSTOM or AUTO) or another target")

    def _stopped(self, store: Store, name: str) -> StoredExporter:
        found = self._load(store, name, lock=True)
        if found.status.state not in _STOPPED:
            raise ExporterNotPaused.named(name)
        return found

