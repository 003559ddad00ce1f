"""The conformance corpora (tests/conformance/data): Confluent's and Apache Avro's compatibility
cases as this project's own test data, read into one record per case, and run against a live
registry over REST.

Cases and verdicts are facts about Confluent's registry (see tests/conformance/data/README.md for
their source and licence); this module and its readings are the project's own. Every test that
uses the corpora reads them from here, so a clone with nothing beside it runs them all.

A case is a history registered under a subject (at level NONE), then the subject's level, then a
new schema checked against it: `POST /compatibility/subjects/{s}/versions/latest?verbose=true`
for a pair, `.../versions?verbose=true` (every version the level compares) for a level case. The
expected incompatible types are the change types the case lists minus those Confluent accepts.
"""
from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import requests

DATA = Path(__file__).resolve().parents[1] / "conformance" / "data"
STRICT, LENIENT = "STRICT", "LENIENT"

# The change types Confluent's JSON Schema checker lets through (its SchemaDiff's
# COMPATIBLE_CHANGES_STRICT, and what COMPATIBLE_CHANGES_LENIENT adds), and its Protobuf
# checker's SchemaDiff.COMPATIBLE_CHANGES: the names as Confluent spells them.
JSON_ACCEPTED_STRICT = frozenset("""
ADDITIONAL_ITEMS_ADDED ADDITIONAL_ITEMS_EXTENDED ADDITIONAL_PROPERTIES_ADDED ADDITIONAL_PROPERTIES_EXTENDED
COMBINED_TYPE_EXTENDED DEFAULT_CHANGED DEPENDENCY_ARRAY_NARROWED DEPENDENCY_ARRAY_REMOVED
DEPENDENCY_SCHEMA_REMOVED DESCRIPTION_CHANGED ENUM_ARRAY_EXTENDED EXCLUSIVE_MAXIMUM_INCREASED
EXCLUSIVE_MAXIMUM_REMOVED EXCLUSIVE_MINIMUM_DECREASED EXCLUSIVE_MINIMUM_REMOVED ID_CHANGED
ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL ITEM_ADDED_TO_CLOSED_CONTENT_MODEL
ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
MAXIMUM_INCREASED MAXIMUM_REMOVED MAX_CONTAINS_INCREASED MAX_CONTAINS_REMOVED MAX_ITEMS_INCREASED
MAX_ITEMS_REMOVED MAX_LENGTH_INCREASED MAX_LENGTH_REMOVED MAX_PROPERTIES_INCREASED MAX_PROPERTIES_REMOVED
MINIMUM_DECREASED MINIMUM_REMOVED MIN_CONTAINS_DECREASED MIN_CONTAINS_REMOVED MIN_ITEMS_DECREASED
MIN_ITEMS_REMOVED MIN_LENGTH_DECREASED MIN_LENGTH_REMOVED MIN_PROPERTIES_DECREASED MIN_PROPERTIES_REMOVED
MULTIPLE_OF_REDUCED MULTIPLE_OF_REMOVED NOT_TYPE_NARROWED OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL
PATTERN_REMOVED PRODUCT_TYPE_NARROWED PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
REQUIRED_ATTRIBUTE_REMOVED REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED
REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL SCHEMA_REMOVED SUM_TYPE_EXTENDED TITLE_CHANGED
TYPE_EXTENDED UNEVALUATED_ITEMS_ADDED UNEVALUATED_ITEMS_EXTENDED UNEVALUATED_PROPERTIES_ADDED
UNEVALUATED_PROPERTIES_EXTENDED UNIQUE_ITEMS_REMOVED
""".split())
JSON_ACCEPTED_LENIENT = JSON_ACCEPTED_STRICT | frozenset("""
ADDITIONAL_PROPERTIES_NARROWED ADDITIONAL_PROPERTIES_REMOVED OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL
PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL
PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL UNEVALUATED_PROPERTIES_NARROWED
UNEVALUATED_PROPERTIES_REMOVED
""".split())
PROTOBUF_ACCEPTED = frozenset("""
ENUM_ADDED ENUM_CONST_ADDED ENUM_CONST_CHANGED ENUM_CONST_REMOVED ENUM_REMOVED FIELD_ADDED FIELD_NAME_CHANGED
FIELD_REMOVED FIELD_STRING_OR_BYTES_LABEL_CHANGED MESSAGE_ADDED MESSAGE_MOVED ONEOF_ADDED ONEOF_FIELD_ADDED
ONEOF_FIELD_MOVED_TO_TOP_LEVEL ONEOF_REMOVED
""".split())
# Imports every Confluent registry resolves without a reference.
BUILT_IN_PROTO = re.compile(r"^(google/protobuf/|google/type/|confluent/)")
# The change type of an entry of a verbose reply, in any format's spelling.
ERROR_TYPE = re.compile(r"errorType:[\"']([A-Z_]+)")

