"""JSON Schema compatibility at parity with Confluent's `SchemaDiff`.

The format calls three functions:

- `compare(original, update)`: every difference, compatible ones included, each with
  Confluent's change type and JSON pointer (`comparison` also counts the work done). In a
  BACKWARD check `original` is the previous (writer) schema and `update` the new (reader) one.
- `incompatible(differences, policy)`: those the policy (STRICT or LENIENT) refuses.
- `describe(incompatibility, reader_label, writer_label)`: the verbose message entry.

Modules: `loader` builds the model (`nodes`) of a parsed schema as Confluent's loaders
classify it; `schema_diff` walks a pair of models (`context` holds the walk's state and
memo) and hands each pair of one kind to `objects`, `arrays`, `scalars` (strings, numbers),
`combined` (allOf/anyOf/oneOf) or `values` (enum, const, not); `changes` names the change
types and the policies' accepted sets, `messages` words them.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.formats.base import STRICT_POLICY, Incompatibility
from app.formats.json_schema.model import JsonNative

from . import schema_diff
from .changes import Difference, compatible_changes
from .context import Context, Pair, PairResult, Shared, report
from .loader import model_of
from .messages import verbose_entry
from .refusals import refusal

__all__ = ["Comparison", "Difference", "compare", "comparison", "describe", "incompatible"]


@dataclass(frozen=True, slots=True)
class Comparison:
    """What a comparison found, and what it cost: the schema pairs compared in each walk of
    the fixpoint, so that tests bound the work by counting, not timing."""

    differences: list[Difference]
    pairs_per_pass: tuple[int, ...]

    @property
    def pairs(self) -> int:
        return sum(self.pairs_per_pass)

    @property
    def passes(self) -> int:
        return len(self.pairs_per_pass)


def compare(original: JsonNative, update: JsonNative, *, policy: str = STRICT_POLICY) -> list[Difference]:
    """Every difference from `original` to `update` (see `comparison`)."""
    return comparison(original, update, policy=policy).differences


def comparison(original: JsonNative, update: JsonNative, *, policy: str = STRICT_POLICY) -> Comparison:
    """Every difference from `original` to `update`, each pair of schemas reported once: at
    the first pointer it is met, not again wherever shared definitions lead to it.

    `policy` matters inside the walk, not just after it: whether a member of a `oneOf` still
    has a partner, or a removed property is covered by a partially open model, is judged by
    the policy's accepted set (as Confluent judges it), so a LENIENT check must pass LENIENT
    here too, not only to `incompatible`.

    Recursive schemas are compared by assuming a pair met again inside itself compatible;
    the walk is repeated with the pairs found incompatible fed back, until that assumption
    no longer changes anything (one walk when no cycle was cut short). A repeated walk
    compares again only the pairs that leaned on the assumption.

    `SchemaParseError` for schemas nested too deeply to compare, a `$ref` that does not
    resolve, or a request whose time budget ran out.
    """
    accepted = compatible_changes(policy)
    same_draft = original.specification == update.specification
    try:
        original_root = model_of(original)
        update_root = model_of(update)
        seed: frozenset[Pair] = frozenset()
        settled: dict[Pair, PairResult] = {}
        pairs_per_pass: list[int] = []
        while True:
            shared = Shared(accepted, seed, same_draft, settled)
            ctx = Context(shared)
            schema_diff.walk(ctx, original_root, update_root)
            pairs_per_pass.append(shared.pairs_compared)
            found = shared.incompatible_pairs()
            if not shared.optimistic or found == seed:
                return Comparison(report(ctx), tuple(pairs_per_pass))
            seed = found
            settled = shared.settled()
    except RecursionError:
        raise refusal("Schema is nested too deeply to process") from None


def incompatible(differences: list[Difference], policy: str = STRICT_POLICY) -> list[Incompatibility]:
    """The differences `policy` does not accept, as the format protocol's records (the
    location is the difference's pointer; the message is the change type, which is all the
    detail Confluent gives)."""
    accepted = compatible_changes(policy)
    return [
        Incompatibility(type=d.type, location=d.pointer, message=d.type)
        for d in differences
        if d.type not in accepted
    ]


def describe(incompatibility: Incompatibility, reader_label: str, writer_label: str) -> str:
    """Confluent's verbose entry: `{errorType:"TYPE", description:"...'}`."""
    return verbose_entry(incompatibility.type, incompatibility.location, reader_label, writer_label)
