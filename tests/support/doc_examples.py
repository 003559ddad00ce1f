"""The documentation's examples, read from the Markdown and run as a reader would run them.

The convention (stated in docs/tests.md too): a fenced block marked ```sh runs in bash with
`set -e -o pipefail`, a block marked ```python runs in the project's interpreter; a block marked
```text, ```toml, ```json, ```console or ```proto is shown only (no other info string is allowed,
so that a ```bash block cannot be silently skipped), and so is a ```sh or ```python block whose
last non-blank line before the fence is `<!-- not run: why -->` (it starts a server, needs PostgreSQL, ...).
A page's blocks run in order, in one scratch directory, as if typed into one terminal: the
variables a shell block sets are there for the blocks after it (exported or not). A line
`# => TEXT` in a block is output the block prints (on stdout or stderr, as a terminal shows
both): the block's output must hold each such TEXT in order, `...` standing for anything on one line.

A page names the registries its examples talk to with `<!-- docs-test: servers REGISTRY_URL
TARGET_URL -->` (default: `REGISTRY_URL` alone); each gets a fresh `sqlregistry serve` on SQLite
and a free port, and its URL in that variable, the only thing that differs from the page's text;
`<!-- docs-test: server-env NAME=value -->` starts them with that setting, which the page's text
must tell its reader to set too.
`<!-- docs-test: spark -->` marks a page whose examples start Spark: they run with the pipeline
tests, not with the other pages.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.live import LiveServer, start_server

REPO_ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = frozenset({"sh", "python"})
DISPLAY_ONLY = frozenset({"text", "toml", "json", "console", "proto"})
BLOCK_TIMEOUT_SECONDS = 300

_FENCE = re.compile(r"^```(\S*)\s*$")
_NOT_RUN = re.compile(r"^<!--\s*not run\b.*-->\s*$")
_DIRECTIVE = re.compile(r"^<!--\s*docs-test:\s*([\w-]+)(.*?)-->\s*$")
_EXPECTED = re.compile(r"^\s*# => (.*\S)\s*$")


@dataclass(frozen=True)
class Example:
    """One runnable fenced block: where it is, its language, its text and the output it shows."""

    page: Path
    line: int
    language: str
    code: str
    expected: tuple[str, ...]

    @property
    def where(self) -> str:
        page = self.page.relative_to(REPO_ROOT) if self.page.is_relative_to(REPO_ROOT) else self.page.name
        return f"{page}:{self.line}"


@dataclass(frozen=True)
class Page:
    """A Markdown page's runnable examples and what they need around them."""

    path: Path
    examples: tuple[Example, ...]
    servers: tuple[str, ...]
    server_env: dict[str, str]
    spark: bool


class ExampleFailed(AssertionError):
    """An example exited non-zero, ran too long or did not print what its page shows."""