JSON_FILES = {
    "json": "diff-schema-examples.json",
    "json-2020-12": "diff-schema-examples-2020-12.json",
    "json-combined": "diff-combined-schema-examples.json",
    "json-combined-2020-12": "diff-combined-schema-examples-2020-12.json",
}
PROTOBUF_FILES = {"protobuf": "diff-schema-examples.json", "protobuf-meta": "diff-schema-examples-with-meta.json"}
CASE_COUNTS = {"avro-backward": 135, "avro-forward": 135, "avro-levels": 32, "json": 104, "json-2020-12": 113,
               "json-combined": 28, "json-combined-2020-12": 18, "protobuf": 54, "protobuf-meta": 1}


@dataclass(frozen=True)
class Version:
    """A schema as registered or checked; `side` says whose dependencies it references
    ("original" or "update": Protobuf cases give each side its own)."""

    schema: str
    schema_type: str
    side: str
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Dependency:
    """A file a side imports that is not built in: registered under its own subject first."""

    side: str
    name: str
    subject: str
    schema: str


@dataclass(frozen=True)
class Case:
    """One case: `history` registered oldest first, `new` checked at `level`; `against_all`
    checks every version the level compares (level cases) rather than the latest. `expected`
    and `expected_types` are per `compatibilityPolicy`; `expected_types` is None where the
    corpus gives no types. `changes` lists every difference the corpus records
    (`TYPE location`), compatible ones included, where it has them."""

    corpus: str
    id: str
    description: str
    level: str
    history: tuple[Version, ...]
    new: Version
    expected: Mapping[str, bool]
    expected_types: Mapping[str, tuple[str, ...]] | None
    against_all: bool = False
    deps: tuple[Dependency, ...] = ()
    changes: tuple[str, ...] = field(default=())

    def dependencies(self, side: str) -> dict[str, str]:
        """Reference name -> schema text of the files `side` imports (for parsing offline)."""
        return {d.name: d.schema for d in self.deps if d.side == side}


_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[}\]])')


def read_json(path: Path) -> Any:
    """A corpus file. One of Confluent's (diff-schema-examples-2020-12.json) has commas before a
    closing bracket, which Confluent's reader tolerates; they are dropped (outside strings) and
    the file kept as it came."""
    text = path.read_text(encoding="utf-8")
    return json.loads(_TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), text))


def _changed_types(changes: list[str], accepted: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted({change.split(" ")[0] for change in changes} - accepted))


def json_schema_cases(corpus: str) -> Iterator[Case]:
    for index, raw in enumerate(read_json(DATA / "json-schema" / JSON_FILES[corpus])):
        yield Case(
            corpus, f"{corpus}-{index:03d}", raw["description"], "BACKWARD",
            (Version(json.dumps(raw["original_schema"]), "JSON", "original", raw.get("original_metadata")),),
            Version(json.dumps(raw["update_schema"]), "JSON", "update", raw.get("update_metadata")),
            {STRICT: raw["compatible"], LENIENT: raw.get("compatible_lenient", raw["compatible"])},
            {STRICT: _changed_types(raw["changes"], JSON_ACCEPTED_STRICT),
             LENIENT: _changed_types(raw["changes"], JSON_ACCEPTED_LENIENT)},
            changes=tuple(raw["changes"]),
        )


