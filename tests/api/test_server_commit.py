"""Where `/v1/metadata/version` gets its `commitId` from: the git files of the running tree."""
from __future__ import annotations

from pathlib import Path

from app.api.build_info import git_commit

SHA = "0123456789abcdef0123456789abcdef01234567"


def _repo(tree: Path) -> Path:
    git = tree / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    return git


def test_loose_branch_ref(tmp_path: Path) -> None:
    (_repo(tmp_path) / "refs" / "heads" / "main").write_text(SHA + "\n")
    assert git_commit(tmp_path) == SHA


def test_packed_branch_ref(tmp_path: Path) -> None:
    (_repo(tmp_path) / "packed-refs").write_text(f"# pack-refs with: peeled\n{SHA} refs/heads/main\n")
    assert git_commit(tmp_path) == SHA


def test_detached_head(tmp_path: Path) -> None:
    (_repo(tmp_path) / "HEAD").write_text(SHA + "\n")
    assert git_commit(tmp_path) == SHA


def test_linked_worktree(tmp_path: Path) -> None:
    main = _repo(tmp_path / "main")
    (main / "refs" / "heads" / "feature").write_text(SHA)
    admin = main / "worktrees" / "wt"
    admin.mkdir(parents=True)
    (admin / "HEAD").write_text("ref: refs/heads/feature\n")
    (admin / "commondir").write_text("../..\n")
    tree = tmp_path / "wt"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {admin}\n")
    assert git_commit(tree) == SHA


def test_no_checkout_or_a_broken_one_is_unknown(tmp_path: Path) -> None:
    assert git_commit(tmp_path) == "unknown"
    _repo(tmp_path)  # a branch without any commit yet
    assert git_commit(tmp_path) == "unknown"
