"""The import state file (`FILE.import-state.json`): what a re-run after a crash must know.

It holds each touched subject's mode from before the import (so a re-run restores that, not
the IMPORT mode the crash left behind) and each context's id reservation (its temporary
subject, and whether it finished), so a re-run completes a half-done reservation on the same
subject and never starts a second one. A `--database-url` import keeps it in memory only:
its one transaction leaves nothing half done to resume.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.transfer.errors import TransferError


class ImportState:
    """Saved modes and reservations; `path` None keeps them in memory."""

    def __init__(self, path: Path | None, target_url: str, modes: dict[str, str | None],
                 reservations: dict[str, Reservation]) -> None:
        self.path, self.target_url = path, target_url
        self.modes, self.reservations = modes, reservations

    @classmethod
    def load(cls, path: Path | None, target_url: str) -> ImportState:
        if path is None or not path.exists():
            return cls(path, target_url, {}, {})
        try:
            data: dict[str, Any] = json.loads(path.read_text("utf-8"))
            modes = {str(k): (None if v is None else str(v)) for k, v in data["modes"].items()}
            reservations = {str(context): Reservation(str(r["subject"]), bool(r["done"]))
                            for context, r in data.get("reservations", {}).items()}
        except (OSError, ValueError, KeyError, AttributeError, TypeError) as exc:
            raise TransferError(f"cannot read the import state {path}: {exc}") from None
        if data.get("target") != target_url:
            raise TransferError(f"the import state {path} belongs to an import into {data.get('target')}, "
                                f"not {target_url}; finish that import or remove the file")
        return cls(path, target_url, modes, reservations)

    def save(self) -> None:
        if self.path is None:
            return
        temporary = self.path.with_name(self.path.name + ".tmp")
        reservations = {c: {"subject": r.subject, "done": r.done} for c, r in sorted(self.reservations.items())}
        document = {"target": self.target_url, "modes": self.modes, "reservations": reservations}
        try:
            temporary.write_text(json.dumps(document, indent=1), "utf-8")
            temporary.replace(self.path)
        except OSError as exc:
            raise TransferError(f"cannot write the import state {self.path}: {exc.strerror or exc}") from None

    def remove(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)


@dataclass
class Reservation:
    """A context's reservation: the temporary subject it uses, and whether it is complete."""

    subject: str
    done: bool = False
