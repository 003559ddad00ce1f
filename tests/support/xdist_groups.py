"""A pytest plugin: stop the run at collection when `--dist loadgroup` would group nothing.

pytest-xdist's loadgroup scheduler reads a test's group from its node id: each worker renames
the items it collected to `path::test@group` by setting `item._nodeid`. A pytest that no
longer reads `_nodeid` (9.2 with xdist 3.8) keeps the plain ids, and xdist then spreads the
Spark and browser tests over every worker: four Spark sessions at once (about 3 GB) and a
run twice as long, with nothing said. This checks, on each worker after xdist's own hook,
that every grouped item's id carries its group, and stops the run naming the versions if not.
"""
from __future__ import annotations

from importlib.metadata import version

import pytest


def ungrouped(items: list[pytest.Item]) -> list[str]:
    """The ids of the items with an `xdist_group` mark whose node id does not end with the
    suffix xdist gives them (`@` and the sorted group names joined by `_`)."""
    missing = []
    for item in items:
        names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                 for mark in item.iter_markers("xdist_group")}
        if names and not item.nodeid.endswith("@" + "_".join(sorted(names))):
            missing.append(item.nodeid)
    return missing


@pytest.hookimpl(trylast=True)  # after xdist's worker hook has renamed the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a worker, every item whose group did not hold errors at its setup with the reason,
    before any of its fixtures starts (no Spark session, no browser). A worker cannot stop the
    run at collection: xdist's controller takes that for a crash and says nothing of why."""
    # On a worker xdist keeps `--dist loadgroup` as `option.loadgroup` (its `dist` is "no" there).
    if not hasattr(config, "workerinput") or not getattr(config.option, "loadgroup", False):
        return
    missing = set(ungrouped(items))
    if not missing:
        return
    message = (
        f"--dist loadgroup does not hold: {len(missing)} tests marked xdist_group keep their plain node id, so "
        f"xdist spreads them over every worker. pytest {version('pytest')} and pytest-xdist "
        f"{version('pytest-xdist')} do not work together; install the versions in tests/constraints.txt "
        "(scripts/test does)"
    )

    def refuse() -> None:
        pytest.fail(message, pytrace=False)

    for item in items:
        if item.nodeid in missing:
            item.setup = refuse  # type: ignore[method-assign]