def _proto_text(value: str) -> str:
    """A case's schema, given inline or as the path of a file under protobuf/resources."""
    return (DATA / "protobuf" / "resources" / value).read_text(encoding="utf-8") if value.endswith(".proto") \
        else value


def protobuf_cases(corpus: str) -> Iterator[Case]:
    for index, raw in enumerate(read_json(DATA / "protobuf" / PROTOBUF_FILES[corpus])):
        deps = []
        for side in ("original", "update"):
            texts = {d["name"]: d.get("dependency") for d in raw.get(f"{side}_dependencies") or []}
            deps += [Dependency(side, ref["name"], ref["subject"], texts[ref["name"]])
                     for ref in raw.get(f"{side}_references") or [] if not BUILT_IN_PROTO.match(ref["name"])]
        types = _changed_types(raw["changes"], PROTOBUF_ACCEPTED)
        yield Case(
            corpus, f"{corpus}-{index:03d}", raw["description"], "BACKWARD",
            (Version(_proto_text(raw["original_schema"]), "PROTOBUF", "original", raw.get("original_metadata")),),
            Version(_proto_text(raw["update_schema"]), "PROTOBUF", "update", raw.get("update_metadata")),
            {STRICT: raw["compatible"], LENIENT: raw["compatible"]}, {STRICT: types, LENIENT: types},
            deps=tuple(deps), changes=tuple(raw["changes"]),
        )


def avro_pair_cases(level: str) -> Iterator[Case]:
    """Apache Avro's reader/writer pairs: BACKWARD registers the writer and checks the reader,
    FORWARD the other way round."""
    for raw in read_json(DATA / "avro" / "avro-reader-writer-cases.json")["cases"]:
        old, new = (raw["writer_schema"], raw["reader_schema"]) if level == "BACKWARD" \
            else (raw["reader_schema"], raw["writer_schema"])
        types = tuple(sorted({found["type"] for found in raw["incompatibilities"]}))
        yield Case(
            f"avro-{level.lower()}", f"{raw['id']}-{level.lower()}", raw["source"], level,
            (Version(json.dumps(old), "AVRO", "original"),), Version(json.dumps(new), "AVRO", "update"),
            {STRICT: raw["compatible"], LENIENT: raw["compatible"]}, {STRICT: types, LENIENT: types},
        )


def avro_level_cases() -> Iterator[Case]:
    document = read_json(DATA / "avro" / "confluent-avro-level-cases.json")
    schemas = document["schemas"]
    for raw in document["cases"]:
        yield Case(
            "avro-levels", raw["id"], f"{raw['level']} {raw['history']} -> {raw['new']}: {raw['note']}", raw["level"],
            tuple(Version(json.dumps(schemas[name]), "AVRO", "original") for name in raw["history"]),
            Version(json.dumps(schemas[raw["new"]]), "AVRO", "update"),
            {STRICT: raw["compatible"], LENIENT: raw["compatible"]}, None, against_all=True,
        )


CORPORA: dict[str, Callable[[], Iterator[Case]]] = {
    **{name: (lambda name=name: json_schema_cases(name)) for name in JSON_FILES},
    **{name: (lambda name=name: protobuf_cases(name)) for name in PROTOBUF_FILES},
    "avro-backward": lambda: avro_pair_cases("BACKWARD"),
    "avro-forward": lambda: avro_pair_cases("FORWARD"),
    "avro-levels": avro_level_cases,
}


def cases(corpus: str) -> list[Case]:
    return list(CORPORA[corpus]())


