"""The pipeline page's examples (docs/pipeline.md) run as written, here rather than with the other
pages in tests/docs: `sqlregistry pipeline decode` starts Spark, and the Spark tests share one worker."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support.doc_examples import REPO_ROOT, read_page, run_page

pytestmark = pytest.mark.slow


# Each `sqlregistry pipeline` example starts a Spark process of its own: the page's whole run took
# 53 s on a quiet machine and went past the default 300 s on one at a load of 12.
@pytest.mark.timeout(900)
def test_every_example_of_the_pipeline_page_runs_as_written(tmp_path: Path) -> None:
    page = read_page(REPO_ROOT / "docs" / "pipeline.md")
    assert page.spark and page.examples
    if shutil.which("java") is None:
        missing = "no Java runtime (apt-get install openjdk-17-jdk-headless)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI must run the Spark tests, but: {missing}", pytrace=False)
        pytest.skip(missing)
    run_page(page, tmp_path)
