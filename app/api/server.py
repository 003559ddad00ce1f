"""Root and server metadata (spec §3.1): health checks and identity."""
from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

from flask import Blueprint, Response

from app.api.render import cluster_id_entity, json_response, server_version_entity
from app.api.requests import read_body
from app.api.service import registry

bp = Blueprint("server", __name__)


def _package_version() -> str:
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


# Both are read once, at start-up: neither can change under a running process.
_VERSION = _package_version()
_COMMIT_ID = git_commit(Path(__file__).resolve().parents[2])


@bp.get("/")
def root() -> Response:
    return json_response({})


@bp.post("/")
def root_post() -> Response:
    """Confluent accepts any JSON map here and answers `{}`; the body is still checked as JSON."""
    read_body(required=False)
    return json_response({})


@bp.get("/v1/metadata/id")
def cluster_id() -> Response:
    return json_response(cluster_id_entity(registry().cluster_id()))


@bp.get("/v1/metadata/version")
def server_version() -> Response:
    """The package version and the git commit of the running tree ("unknown" outside a checkout)."""
    return json_response(server_version_entity(_VERSION, _COMMIT_ID))


@bp.get("/v1/metadata/deployment")
def deployment() -> Response:
    """Confluent's open-source server reports the attributes configured under
    `schema.registry.metadata.deployment.attributes`, none by default; this registry has no
    such setting, so the list is always empty."""
    return json_response({"attributes": []})