def documentation_pages() -> list[Path]:
    """README.md and every page of docs/, in a stable order."""
    return [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


def read_page(path: Path) -> Page:
    """The page's runnable blocks; an unclosed fence is an error, not a silently shorter page."""
    lines = path.read_text(encoding="utf-8").splitlines()
    examples: list[Example] = []
    servers: tuple[str, ...] = ("REGISTRY_URL",)
    server_env: dict[str, str] = {}
    spark = False
    index = 0
    while index < len(lines):
        directive = _DIRECTIVE.match(lines[index])
        if directive is not None:
            name, argument = directive.group(1), directive.group(2).split()
            if name == "servers":
                servers = tuple(argument)
            elif name == "server-env":
                server_env.update(item.split("=", 1) for item in argument)
            elif name == "spark":
                spark = True
            else:
                raise ValueError(f"{path.name}:{index + 1}: unknown docs-test directive {name!r}")
        fence = _FENCE.match(lines[index])
        if fence is None:
            index += 1
            continue
        start = index
        end = next((i for i in range(start + 1, len(lines)) if lines[i].rstrip() == "```"), None)
        if end is None:
            raise ValueError(f"{path.name}:{start + 1}: a fenced block that is never closed")
        body = lines[start + 1:end]
        before = next((line for line in reversed(lines[:start]) if line.strip()), "")
        skipped = _NOT_RUN.match(before) is not None
        if fence.group(1) in RUNNABLE and not skipped:
            expected = tuple(m.group(1) for m in map(_EXPECTED.match, body) if m is not None)
            examples.append(Example(path, start + 1, fence.group(1), "\n".join(body) + "\n", expected))
        index = end + 1
    return Page(path, tuple(examples), servers, server_env, spark)


def fenced_languages(path: Path) -> list[tuple[int, str]]:
    """The info string of every opening fence of a page, with its line number."""
    found, inside = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if inside:
            inside = line.rstrip() != "```"
        elif (fence := _FENCE.match(line)) is not None:
            found.append((number, fence.group(1)))
            inside = True
    return found


def expected_pattern(shown: str) -> re.Pattern[str]:
    """The output a `# => ` line shows as a regular expression: literal text, `...` for any run
    of characters on one line."""
    return re.compile(".*?".join(re.escape(part) for part in shown.split("...")))


def check_output(example: Example, output: str) -> None:
    """Every shown output in order, each found after the previous one."""
    position = 0
    for shown in example.expected:
        match = expected_pattern(shown).search(output, position)
        if match is None:
            raise ExampleFailed(f"{example.where}: the page shows `{shown}`, but after what was matched before, "
                                f"the example printed:\n{output[position:][-3000:]}")
        position = match.end()


def run_example(example: Example, workdir: Path, env: dict[str, str]) -> dict[str, str]:
    """Run one block in `workdir` with `env`; return the environment the next block starts from
    (a shell block's variables carry over, as in one terminal)."""
    state = workdir / ".example-env"
    if example.language == "sh":
        script = workdir / f".example-{example.line}.sh"
        # allexport: the block's plain assignments (CT=...) reach the next block as well.
        script.write_text(f"set -a -e -o pipefail\n{example.code}env -0 > {state}\n", encoding="utf-8")
        command = ["bash", str(script)]
    else:
        script = workdir / f".example-{example.line}.py"
        script.write_text(example.code, encoding="utf-8")
        command = [sys.executable, str(script)]
    try:
        # One stream, as a terminal shows it: the shown output may be a command's stderr.
        done = subprocess.run(command, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=BLOCK_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired as exc:
        raise ExampleFailed(f"{example.where}: still running after {BLOCK_TIMEOUT_SECONDS} s; it had printed:\n"
                            f"{exc.stdout!r}") from None
    if done.returncode != 0:
        raise ExampleFailed(f"{example.where}: exit status {done.returncode}; it printed:\n{done.stdout[-4000:]}")
    check_output(example, done.stdout)
    if example.language == "sh":
        return dict(item.split("=", 1) for item in state.read_text(encoding="utf-8").split("\0") if "=" in item)
    return env


def reader_environment(workdir: Path, urls: dict[str, str]) -> dict[str, str]:
    """What a reader's terminal has after `pip install -e .`: `sqlregistry` and `python` on the
    PATH (this checkout's code first), nothing of the test run's own REGISTRY_* settings."""
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "sqlregistry").exists():
        # An interpreter without the console script (the package not installed): the same entry point.
        bin_dir = workdir / ".bin"
        bin_dir.mkdir(exist_ok=True)
        shim = bin_dir / "sqlregistry"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m app.cli "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
        (bin_dir / "python").symlink_to(sys.executable)
    env = {key: value for key, value in os.environ.items() if not key.startswith("REGISTRY_")}
    env.update(urls)
    env.update({"PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "PYTHONPATH": str(REPO_ROOT),
                "HOME": env.get("HOME", str(workdir)), "PYTHONUNBUFFERED": "1"})
    return env


@contextmanager
def registries(page: Page, workdir: Path) -> Iterator[dict[str, LiveServer]]:
    """A fresh registry for each variable the page names, stopped afterwards."""
    with ExitStack() as stack:
        servers = {}
        for name in page.servers:
            home = workdir / f".server-{name.lower()}"
            home.mkdir()
            server = start_server(f"sqlite:///{home / 'registry.db'}", home / "server.log", env=page.server_env)
            stack.callback(server.stop)
            servers[name] = server
        yield servers


def run_page(page: Page, workdir: Path) -> None:
    """Every example of the page in order, against fresh registries, in `workdir`; a failure
    carries the end of each registry's log."""
    with registries(page, workdir) as servers:
        env = reader_environment(workdir, {name: server.url for name, server in servers.items()})
        for example in page.examples:
            try:
                env = run_example(example, workdir, env)
            except ExampleFailed as failed:
                logs = "".join(f"\n--- {name}'s server log\n{server.log_tail(2000)}"
                               for name, server in servers.items())
                raise ExampleFailed(f"{failed}{logs}") from None
