"""What a serializer or deserializer runs around each record when its schema has rules.

A serde makes a plan once per writer schema (per header, on the way in) and only when the
schema has rules for its direction, so records of schemas without rules pay one `is None`
check. A write plan runs the WRITE domain rules on the record, then the WRITE encoding rules
on the encoded payload. A read plan runs the READ encoding rules on the payload, then the
migrations (each step's UPGRADE rules up to the reader's version, or DOWNGRADE rules down to
it), then the READ domain rules of the reader's schema.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.client.records import Schema
from app.client.rules.context import READ, UPGRADE, WRITE
from app.client.rules.execution import DOMAIN, ENCODING, MIGRATION, RuleRunner, has_rules
from app.client.rules.walkers import FieldWalker


@dataclass(frozen=True)
class WritePlan:
    runner: RuleRunner
    subject: str
    version: int | None
    schema: Schema
    walker: FieldWalker | None

    @staticmethod
    def needed(schema: Schema) -> bool:
        return has_rules(schema, DOMAIN, WRITE) or has_rules(schema, ENCODING, WRITE)

    def record(self, record: Any) -> Any:
        return self.runner.run(WRITE, DOMAIN, self.subject, self.version, None, self.schema, record, self.walker)

    def payload(self, payload: bytes) -> bytes:
        if not self.schema.rule_set or not self.schema.rule_set.encoding_rules:
            return payload
        return self.runner.run(WRITE, ENCODING, self.subject, self.version, None, self.schema, payload)


@dataclass(frozen=True)
class MigrationStep:
    """One version step: `mode` UPGRADE runs `target`'s rules, DOWNGRADE `source`'s."""

    mode: str
    source: Schema
    source_version: int | None
    target: Schema
    target_version: int | None
    walker: FieldWalker | None


@dataclass(frozen=True)
class ReadPlan:
    runner: RuleRunner
    subject: str
    writer: Schema
    writer_version: int | None
    reader: Schema
    reader_version: int | None
    walker: FieldWalker | None
    migrations: tuple[MigrationStep, ...] = ()

    @staticmethod
    def needed(writer: Schema, reader: Schema, migrations: bool) -> bool:
        return (migrations or has_rules(writer, ENCODING, READ) or has_rules(reader, DOMAIN, READ))

    def payload(self, payload: bytes) -> bytes:
        if not self.writer.rule_set or not self.writer.rule_set.encoding_rules:
            return payload
        return self.runner.run(READ, ENCODING, self.subject, self.writer_version, None, self.writer, payload)

    def record(self, record: Any) -> Any:
        return self.read(self.migrate(record))

    def migrate(self, record: Any) -> Any:
        """The migration steps alone (a Protobuf deserializer runs them on the record's JSON form)."""
        for step in self.migrations:
            version = step.target_version if step.mode == UPGRADE else step.source_version
            record = self.runner.run(step.mode, MIGRATION, self.subject, version, step.source, step.target, record,
                                     step.walker)
        return record

    def read(self, record: Any) -> Any:
        """The reader's READ domain rules alone."""
        return self.runner.run(READ, DOMAIN, self.subject, self.reader_version, None, self.reader, record,
                               self.walker)


