"""Verify: compare the target with the source subject by subject, writing nothing.

Both sides are read the way export reads a source (so 7.x shapes are understood on either
side); content is "the same" by the rules of the preflight (the target's own lookup decides
where the texts differ). Subjects only the target has are noted, not counted.
"""
from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

from app.transfer.errors import Differences
from app.transfer.export import Scope, SubjectHistory, put_shape, read_subject
from app.transfer.preflight import same_content
from app.transfer.progress import Progress, counted
from app.transfer.rest import RestRegistry


def compare_subject(target: RestRegistry, source_side: SubjectHistory, target_side: SubjectHistory) -> list[str]:
    subject = source_side.subject
    diffs: list[str] = []
    theirs = {v.version: (v, c) for v, c in target_side.versions}
    ours = {v.version: (v, c) for v, c in source_side.versions}
    for number in sorted(set(ours) | set(theirs)):
        if number not in theirs:
            diffs.append(f"diff: MISSING subject={subject} version={number} source={ours[number][0].id} target=-")
            continue
        if number not in ours:
            diffs.append(f"diff: EXTRA subject={subject} version={number} source=- target={theirs[number][0].id}")
            continue
        (sv, sc), (tv, tc) = ours[number], theirs[number]
        if sv.id != tv.id:
            diffs.append(f"diff: ID subject={subject} version={number} source={sv.id} target={tv.id}")
            continue
        if sv.deleted != tv.deleted:
            diffs.append(f"diff: DELETED subject={subject} version={number} source={sv.deleted} target={tv.deleted}")
        if not same_content(target, subject, number, sc, tc):
            diffs.append(f"diff: CONTENT subject={subject} version={number} id={sv.id}")
    if source_side.config != target_side.config:
        diffs.append(f"diff: CONFIG subject={subject} source={source_side.config} target={target_side.config}")
    if source_side.mode != target_side.mode:
        diffs.append(f"diff: MODE subject={subject} source={source_side.mode} target={target_side.mode}")
    return diffs


def verify(source: RestRegistry, target: RestRegistry, scope: Scope, workers: int, progress: Progress) -> int:
    subjects = sorted(s for s in source.subjects(deleted=True) if scope.includes(s))
    extra = sorted(s for s in target.subjects(deleted=True) if scope.includes(s) and s not in set(subjects))
    versions = 0
    with progress.phase("verify", len(subjects), unit="subject") as phase:
        def one(subject: str) -> tuple[int, list[str]]:
            mine, theirs = read_subject(source, subject), read_subject(target, subject)
            phase.advance()
            return len(mine.versions), compare_subject(target, mine, theirs)

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            results = list(pool.map(one, subjects))
    diffs = [line for _, lines in results for line in lines]
    versions = sum(n for n, _ in results)
    source_global, target_global = source.config(None), target.config(None)
    if source_global is not None and (put_shape(source_global) != put_shape(target_global or {})):
        diffs.append(f"diff: CONFIG global source={put_shape(source_global)} "
                     f"target={put_shape(target_global or {})}")
    for line in diffs:
        print(line)
    for subject in extra:
        print(f"note: extra subject {subject} (only on the target)")
    summary = (f"verify: {counted(len(subjects), 'subject')}, {counted(versions, 'version')}, "
               f"{counted(len(diffs), 'difference')}")
    print(summary)
    if diffs:
        print(summary, file=sys.stderr)
        raise Differences()
    return 0
