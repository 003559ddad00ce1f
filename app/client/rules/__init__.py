"""Data-contract rules in the client: what a schema's `ruleSet` says, run by the serializers
and deserializers of every format, as Confluent's clients run it.

- `CEL` (a condition or transform over the record) and `CEL_FIELD` (over each field the
  rule's tags select), on cel-python; `JSONATA` transforms (migrations), on jsonata-python;
  `ENCRYPT` (fields by tag) and `ENCRYPT_PAYLOAD`, on Tink, with DEKs from the registry's DEK
  API and KEKs in a KMS (`app.client.rules.kms`: `local-kms`, `aws-kms`, or a driver of one's
  own). These libraries are the `sqlregistry[rules]` extra, imported when a rule first needs
  them.
- Modes WRITE, READ, WRITEREAD, UPGRADE, DOWNGRADE, UPDOWN; `disabled`; `enableAt`;
  onSuccess/onFailure NONE, ERROR, DLQ (`dlq=` on the serde; without it DLQ is ERROR).
  A rule that fails raises `RuleFailed` (a `SerializationError`) naming rule, subject and
  version.
- Migrations: a deserializer with a `ReaderVersion` reads older (or newer) versions' records
  through the UPGRADE (or DOWNGRADE) rules of each version in between.

Executors are plain picklable objects and caches are per process, so serializers made on a
Spark driver run their rules in the workers, each fetching a DEK once per key.
"""
from __future__ import annotations

from app.client.rules.context import FieldContext, FieldType, RuleContext
from app.client.rules.execution import DlqHandler, RuleFailure, RuleRunner
from app.client.rules.executors import DEFAULT_EXECUTORS, ExecutorRegistry, FieldRuleExecutor, RuleError, RuleExecutor

__all__ = ["DEFAULT_EXECUTORS", "DlqHandler", "ExecutorRegistry", "FieldContext", "FieldRuleExecutor", "FieldType",
           "RuleContext", "RuleError", "RuleExecutor", "RuleFailure", "RuleRunner"]
