"""Playwright for Python driving Debian's chromium (never `playwright install`: CI machines
reach only package registries), against the registry served by gunicorn on 127.0.0.1 with
a fresh database holding the demo data. Shared by the browser tests and the screenshots."""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = os.environ.get("REGISTRY_TEST_CHROMIUM", "/usr/bin/chromium")


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


@contextmanager
def launched() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def demo_server(workdir: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """gunicorn on a free loopback port over a fresh SQLite database with the demo data."""
    from support.live import start_server

    import demo_data
    from app.settings import Settings
    from app.wiring import build_registry

    url = f"sqlite:///{workdir / 'registry.db'}"
    loader = build_registry(Settings(database_url=url, metrics=False))
    demo_data.load(loader)
    loader.storage.close()
    server = start_server(url, workdir / "server.log", workers=1, env=env)
    try:
        yield server.url
    finally:
        server.stop()


@dataclass
class Watch:
    """Everything a page did that a UI test must fail on."""

    origin: str
    problems: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        def on_dialog(dialog: Any) -> None:
            self.problems.append(f"dialog {dialog.type}: {dialog.message}")
            dialog.dismiss()

        def on_console(message: Any) -> None:
            if message.type == "error":
                self.problems.append(f"console error: {message.text}")

        def on_request(request: Any) -> None:
            parts = urlsplit(request.url)
            if parts.scheme in ("data", "blob", "about"):
                return
            if f"{parts.scheme}://{parts.netloc}" != self.origin:
                self.problems.append(f"request to another origin: {request.url}")

        def on_response(response: Any) -> None:
            if response.status >= 400 and not response.request.is_navigation_request():
                self.problems.append(f"{response.status} for {response.url}")

        page.on("dialog", on_dialog)
        page.on("response", on_response)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("console", on_console)
        page.on("request", on_request)
        # CSP violations are reported to the page; collect them where the test can read them.
        page.add_init_script(
            "window.__csp = []; document.addEventListener('securitypolicyviolation',"
            " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
        )

    def check(self, page: Any) -> None:
        violations = page.evaluate("window.__csp || []")
        assert not violations, violations
        assert not self.problems, self.problems
