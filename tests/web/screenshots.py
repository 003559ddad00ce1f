"""Regenerate docs/screenshots/*.png: the demo data (tests/web/demo_data.py) served by gunicorn
on a fresh database, photographed by Debian's chromium through Playwright.

    python tests/web/screenshots.py [output directory]
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(REPO), str(HERE.parent), str(HERE)]

import demo_data  # noqa: E402
from ui_browser import browser_missing, demo_server, launched  # noqa: E402

SHOTS = {
    "list": "/ui/",
    "subject": "/ui/subjects/orders-value",
    "diff": "/ui/subjects/orders-value/diff?from=1&to=3",
    "search": "/ui/search?q=c",
}


def main(out: Path) -> None:
    missing = browser_missing()
    if missing:
        sys.exit(f"screenshots: {missing}")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work, demo_server(Path(work)) as base, launched() as browser:
        page = browser.new_context(base_url=base, viewport={"width": 1200, "height": 860}).new_page()
        for name, path in SHOTS.items():
            page.goto(path)
            page.screenshot(path=str(out / f"{name}.png"))
        page.goto("/ui/subjects/orders-value/check")
        page.fill('form[data-form="check"] textarea[name="schema"]', json.dumps(demo_data.ORDER_INCOMPATIBLE, indent=1))
        page.click('form[data-form="check"] button[type="submit"]')
        page.wait_for_load_state()
        page.screenshot(path=str(out / "check.png"))
    print(f"screenshots: wrote {', '.join(sorted([*SHOTS, 'check']))} to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots")
