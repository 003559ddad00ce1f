"""Process CPU time of the diff page's text view (`app.web.texts.side_by_side`) on the
pretty-printed texts of two Avro records: n fields whose type changes on every field (a
change every fourth line, the rest `{`, `},` and names), and a chain 40 records deep; with
the matcher's steps per line, the rows shown and the bytes of those rows.

    python bench/text_diff.py [--sizes 100 400 625 2400 2600]

The texts are what the page compares (pretty-printed JSON); no HTTP, no database. Times are
the best of five runs. For comparison, difflib's SequenceMatcher, which the page used before,
took about 46 s on the 625-field pair on a loaded two-core machine.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from app.web import texts  # noqa: E402
from app.web.line_diff import LineMatcher  # noqa: E402
from support.shared_types import avro_shared_chain, avro_wide_record  # noqa: E402


def best_cpu_ms(old: str, new: str) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        texts.side_by_side(old, new)
        best = min(best, time.process_time() - start)
    return best * 1000


def report(name: str, old: str, new: str) -> None:
    a, b = old.splitlines(), new.splitlines()
    matcher = LineMatcher(a, b, texts.STEPS_PER_LINE * (len(a) + len(b)))
    matcher.matches()
    shown = texts.side_by_side(old, new)
    size = sum(len(r.left) + len(r.right) for r in shown.rows)
    compared = "compared" if shown.compared else "not compared (past the line budget)"
    print(f"{name:>14}  {len(a):>6} lines  {best_cpu_ms(old, new):8.1f} ms CPU  "
          f"{matcher.steps / (len(a) + len(b)):4.1f} steps/line  {len(shown.rows):>4} rows  {size:>7} chars  {compared}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 400, 625, 2400, 2600])
    args = parser.parse_args()
    for n in args.sizes:
        old = json.dumps(avro_wide_record(n, "string"), indent=2)
        new = json.dumps(avro_wide_record(n, "int"), indent=2)
        report(f"{n} fields", old, new)
    chain = [json.dumps(avro_shared_chain(40, leaf), indent=2) for leaf in ("string", "int")]
    report("chain 40 deep", *chain)


if __name__ == "__main__":
    main()
