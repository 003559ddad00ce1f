"""The cost of an ENCRYPT rule in a pipeline decode, on `local[2]`, in one run (issue 39's target:
a decode that decrypts one field per record at least half as fast as the same decode without).

N records of one Avro schema (6 fields, `ssn` tagged PII) are written twice to Parquet topic
dumps: once under a subject without rules, once under a subject whose ENCRYPT rule
(AES256_GCM, local KMS) encrypts `ssn`, by our `AvroSerializer`. Then both are decoded with
`decode(..., engine="auto")` to Spark's no-op sink, taking turns for `--runs` runs each (the
first of each untimed: it starts the workers and fetches the writer and the DEK). Without the
rule the decode runs on the JVM; with it, on the JVM and then the `ssn` column is decrypted on
the JVM too, with the keys the driver found (`app.pipeline.jvm_decrypt`). `--python-decrypt`
adds the same rule with AES256_SIV, whose fields the Python workers decrypt after the JVM decode
(`app.pipeline.field_decryption`), to show what that path costs. `--records-path` adds a variant: the
same rule forced through the records path (a CEL rule beside it that is always true), to show
what the per-record path costs. The registry runs under gunicorn on SQLite (`support.live`).
Prints p50/p90/p99 of per-run wall seconds and the ratio of the medians; asserts nothing.

    python bench/pipeline_rules_decode.py [--records 300000] [--runs 7] [--python-decrypt] [--records-path]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from app.client import AvroSerializer, RegistryClient, UseLatest  # noqa: E402
from app.client.records import Rule, RuleSet, Schema  # noqa: E402
from bench.pipeline_decode import bench_session, spark_cpu, write_dump  # noqa: E402
from bench.timing import timed  # noqa: E402

SECRET = "bench-secret"
PERSON = json.dumps({"type": "record", "name": "Person", "namespace": "bench", "fields": [
    {"name": "id", "type": "long"},
    {"name": "name", "type": "string"},
    {"name": "ssn", "type": "string", "confluent:tags": ["PII"]},
    {"name": "age", "type": "int"},
    {"name": "score", "type": "double"},
    {"name": "active", "type": "boolean"},
]})
ENCRYPT = Rule("encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), (
    ("encrypt.kek.name", f"bench-kek-{uuid.uuid4().hex[:6]}"), ("encrypt.kms.key.id", "bench-key"),
    ("encrypt.kms.type", "local-kms")))
ENCRYPT_SIV = Rule("encrypt-pii", "TRANSFORM", "WRITEREAD", "ENCRYPT", ("PII",), (
    ("encrypt.dek.algorithm", "AES256_SIV"), ("encrypt.kek.name", f"bench-siv-{uuid.uuid4().hex[:6]}"),
    ("encrypt.kms.key.id", "bench-key"), ("encrypt.kms.type", "local-kms")))
ALWAYS = Rule("always", "CONDITION", "READ", "CEL", expr="message.age >= 0")


def person(n: int) -> dict:
    return {"id": n, "name": f"person-{n % 1000}", "ssn": f"{n % 1000:03d}-{n % 100:02d}-{n % 10000:04d}",
            "age": n % 90, "score": n / 7, "active": n % 2 == 0}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--records-path", action="store_true", help="also time the per-record path")
    parser.add_argument("--python-decrypt", action="store_true",
                        help="also time an AES256_SIV rule, decrypted in the Python workers")
    args = parser.parse_args()
    from support.live import scratch_registry

    with scratch_registry("bench-rules-") as scratch:
        client = RegistryClient(scratch.server.url)
        subjects = {"without the rule": ("plain-value", None), "ENCRYPT one field": ("encrypted-value", (ENCRYPT,))}
        if args.python_decrypt:
            subjects["ENCRYPT (SIV, Python workers)"] = ("siv-value", (ENCRYPT_SIV,))
        if args.records_path:
            subjects["ENCRYPT + CEL (records path)"] = ("checked-value", (ENCRYPT, ALWAYS))
        dumps = {}
        for name, (subject, rules) in subjects.items():
            client.register(subject, Schema(PERSON, rule_set=RuleSet(domain_rules=rules) if rules else None))
            write = AvroSerializer(client, subject=subject, writer=UseLatest(), rule_config={"secret": SECRET})
            dump = scratch.workdir / subject
            write_dump([write(person(n)) for n in range(args.records)], dump)
            dumps[name] = (subject, dump)
        print(f"records                 {args.records:>10,}  (6 fields; `ssn` encrypted with AES256_GCM, local KMS)")
        spark = bench_session({"spark.sql.shuffle.partitions": "2",
                               "spark.sql.files.maxPartitionBytes": str(8 * 1024 * 1024)})
        from app.pipeline import decode

        def run(name: str) -> tuple[float, float]:
            """Wall seconds, and CPU seconds of the JVM and the Python workers, of one decode."""
            subject, dump = dumps[name]
            decoded = decode(spark.read.parquet(str(dump)), "value", client, subject=subject,
                             rule_config={"secret": SECRET})
            return timed(lambda: spark_cpu(lambda: decoded.write.format("noop").mode("overwrite").save()))

        times: dict[str, list[float]] = {name: [] for name in dumps}
        cpu: dict[str, list[float]] = {name: [] for name in dumps}
        for name in dumps:
            run(name)  # warm: workers started, writer and DEK fetched, untimed
        for number in range(args.runs):
            for name in dumps:
                wall, spent = run(name)
                times[name].append(wall)
                cpu[name].append(spent)
            print(f"  run {number + 1}: " + ", ".join(f"{name} {times[name][-1]:.2f} s" for name in dumps), flush=True)
        print(f"per-run wall seconds over {args.runs} runs (p50 / p90 / p99), records per second at p50, "
              "CPU-seconds of the JVM and Python workers at p50:")
        for name, seconds in times.items():
            p50 = statistics.median(seconds)
            print(f"  {name:<30} {p50:6.2f} / {percentile(seconds, 0.9):6.2f} / {percentile(seconds, 0.99):6.2f}"
                  f"   {args.records / p50:10,.0f} records/s   {statistics.median(cpu[name]):6.2f} CPU-s")
        base, base_cpu = statistics.median(times["without the rule"]), statistics.median(cpu["without the rule"])
        for name in list(dumps)[1:]:
            print(f"  {name} runs at {base / statistics.median(times[name]):.2f}x the speed without the rule, "
                  f"{base_cpu / statistics.median(cpu[name]):.2f}x per CPU-second (target for ENCRYPT one field: "
                  ">= 0.5x)")
        spark.stop()


if __name__ == "__main__":
    main()
