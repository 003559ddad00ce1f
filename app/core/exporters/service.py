"""Every exporter operation of the API: definitions, config, status and the runner's controls.

Only a server administrator (a global admin grant) may see or change an exporter: its config
holds another registry's credentials, and what it copies is every chosen subject. Each change
is one transaction with its audit row. The runner (app/server/runners/exporters.py) does the
copying; these operations only move the state it obeys: create and resume set STARTING (the
runner compares everything chosen with the target, then reports RUNNING), pause PAUSED,
reset clears offset and trace. As in Confluent's registry, deleting needs a paused exporter,
and so do changing its definition, its config and resetting it (an exporter in ERROR is
stopped too, so those are allowed there as well: fixing a config is how an error is cleared).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from app.core import audit
from app.core.access import ANONYMOUS, OPEN, Action, Guard, Principal
from app.core.audit import NO_AUDIT, Audit
from app.core.exporters.errors import ExporterExists, ExporterNotFound, ExporterNotPaused
from app.core.exporters.records import (
    ERROR,
    PAUSED,
    STARTING,
    StoredExporter,
    masked,
    parse_config,
    parse_definition,
    valid_name,
)
from app.core.store.audit import NO_ORIGIN, Origin
from app.core.store.protocol import Storage, Store

_STOPPED = (PAUSED, ERROR)


def now_ms() -> int:
    return int(time.time() * 1000)


class ExporterService:
    def __init__(self, storage: Storage, *, guard: Callable[[Principal], Guard] = lambda principal: OPEN,
                 audit_for: Callable[[Principal, Origin], Audit] = lambda principal, origin: NO_AUDIT) -> None:
        self.storage = storage
        self._guard = guard
        self._audit = audit_for

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
            return self._load(store, name).status.to_json()

    def config(self, name: str, *, principal: Principal = ANONYMOUS) -> dict[str, str]:
        self._admin(principal)
        with self.storage.read() as store:
            return masked(self._load(store, name).config)

    # ---------------------------------------------------------------- writes
    def create(self, body: Any, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> dict[str, str]:
        self._admin(principal)
        definition = parse_definition(body)
        config = parse_config(body.get("config"))
        with self.storage.write() as store:
            if store.exporter(definition.name) is not None:
                raise ExporterExists.named(definition.name)
            store.insert_exporter(definition, config, STARTING, now_ms())
            self._record(store, principal, origin, audit.CREATE_EXPORTER, definition.name,
                         definition=definition.to_json(), config=masked(config))
        return {"name": definition.name}

    def update(self, name: str, body: Any, *, principal: Principal = ANONYMOUS,
               origin: Origin = NO_ORIGIN) -> dict[str, str]:
        self._admin(principal)
        with self.storage.write() as store:
            found = self._stopped(store, name)
            definition = parse_definition(body, base=found.definition)
            config = found.config
            if isinstance(body, dict) and body.get("config") is not None:
                config = _merged_config(found.config, body["config"])
            store.update_exporter(name, definition=definition, config=config)
            self._record(store, principal, origin, audit.UPDATE_EXPORTER, name,
                         definition=definition.to_json(), config=masked(config))
        return {"name": name}

    def put_config(self, name: str, body: Any, *, principal: Principal = ANONYMOUS,
                   origin: Origin = NO_ORIGIN) -> dict[str, str]:
        self._admin(principal)
        with self.storage.write() as store:
            config = _merged_config(self._stopped(store, name).config, body)
            store.update_exporter(name, config=config)
            self._record(store, principal, origin, audit.UPDATE_EXPORTER, name, config=masked(config))
        return {"name": name}

    def delete(self, name: str, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> None:
        self._admin(principal)
        with self.storage.write() as store:
            found = self._load(store, name, lock=True)
            if found.status.state != PAUSED:
                raise ExporterNotPaused.named(name)
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

    def _stopped(self, store: Store, name: str) -> StoredExporter:
        found = self._load(store, name, lock=True)
        if found.status.state not in _STOPPED:
            raise ExporterNotPaused.named(name)
        return found


def _merged_config(stored: dict[str, str], given: Any) -> dict[str, str]:
    """A config sent (PUT config, or an update's `config`) is merged into the stored one, as
    Confluent's registry does; anything but an object is refused by `parse_config` with the
    exporter's own error."""
    return parse_config({**stored, **given} if isinstance(given, dict) else given, stored)
