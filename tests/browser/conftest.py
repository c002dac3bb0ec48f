"""Browser tests: Playwright for Python driving Debian's Chromium, headless.

Never a downloaded browser: ``/usr/bin/chromium`` (``EVALSITE_CHROMIUM``
names another; ``.ci/run`` installs Debian's with apt when it is missing).
Without one these tests skip with the reason, folded into one line by
``-rs``; in CI (``CI=true``) a missing browser fails every one of them, so
they never silently vanish there. Playwright's sync API runs an event loop in
the test thread, so Django's async-safety check is switched off for these
tests; the live server runs in its own thread against the same test
database (``transactional_db``), so data made here is seen there.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path(os.environ.get("EVALSITE_CHROMIUM") or "/usr/bin/chromium")
IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SHIPPED_SUITES = Path(__file__).resolve().parents[2] / "evals" / "suites"

# Added to every document the tab loads, before the page's scripts: reports
# the progress box as the page shows it, once when the document is ready
# and then after every change (one report per batch of changes).
WATCH_PROGRESS = """
(() => {
  function shown() {
    const box = document.getElementById("run-progress");
    const status = document.getElementById("run-status");
    if (!box || !status) { return null; }
    const bar = box.querySelector("progress");
    const place = bar.getBoundingClientRect();
    const tile = box.closest(".tile").getBoundingClientRect();
    return {
      value: bar.getAttribute("value"),
      max: bar.getAttribute("max"),
      labelledby: bar.getAttribute("aria-labelledby"),
      text: box.querySelector(".progress-text").textContent,
      status: status.textContent,
      bar: [place.x, place.y, place.width, place.height],
      tile: [tile.x, tile.y, tile.width, tile.height],
      viewport: window.innerWidth,
    };
  }
  document.addEventListener("DOMContentLoaded", () => {
    const first = shown();
    if (first === null) { return; }
    window.reportProgress(first);
    const observer = new MutationObserver(() => window.reportProgress(shown()));
    const watch = { attributes: true, childList: true, characterData: true, subtree: true };
    observer.observe(document.getElementById("run-progress"), watch);
    observer.observe(document.getElementById("run-status"), watch);
  });
})();
"""


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here, with how to run them; None
    when Chromium is there."""
    if CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK):
        return None
    return (
        f"no Chromium at {CHROMIUM}; to run the browser tests: "
        "apt-get install -y chromium (or EVALSITE_CHROMIUM=/path/to/chromium), "
        "then .venv/bin/pytest tests/browser"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture (no test database, no live server) is set up."""
    uses_browser = "browser" in getattr(item, "fixturenames", ())
    if item.get_closest_marker("browser") is None and not uses_browser:
        return
    reason = chromium_missing()
    if reason is None:
        return
    if IN_CI:
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=DESKTOP)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))

    def on_response(response: Any) -> None:
        # The console's "Failed to load resource" names no URL; this does
        # (the site icon included: pages link it and /favicon.ico serves it).
        if response.status >= 400:
            errors.append(f"{response.status} {response.url}")

    def on_console(message: Any) -> None:
        if message.type == "error" and not message.text.startswith(
            "Failed to load resource"
        ):
            errors.append(message.text)

    opened.on("response", on_response)
    opened.on("console", on_console)
    opened.js_errors = errors
    yield opened
    context.close()


def click_plot_point(page: Any, locator: Any) -> None:
    """Click a plotly point or bar as a person does: plotly's drag layer
    sits above the marks and turns a click at a mark's position into a
    plotly_click, so the mouse goes there rather than to the element."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.click(x, y)


@pytest.fixture
def click_point(page: Any) -> Callable[[Any], None]:
    return lambda locator: click_plot_point(page, locator)


@pytest.fixture
def artifacts_dir() -> Path:
    target = Path(settings.TEST_ARTIFACTS_DIR) / "browser"
    target.mkdir(parents=True, exist_ok=True)
    return target


@pytest.fixture
def suites(settings: Any, tmp_path: Path) -> Path:
    """The shipped suites in a private folder, artifacts under tmp_path."""
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    target = tmp_path / "suites"
    shutil.copytree(SHIPPED_SUITES, target)
    settings.EVALS_SUITES_DIR = target
    return target


@pytest.fixture
def log_in(page: Any, live_server: Any) -> Callable[[str, str], None]:
    """``log_in(username, password)`` through the login form."""

    def submit(username: str, password: str) -> None:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")

    return submit


@pytest.fixture
def screenshot(page: Any, artifacts_dir: Path) -> Callable[[str], Path]:
    """``screenshot(name)``: the full page at 1280 px and at 390 px wide."""

    def take(name: str) -> Path:
        page.set_viewport_size(DESKTOP)
        desktop = artifacts_dir / f"{name}-1280.png"
        page.screenshot(path=str(desktop), full_page=True)
        page.set_viewport_size(PHONE)
        # Responsive charts redraw on the resize event, a moment later.
        page.wait_for_timeout(600)
        page.screenshot(path=str(artifacts_dir / f"{name}-390.png"), full_page=True)
        page.set_viewport_size(DESKTOP)
        page.wait_for_timeout(600)
        return desktop

    return take


@pytest.fixture
def watch_progress(page: Any) -> Callable[..., list[dict[str, Any]]]:
    """``watch_progress(extra=None)``: from now on, every state of a run
    page's progress box (bar value and max, its text, the status, where the
    bar and its tile are, the viewport width) is appended to the list
    returned, in the order the page showed them; ``extra()``, when given,
    adds its keys to each state as the test receives it."""

    def start(
        extra: Callable[[], dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        reports: list[dict[str, Any]] = []

        def report(shown: dict[str, Any] | None) -> None:
            if shown is not None:
                shown.update(extra() if extra is not None else {})
                reports.append(shown)

        page.expose_function("reportProgress", report)
        page.add_init_script(WATCH_PROGRESS)
        return reports

    return start
