"""What the policy engine costs a registration: all seven built-in rules on a 200-field Avro
record, milliseconds per evaluation (target: 5 ms).

The proposed schema is a fresh object each round (its element walk is not cached, as for a
new registration); the previous version, which `forbidden-changes` compares against, is the
cached parsed schema the registry would hand over. Prints figures only.

    python bench/policies.py [--fields 200] [--rounds 7] [--evaluations 200]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fields", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--evaluations", type=int, default=200)
    args = parser.parse_args()
    fmt = FORMATS["AVRO"]
    previous = fmt.parse(wide_record(args.fields - 1), {})
    proposed = fmt.parse(wide_record(args.fields), {})
    catalogue = load_catalogue(plugins=False)
    ctx = RuleContext("bench-value", [(1, previous)])
    outcome = evaluate(STRICT, catalogue, previous, proposed, ctx)
    assert sorted(outcome.checked) == sorted(u.rule for u in STRICT), outcome.skipped
    rounds = []
    for _ in range(args.rounds):
        fresh = [ParsedSchema(proposed.schema_type, proposed.canonical, proposed.native) for _ in range(args.evaluations)]
        start = time.perf_counter()
        for schema in fresh:
            evaluate(STRICT, catalogue, previous, schema, ctx)
        rounds.append((time.perf_counter() - start) * 1000 / args.evaluations)
    print(f"{args.fields}-field Avro record, 7 built-in rules: {min(rounds):.2f} ms best, "
          f"{statistics.median(rounds):.2f} ms median per evaluation "
          f"({len(outcome.violations)} violations per evaluation)")


if __name__ == "__main__":
    main()
