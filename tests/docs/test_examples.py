"""Every example of README.md and docs/*.md runs as written, in order, on fresh registries.

The pages and the convention that marks what runs are read by support/doc_examples.py; a page
that starts Spark runs in tests/pipeline/test_docs_pipeline.py instead (one worker holds Spark).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from support.doc_examples import (
    DISPLAY_ONLY, REPO_ROOT, RUNNABLE, Example, ExampleFailed, check_output, documentation_pages, fenced_languages,
    read_page, run_page,
)

PAGES = [path for path in documentation_pages() if not read_page(path).spark]


@pytest.mark.parametrize("path", PAGES, ids=[str(path.relative_to(REPO_ROOT)) for path in PAGES])
def test_every_example_of_the_page_runs_as_written(path: Path, tmp_path: Path) -> None:
    run_page(read_page(path), tmp_path)


def test_every_fenced_block_says_whether_it_runs() -> None:
    """A ```bash or ```shell block would be shown but silently never run: only the runnable
    languages and the display-only ones are allowed."""
    allowed = RUNNABLE | DISPLAY_ONLY
    strays = [f"{path.name}:{number}: {fence}" for path in documentation_pages()
              for number, fence in fenced_languages(path) if fence not in allowed]
    assert strays == []


def test_a_failing_example_fails_its_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- docs-test: servers -->\n```sh\nFOO=1\n```\n\n```sh\ntest \"$FOO\" = 2\n```\n")
    with pytest.raises(ExampleFailed, match=r"page\.md:6: exit status 1"):
        run_page(read_page(page), tmp_path)


def test_a_block_marked_not_run_and_a_text_block_do_not_run(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- docs-test: servers -->\n<!-- not run: it would fail -->\n```sh\nfalse\n```\n"
                    "```text\nfalse\n```\n```python\nprint('ran')\n```\n")
    examples = read_page(page).examples
    assert [(example.line, example.language) for example in examples] == [(9, "python")]
    run_page(read_page(page), tmp_path)


def test_shown_output_must_be_printed_in_order() -> None:
    example = Example(REPO_ROOT / "README.md", 1, "sh", "", ('{"id":1,...}', '["payments-value"]'))
    check_output(example, '{"id":1,"version":1}["payments-value"]')
    with pytest.raises(ExampleFailed, match="the page shows"):
        check_output(example, '["payments-value"]{"id":1,"version":1}')
