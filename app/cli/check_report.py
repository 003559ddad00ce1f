"""A verbose compatibility answer as `sqlregistry check` and `register` print it.

The registry (ours or Confluent's) answers `?verbose=true` with Confluent's message list: one
entry per incompatibility, then `{oldSchemaVersion: N}`, `{oldSchema: '...'}` and
`{validateFields: ..., compatibility: ...}`. The entries are spelled three ways, one per
format's checker, and clients and the conformance tests pin those strings, so the REST reply
stays as it is and the list is taken apart here:

    Avro        {errorType:'TYPE', description:'...', additionalInfo:'...'}
    JSON Schema {errorType:"TYPE", description:"...'}     (the mismatched quote is Confluent's)
    Protobuf    {errorType:"TYPE", description:"..."}

Each becomes (type, location, message), the location being the path the sentence names.
Where the format can be loaded here (the server's formats ship in the same package), the
location is then resolved to the field it points at, through the formats' own outlines of
the new file and of the old version the reply quotes: a Protobuf location names field numbers
(`#/Customer/2`), which a person reads better as `Customer.age`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Sequence

KEPT_CHARS = 300  # an entry in no known form is kept, cut here and to its first line


@dataclass(frozen=True)
class Incompatibility:
    """One problem the registry reported, in the (type, location, message) shape people read;
    `field` is the field the location points at ("" when not known or the schema as a whole)."""

    type: str
    location: str
    message: str
    field: str = ""

    def as_json(self) -> dict[str, str]:
        return {"type": self.type, "location": self.location, "field": self.field, "message": self.message}

    def line(self) -> str:
        """`TYPE at LOCATION (field NAME): message`, the parts that are known."""
        where = f" at {self.location}" if self.location else ""
        named = f" (field {self.field})" if self.field else ""
        return f"{self.type}{where}{named}: {self.message}"


@dataclass(frozen=True)
class CheckReport:
    """A verbose compatibility answer taken apart: the problems, the trailer naming the
    version that failed and the level that was applied, and the old version's text (to name
    fields by; never printed)."""

    problems: tuple[Incompatibility, ...]
    old_version: int | None
    level: str | None
    old_schema: str | None = None


_ENTRY = re.compile(
    r"""^\{errorType:(?P<q>['"])(?P<type>[A-Z0-9_]+)(?P=q), description:(?P<d>['"])(?P<message>.*?)"""
    r"""(?:['"], additionalInfo:'.*)?['"]\}$""",
    re.S,
)
_PATH = re.compile(r"path:? '(?P<path>[^']*)'")
_OLD_VERSION = re.compile(r"^\{oldSchemaVersion: (?P<version>\d+)\}$")
_OLD_SCHEMA = re.compile(r"^\{oldSchema: '(?P<text>.*)'\}$", re.S)
_LEVEL = re.compile(r"compatibility: '(?P<level>[A-Z_]+)'\}$")


def parse_messages(messages: Sequence[str]) -> CheckReport:
    """Confluent's verbose message list taken apart. Entries in no known form (a reserved
    field, an unexpected exception) are kept as one line each."""
    problems: list[Incompatibility] = []
    old_version: int | None = None
    old_schema: str | None = None
    level: str | None = None
    for message in messages:
        entry = _ENTRY.match(message)
        if entry:
            text = entry["message"]
            path = _PATH.search(text)
            problems.append(Incompatibility(entry["type"], path["path"] if path else "", text))
        elif (version := _OLD_VERSION.match(message)) is not None:
            old_version = int(version["version"])
        elif (old := _OLD_SCHEMA.match(message)) is not None:
            old_schema = old["text"]
        elif message.startswith("{oldSchema: "):
            continue
        elif message.startswith("{validateFields: "):
            found = _LEVEL.search(message)
            level = found["level"] if found else None
        else:
            problems.append(Incompatibility("INCOMPATIBLE", "", _one_line(message)))
    return CheckReport(tuple(problems), old_version, level, old_schema)


def _one_line(message: str) -> str:
    first = message.strip().splitlines()[0] if message.strip() else ""
    cut = first[:KEPT_CHARS]
    return cut + " …" if cut != message.strip() else cut


def name_fields(report: CheckReport, schema_type: str, new_text: str) -> CheckReport:
    """The report with each problem's `field` filled in where the location resolves to one,
    by the format's outline of the new text and of the quoted old version (the reader's
    first: under FORWARD levels the old version reads, otherwise the new one). Unchanged
    when the formats are not installed, a side does not parse alone (it has references) or
    nothing resolves: naming is a help, never a reason to fail a check."""
    if report.old_schema is None or not any(p.location for p in report.problems):
        return report
    try:
        from app.core.browse.structural_diff import LocationIndex
        from app.formats import FORMATS
        from app.formats.base import Outlines, supports

        fmt = FORMATS[schema_type]
        if not supports(fmt, Outlines):
            return report
        new_root = fmt.outline(fmt.parse(new_text, {}, strict=False))
        old_root = fmt.outline(fmt.parse(report.old_schema, {}, strict=False))
    except Exception:  # noqa: BLE001 - any failure leaves the locations as the registry gave them
        return report
    roots = (old_root, new_root) if (report.level or "").startswith("FORWARD") else (new_root, old_root)
    index = LocationIndex(roots)
    named = []
    for problem in report.problems:
        node = index.resolve(problem.location) if problem.location else None
        named.append(replace(problem, field=node.path) if node is not None and node.path else problem)
    return replace(report, problems=tuple(named))
