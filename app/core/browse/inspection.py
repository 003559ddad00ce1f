"""What the browser shows about a subject beyond its versions: the settings in force and
where they come from, the structural diff of two versions with its verdicts, and a check of
a candidate schema that explains itself.

Nothing here has rules of its own: settings are resolved by `app.core.config` as
registration resolves them, the versions a level compares are chosen by
`app.core.compatibility.levels`, and a candidate is checked by `CompatibilityChecks.evaluate`, the
code behind `POST /compatibility/...`. Nothing is written.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.core.compatibility import levels as compatibility
from app.core.access import Action, Guard
from app.core.compatibility.checks import CompatibilityChecks
from app.core.config import resolve_config, resolve_mode, rows_needed
from app.core.documents import metadata_property
from app.core.errors import SubjectNotFound, VersionNotFound
from app.core.records import SubjectVersion
from app.core.resolver import SchemaResolver, format_refusals
from app.core.store.protocol import Storage, Store
from app.core.store.rows import VersionRow
from app.core.browse.structural_diff import StructuralDiff, structural_diff
from app.core.subjects import parse_version, resolve_alias, subject_version
from app.core.types import CompatibilityLevel, QualifiedSubject, SchemaRequest
from app.formats.base import ParsedSchema
from app.settings import Settings


@dataclass(frozen=True)
class EffectiveSetting:
    """A setting's value in force and its source: "subject", "context", "global" or
    "default" (`app.core.config`'s *_SOURCE names)."""

    value: str
    source: str


@dataclass(frozen=True)
class EffectiveSettings:
    compatibility: EffectiveSetting
    mode: EffectiveSetting
    config: dict[str, Any]  # the whole config in force (normalize, validateFields, group, ...)


@dataclass(frozen=True)
class LevelVerdict:
    """The answer under the subject's effective level. `checked` is False under NONE
    (nothing is compared, and `compatible` is then True). `compared` lists the versions
    the answer compared against, newest first; `registration_compares` those a
    registration into the subject would compare against now (all live ones under a
    transitive level). `messages` is Confluent's list ([] when compatible)."""

    level: str
    source: str
    checked: bool
    compatible: bool
    compared: tuple[int, ...]
    registration_compares: tuple[int, ...]
    messages: tuple[str, ...]
    # The fields the reasons of the checked directions point at (from the structural diff
    # against the version compared), so that a verdict's first line can name them.
    fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class VersionDiff:
    """Two versions of a subject compared: `old` is `from`, `new` is `to`; the verdict asks
    whether `to` may follow `from` under the effective level. `old_text`/`new_text` are the
    texts for a line diff (canonical, normalized with `normalize`, JSON texts indented)."""

    subject: str
    old: SubjectVersion
    new: SubjectVersion
    diff: StructuralDiff
    verdict: LevelVerdict
    settings: EffectiveSettings
    old_text: str
    new_text: str
    versions: tuple[int, ...]  # every version number of the subject, soft-deleted ones included


@dataclass(frozen=True)
class VersionCheck:
    """The candidate against one previous version on its own: Confluent's messages for it."""

    version: int
    compatible: bool
    messages: tuple[str, ...]


@dataclass(frozen=True)
class CandidateCheck:
    """A candidate checked as registration would (or against one version): the verdict,
    each compared version's own reasons, and the structural diff against the newest live
    version (None when the subject has none)."""

    subject: str
    settings: EffectiveSettings
    verdict: LevelVerdict
    versions: tuple[VersionCheck, ...]
    diff: StructuralDiff | None
    latest_version: int | None


class Inspection:
    def __init__(self, storage: Storage, resolver: SchemaResolver, checks: CompatibilityChecks, settings: Settings):
        self.storage = storage
        self.resolver = resolver
        self.checks = checks
        self.default_level = settings.compatibility_level

    # ------------------------------------------------------------------ settings
    def effective_settings(self, subject: str, guard: Guard) -> EffectiveSettings:
        """The level and mode in force for `subject` (after its alias) and their sources."""
        with self.storage.read() as store:
            qs, _ = resolve_alias(store, QualifiedSubject.parse(subject))
            guard.check(Action.READ_CONFIG, qs.qualified())
            return self.settings_for(store, qs)

    def settings_for(self, store: Store, qs: QualifiedSubject) -> EffectiveSettings:
        rows = store.settings_rows(rows_needed(qs.context, qs.name))
        config, level_source = resolve_config(qs.context, qs.name, rows, self.default_level)
        mode, mode_source = resolve_mode(qs.context, qs.name, rows)
        return EffectiveSettings(
            EffectiveSetting(config["compatibility"], level_source), EffectiveSetting(mode.value, mode_source), config
        )

    # ------------------------------------------------------------------ diff
    def diff(
        self, subject: str, from_version: str | None, to_version: str | None, normalize: bool, guard: Guard
    ) -> VersionDiff:
        """`from`/`to` are version numbers or `latest` (soft-deleted versions included, so any
        two versions can be compared); None picks the defaults: the newest live version as
        `to`, the live one before it as `from`. 40401 for an unknown subject, 40402 for an
        unknown version (the caller lists the versions that exist)."""
        with self.storage.read() as store:
            qs, row = resolve_alias(store, QualifiedSubject.parse(subject))
            guard.check(Action.READ, qs.qualified())
            versions = store.versions(row.id) if row else []
            if not versions:
                raise SubjectNotFound.for_subject(qs.qualified())
            live = [v for v in versions if not v.deleted]
            new_row = _pick(versions, live, to_version, live[-1] if live else versions[-1])
            older_live = [v for v in live if v.version < new_row.version]
            old_row = _pick(versions, live, from_version, older_live[-1] if older_live else new_row)
            old, new = (subject_version(self.resolver, store, qs, r, None) for r in (old_row, new_row))
            old_parsed, new_parsed = (self.resolver.parsed(store, sv.schema) for sv in (old, new))
            settings = self.settings_for(store, qs)
            level = CompatibilityLevel.parse(settings.config["compatibility"])
            policy = compatibility.policy_of(settings.config)
            found = structural_diff(self.resolver.formats, old_parsed, new_parsed, policy=policy)
            history = [compatibility.Previous(old.version, old.schema.schema_type, old.schema.schema, old_parsed)]
            messages = compatibility.check(self.resolver.formats, level, new_parsed, history, policy=policy)
            verdict = LevelVerdict(
                level.value, settings.compatibility.source, level is not CompatibilityLevel.NONE, not messages,
                (old.version,) if level is not CompatibilityLevel.NONE else (),
                self._registration_compares(store, level, settings.config, live), tuple(messages),
                named_fields(found, level) if messages else (),
            )
            old_text, new_text = (self._text(p, normalize) for p in (old_parsed, new_parsed))
        return VersionDiff(
            qs.qualified(), old, new, found, verdict, settings, old_text, new_text, tuple(v.version for v in versions)
        )

    def _registration_compares(
        self, store: Store, level: CompatibilityLevel, config: dict[str, Any], live: list[VersionRow]
    ) -> tuple[int, ...]:
        """What a registration into the subject compares against now, for a candidate in the
        newest version's compatibility group (the group is a metadata property)."""
        newest_first = list(reversed(live))
        group = config.get("compatibilityGroup")
        in_group = None
        if group and newest_first and level is not CompatibilityLevel.NONE:
            contents = {c.key: c for c in self.resolver.contents(store, [v.schema_pk for v in newest_first])}
            value = metadata_property(contents[newest_first[0].schema_pk].metadata, group)
            in_group = lambda v: metadata_property(contents[v.schema_pk].metadata, group) == value  # noqa: E731
        return tuple(v.version for v in compatibility.versions_to_compare(level, newest_first, in_group))

    def _text(self, parsed: ParsedSchema, normalize: bool) -> str:
        text = parsed.canonical
        if normalize:
            with format_refusals():
                text = self.resolver.format(parsed.schema_type).normalize(parsed).canonical
        return pretty_text(text)

    # ------------------------------------------------------------------ check
    def check_candidate(
        self, subject: str, request: SchemaRequest, version: str | None, normalize: bool, guard: Guard
    ) -> CandidateCheck:
        """`version=None` checks as registration would (effective level, transitivity,
        compatibility group); otherwise against that one live version. The verdict is
        `POST /compatibility/subjects/{s}/versions[/{v}]`'s. `InvalidSchema` (42201) for a
        candidate that does not parse; nothing is written."""
        evaluation = self.checks.evaluate(subject, version, request, normalize, guard)
        qs, config, level = evaluation.qs, evaluation.config, evaluation.level
        policy = compatibility.policy_of(config)
        candidate = evaluation.candidate.parsed
        per_version = []
        for previous in evaluation.history:
            messages = compatibility.check(self.resolver.formats, level, candidate, [previous], policy=policy)
            per_version.append(VersionCheck(previous.version, not messages, tuple(messages)))
        live = [v for v in evaluation.versions if not v.deleted]
        with self.storage.read() as store:
            settings = self.settings_for(store, qs)
            latest = self.checks.previous(store, live[-1:])
            compares = self._registration_compares(store, level, config, live)
        diff = structural_diff(self.resolver.formats, latest[0].parsed, candidate, policy=policy) if latest else None
        verdict = LevelVerdict(
            level.value, settings.compatibility.source, level is not CompatibilityLevel.NONE,
            not evaluation.messages, tuple(p.version for p in evaluation.history), compares,
            tuple(evaluation.messages), named_fields(diff, level) if evaluation.messages else (),
        )
        return CandidateCheck(
            qs.qualified(), settings, verdict, tuple(per_version), diff, live[-1].version if live else None
        )


def named_fields(diff: StructuralDiff | None, level: CompatibilityLevel) -> tuple[str, ...]:
    """The fields (outline paths) the diff's reasons point at, in the directions `level`
    checks (BACKWARD: the new schema reads; FORWARD: the old one; FULL: both), each once."""
    if diff is None:
        return ()
    name = level.value
    directions = [d for d, checked in ((diff.backward, name.startswith(("BACKWARD", "FULL"))),
                                       (diff.forward, name.startswith(("FORWARD", "FULL")))) if checked]
    return tuple(dict.fromkeys(reason.path for d in directions for reason in d.reasons if reason.path))


def _pick(versions: list[VersionRow], live: list[VersionRow], wanted: str | None, default: VersionRow) -> VersionRow:
    """A version by number (soft-deleted ones too) or `latest` (the newest live one)."""
    if wanted is None:
        return default
    number = parse_version(wanted)
    if number is None:
        if not live:
            raise VersionNotFound.for_version(-1)
        return live[-1]
    found = next((v for v in versions if v.version == number), None)
    if found is None:
        raise VersionNotFound.for_version(number)
    return found


def pretty_text(text: str) -> str:
    """A stored text laid out for reading and line diffs: JSON texts (Avro, JSON Schema)
    indented by two, keys in their order; anything else as stored."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        except ValueError:
            return text
    return text