# ------------------------------------------------------------------ against a live registry
@dataclass(frozen=True)
class Outcome:
    """What the registry answered for one case: its verdict and the change types its verbose
    messages name; `problem` says what went wrong when the case could not be run."""

    case: Case
    compatible: bool | None
    types: tuple[str, ...] = ()
    problem: str = ""

    def failures(self, policy: str) -> list[str]:
        """Why this outcome is not the case's, in words; empty when it is."""
        case = self.case
        if self.problem:
            return [f"{case.id}: {self.problem}"]
        if self.compatible != case.expected[policy]:
            return [f"{case.id}: expected compatible={case.expected[policy]}, got {self.compatible} "
                    f"({case.description})"]
        if case.expected_types is not None and not self.compatible and self.types != case.expected_types[policy]:
            return [f"{case.id}: expected types {list(case.expected_types[policy])}, got {list(self.types)}"]
        return []


class CorpusClient:
    """The REST calls a case makes, each checked, on subjects of one run (`prefix`)."""

    def __init__(self, url: str, timeout: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self.http = requests.Session()
        self.http.headers["Content-Type"] = "application/vnd.schemaregistry.v1+json"
        self.timeout = timeout
        self.prefix = f"conformance-{uuid.uuid4().hex[:8]}"

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        reply = self.http.request(method, self.url + path, json=body, timeout=self.timeout)
        try:
            return reply.status_code, reply.json()
        except ValueError:
            return reply.status_code, reply.text

    def expect(self, method: str, path: str, body: Any = None) -> Any:
        status, reply = self.call(method, path, body)
        if status != 200:
            raise CaseSetupError(f"{method} {path} -> {status} {reply}")
        return reply

    @staticmethod
    def body(version: Version, references: list[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {"schema": version.schema, "schemaType": version.schema_type}
        if references:
            body["references"] = references
        if version.metadata:
            body["metadata"] = version.metadata
        return body

    def run(self, case: Case, policy: str) -> Outcome:
        subject = f"{self.prefix}-{case.id}"
        touched = [subject]
        try:
            self.expect("PUT", f"/config/{quote(subject, safe='')}", {"compatibility": "NONE"})
            references: dict[str, list[dict[str, Any]]] = {"original": [], "update": []}
            for dep in case.deps:
                dep_subject = f"{subject}-dep-{dep.subject}"
                if dep_subject not in touched:  # both sides may bring a version of one file
                    touched.append(dep_subject)
                    self.expect("PUT", f"/config/{quote(dep_subject, safe='')}", {"compatibility": "NONE"})
                registered = self.expect("POST", f"/subjects/{quote(dep_subject, safe='')}/versions",
                                         {"schema": dep.schema, "schemaType": "PROTOBUF"})
                found = self.expect("GET", f"/schemas/ids/{registered['id']}/versions")
                version = next(v["version"] for v in found if v["subject"] == dep_subject)
                references[dep.side].append({"name": dep.name, "subject": dep_subject, "version": version})
            for old in case.history:
                self.expect("POST", f"/subjects/{quote(subject, safe='')}/versions",
                            self.body(old, references[old.side]))
            config: dict[str, Any] = {"compatibility": case.level}
            if policy == LENIENT:
                config["compatibilityPolicy"] = LENIENT
            self.expect("PUT", f"/config/{quote(subject, safe='')}", config)
            target = "" if case.against_all else "/latest"
            reply = self.expect("POST", f"/compatibility/subjects/{quote(subject, safe='')}/versions{target}"
                                        "?verbose=true", self.body(case.new, references[case.new.side]))
        except (CaseSetupError, requests.RequestException) as exc:
            return Outcome(case, None, problem=str(exc))
        finally:
            for name in touched:
                self.call("DELETE", f"/subjects/{quote(name, safe='')}")
                self.call("DELETE", f"/subjects/{quote(name, safe='')}?permanent=true")
        if not isinstance(reply, dict) or not isinstance(reply.get("is_compatible"), bool):
            return Outcome(case, None, problem=f"reply of another shape: {reply}")
        types = tuple(sorted(set(ERROR_TYPE.findall(" ".join(map(str, reply.get("messages", [])))))))
        return Outcome(case, reply["is_compatible"], types)


class CaseSetupError(Exception):
    """A call before the check failed: the case did not run."""
