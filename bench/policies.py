"""What the policy engine costs a registration. Prints figures only.

1. All seven built-in rules on a 200-field Avro record, and on a 200-field Protobuf message,
   milliseconds per evaluation (target: 5 ms). The proposed schema is a fresh object each round (its element walk is not cached,
   as for a new registration); the previous version, which `forbidden-changes` compares
   against, is the cached parsed schema the registry would hand over.
2. With `--registrations`: registrations/s in process with a strict default policy set vs.
   none (target: at least 0.9x on PostgreSQL): two services side by side on two databases
   register alternate batches of new, compliant schemas into distinct subjects; the best
   batch of each counts (a shared machine's noise only ever slows a batch down).

    python bench/policies.py [--fields 200] [--rounds 7] [--evaluations 200] [--registrations [--no-postgres]]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from app.formats import FORMATS  # noqa: E402
from app.formats.base import ParsedSchema  # noqa: E402
from app.policies.catalogue import load_catalogue  # noqa: E402
from app.policies.changes import CHANGES  # noqa: E402
from app.policies.engine import RuleUse, evaluate  # noqa: E402
from app.policies.rule import RuleContext  # noqa: E402
sys.path.insert(0, str(REPO / "tests" / "policies"))
from policy_samples import wide_record  # noqa: E402

STRICT = [
    RuleUse("doc-required", params={"on": ["record", "field", "enum", "fixed"]}),
    RuleUse("name-pattern", params={"record": "PascalCase", "field": "snake_case", "enumSymbol": "UPPER_SNAKE_CASE",
                                    "namespace": "snake_case"}),
    RuleUse("required-fields", params={"fields": [{"name": "field_0", "type": "long"}, {"name": "field_3"}]}),
    RuleUse("forbidden-changes", params={"changes": list(CHANGES), "against": "latest"}),
    RuleUse("max-size", params={"bytes": 1_000_000, "fields": 1000, "depth": 8, "unionBranches": 4}),
    RuleUse("namespace-prefix", params={"prefixes": ["com.acme"]}),
    RuleUse("forbidden-types", params={"types": ["float", "fixed", "uuid"], "maxUnionBranches": 3}),
]


STRICT_DOCUMENT = {"sets": {"strict": {"rules": [
    {"rule": "doc-required", "params": {"on": ["record", "field", "enum", "fixed"]}},
    {"rule": "name-pattern", "params": {"record": "PascalCase", "field": "snake_case"}},
    {"rule": "namespace-prefix", "params": {"prefixes": ["com.acme"]}},
    {"rule": "forbidden-types", "params": {"types": ["float"]}},
    {"rule": "max-size", "params": {"fields": 500, "depth": 8}},
    {"rule": "forbidden-changes", "params": {"changes": ["FIELD_REMOVED", "FIELD_TYPE_CHANGED"]}},
]}}, "default": ["strict"]}


def wide_message(count: int) -> str:
    """The Protobuf twin of `wide_record`: a documented message of `count` fields."""
    kinds = ["int64", "string", "optional string", "google.protobuf.Timestamp", "repeated string", "double"]
    fields = "".join(f"  // Field {i}\n  {kinds[i % len(kinds)]} field_{i} = {i + 1};\n" for i in range(count))
    return ('syntax = "proto3";\npackage com.acme.bench;\nimport "google/protobuf/timestamp.proto";\n\n'
            f"// Wide\nmessage Wide {{\n{fields}}}\n")


def per_evaluation(fmt_name: str, previous_text: str, proposed_text: str, rounds: int, evaluations: int) -> None:
    """Milliseconds per evaluation of the seven rules, the proposed schema a fresh object each
    time (nothing of its own cached), the previous one the cached parsed schema."""
    fmt = FORMATS[fmt_name]
    previous, proposed = fmt.parse(previous_text, {}), fmt.parse(proposed_text, {})
    catalogue = load_catalogue(plugins=False)
    ctx = RuleContext("bench-value", [(1, previous)])
    outcome = evaluate(STRICT, catalogue, previous, proposed, ctx)
    assert sorted(outcome.checked) == sorted(u.rule for u in STRICT), outcome.skipped
    times = []
    for _ in range(rounds):
        fresh = [ParsedSchema(proposed.schema_type, proposed.canonical, proposed.native) for _ in range(evaluations)]
        start = time.perf_counter()
        for schema in fresh:
            evaluate(STRICT, catalogue, previous, schema, ctx)
        times.append((time.perf_counter() - start) * 1000 / evaluations)
    print(f"{fmt_name:<8} 7 built-in rules: {min(times):.2f} ms best, {statistics.median(times):.2f} ms median "
          f"per evaluation ({len(outcome.violations)} violations per evaluation)")


def _compliant(name: str) -> str:
    fields = [{"name": f"field_{i}", "type": "string", "default": "", "doc": f"Field {i}"} for i in range(10)]
    return json.dumps({"type": "record", "name": name, "namespace": "com.acme.bench", "doc": "Bench", "fields": fields})


def registration_ratio(label: str, make_url: Callable[[str], str], batches: int = 30, size: int = 25) -> None:
    from app.core.types import SchemaRequest
    from app.settings import Settings
    from app.wiring import build_registry

    services = {strict: build_registry(Settings(database_url=make_url(f"policy{int(strict)}"))) for strict in (False, True)}
    services[True].policies.put_global(STRICT_DOCUMENT)
    best = {False: float("inf"), True: float("inf")}
    try:
        for batch in range(-2, batches):  # two warm-up batches each
            for strict, service in services.items():
                requests = [SchemaRequest(schema=_compliant(f"B{batch + 2}x{n}")) for n in range(size)]
                started = time.perf_counter()
                for n, request in enumerate(requests):
                    service.register(f"b{batch}-{n}", request)
                if batch >= 0:
                    best[strict] = min(best[strict], (time.perf_counter() - started) / size)
    finally:
        for service in services.values():
            service.storage.close()  # type: ignore[attr-defined]
    on, off = 1 / best[True], 1 / best[False]
    print(f"{label:<9} in process, strict default policy set / none, best of {batches} batches of {size}: "
          f"{on:6.0f} / {off:6.0f} registrations/s = {on / off:.2f}x")


def registrations(no_postgres: bool) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="sqlreg-policy-bench-"))
    targets: list[tuple[str, Callable[[str], str]]] = [("sqlite", lambda tag: f"sqlite:///{workdir / tag}.db")]
    cluster = None
    if not no_postgres:
        from support.postgres import PostgresUnavailable, start_cluster

        try:
            cluster = start_cluster()
            targets.append(("postgres", lambda tag: cluster.url(cluster.create_database(tag))))
        except PostgresUnavailable as exc:
            print(f"(PostgreSQL skipped: {exc})")
    try:
        for label, make_url in targets:
            registration_ratio(label, make_url)
    finally:
        if cluster is not None:
            cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fields", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--evaluations", type=int, default=200)
    parser.add_argument("--registrations", action="store_true", help="also registrations/s with a strict policy vs none")
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    print(f"{args.fields} fields:")
    per_evaluation("AVRO", wide_record(args.fields - 1), wide_record(args.fields), args.rounds, args.evaluations)
    # Protobuf pays one more protoc compile per evaluation, for the text's source info.
    per_evaluation("PROTOBUF", wide_message(args.fields - 1), wide_message(args.fields), args.rounds,
                   max(1, args.evaluations // 10))
    if args.registrations:
        registrations(args.no_postgres)


if __name__ == "__main__":
    main()
