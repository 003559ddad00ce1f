"""The emulation of Java's HashSet iteration order, which orders Confluent's verbose replies.

When a JDK is at hand, random name and number sets are run through a real JVM and compared;
the fixed rows below were taken from a JVM (OpenJDK 17, with JDK 21's `HashSet(Collection)`
sizing, as Confluent's current images run) so the order stays pinned without one.
"""
from __future__ import annotations

import random
import shutil
import string
import subprocess
from pathlib import Path

import pytest

from app.formats.protobuf.diff.java_order import hash_map_keys, union_order

PINNED = [
    (["Zeta", "Alpha"], ["Zeta", "Alpha", "Mid", "Beta"], ["Zeta", "Alpha", "Mid", "Beta"]),
    (["TestMessage"], ["TestMessage2", "TestMessage"], ["TestMessage2", "TestMessage"]),
    ([0], [0, 1, 16], [0, 16, 1]),
]

# The JDK 21 constructor `new HashSet<>(c)` sizes its map as `HashMap.newHashMap(max(|c|, 12))`;
# written out here so that an older JDK runs the same sizing.
_ORACLE = r"""
import java.util.*;
import java.io.*;
public class Order {
  static <K> List<K> order(List<K> o, List<K> u) {
    Map<K, Integer> om = new HashMap<>(); for (K k : o) om.put(k, 1);
    Map<K, Integer> um = new HashMap<>(); for (K k : u) um.put(k, 1);
    Set<K> all = Collections.newSetFromMap(new HashMap<>((int) Math.ceil(Math.max(om.size(), 12) / 0.75d)));
    all.addAll(om.keySet()); all.addAll(um.keySet());
    return new ArrayList<>(all);
  }
  static List<Object> parse(String part, boolean ints) {
    List<Object> out = new ArrayList<>();
    if (!part.isEmpty()) for (String s : part.split(",")) out.add(ints ? (Object) Integer.valueOf(s) : s);
    return out;
  }
  public static void main(String[] a) throws IOException {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    PrintStream w = new PrintStream(System.out, true, "UTF-8");
    for (String line; (line = r.readLine()) != null; ) {
      boolean ints = line.startsWith("#");
      String[] p = (ints ? line.substring(1) : line).split("\\|", -1);
      StringJoiner j = new StringJoiner(",");
      for (Object k : order(parse(p[0], ints), parse(p[1], ints))) j.add(k.toString());
      w.println(j);
    }
  }
}
"""


@pytest.mark.parametrize(("original", "update", "java"), PINNED)
def test_union_order_matches_pinned_jvm_output(original: list, update: list, java: list) -> None:
    assert union_order(original, update) == java


def test_hash_map_keys_keep_insertion_order_within_a_bucket() -> None:
    # 1 and 17 share bucket 1 of a 16-slot table: insertion order decides between them.
    assert hash_map_keys([17, 1, 0]) == [0, 17, 1]


def _random_sets(rng: random.Random) -> tuple[list, list]:
    if rng.random() < 0.3:
        size = rng.randint(0, 80)
        pool = [rng.randint(-5, 70000) if rng.random() < 0.2 else rng.randint(0, 200) for _ in range(size)]
        cut = rng.randint(0, len(pool))
        return list(dict.fromkeys(pool[:cut])), list(dict.fromkeys(pool[cut:]))

    def name() -> str:
        head = rng.choice(["Msg", "Test", "A", "Z", "é", "日本", "_"])
        return head + "".join(rng.choice(string.ascii_letters + "_0123456789") for _ in range(rng.randint(0, 8)))

    original = list(dict.fromkeys(name() for _ in range(rng.choice([0, 1, 3, 11, 12, 13, 24, 25, 48, 60]))))
    update = list(dict.fromkeys([name() for _ in range(rng.randint(0, 30))] + original[: rng.randint(0, 5)]))
    return original, update


@pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None, reason="no JDK here")
def test_union_order_matches_a_live_jvm(tmp_path: Path) -> None:
    (tmp_path / "Order.java").write_text(_ORACLE, encoding="utf-8")
    subprocess.run(["javac", "Order.java"], cwd=tmp_path, check=True, capture_output=True)
    rng = random.Random(20261125)
    cases = [_random_sets(rng) for _ in range(1500)]
    lines = [
        ("#" if any(isinstance(k, int) for k in o + u) else "") + ",".join(map(str, o)) + "|" + ",".join(map(str, u))
        for o, u in cases
    ]
    run = subprocess.run(
        ["java", "-cp", str(tmp_path), "Order"], input="\n".join(lines) + "\n", capture_output=True,
        text=True, encoding="utf-8", check=True,
    )
    answers = run.stdout.splitlines()
    assert len(answers) == len(cases)
    wrong = []
    for (original, update), answer in zip(cases, answers, strict=True):
        ints = any(isinstance(k, int) for k in original + update)
        java = [int(k) if ints else k for k in answer.split(",")] if answer else []
        if union_order(original, update) != java:
            wrong.append((original, update, java))
    assert not wrong, wrong[:3]
