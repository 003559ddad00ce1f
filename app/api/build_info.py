"""What is running, for `/v1/metadata/version`: the package version and the git commit."""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import NamedTuple


class BuildInfo(NamedTuple):
    """The running package's version and the commit of its checkout ("unknown" outside one)."""

    version: str
    commit_id: str


@functools.cache
def build_info() -> BuildInfo:
    """Read once, when first asked: neither can change under a running process, and reading
    the installed metadata at import was a few milliseconds of every worker's start."""
    return BuildInfo(_package_version(), git_commit(Path(__file__).resolve().parents[2]))


def _package_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("sqlregistry")
    except metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0"


_COMMIT = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")


def git_commit(tree: Path) -> str:
    """The commit checked out in `tree`, read from the git files (no `git` binary needed);
    "unknown" when the package does not run from a checkout, e.g. installed from a wheel."""
    try:
        git_dir = tree / ".git"
        if git_dir.is_file():  # a linked worktree: ".git" holds "gitdir: <path>"
            git_dir = (tree / git_dir.read_text().partition(":")[2].strip()).resolve()
        head = (git_dir / "HEAD").read_text().strip()
        if head.startswith("ref:"):
            ref = head[4:].strip()
            common = git_dir
            if (git_dir / "commondir").is_file():
                common = (git_dir / (git_dir / "commondir").read_text().strip()).resolve()
            loose = common / ref
            if loose.is_file():
                head = loose.read_text().strip()
            else:
                packed = (common / "packed-refs").read_text().splitlines()
                head = next((line.split()[0] for line in packed if line.endswith(" " + ref)), "")
        return head if _COMMIT.fullmatch(head) else "unknown"
    except OSError:
        return "unknown"
