"""Run the real app (`streamlit run app.py`) on 127.0.0.1 and drive Debian's chromium through Playwright.

Used by tests/browser/test_browser.py and benchmarks/bench_app.py. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # attnviz, when run from benchmarks/ or a script
    sys.path.insert(0, str(REPO))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SERVER_START_TIMEOUT = 90.0  # seconds until /_stcore/health answers (imports take a while on 2 cores)


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def playwright_missing() -> str | None:
    """Why the browser tests cannot run here (None when they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -r requirements-dev.txt)"
    if chromium_path() is None:
        return "Debian's chromium is not installed (apt-get install chromium)"
    return None


def require_browser() -> None:
    """Skip a browser test where Playwright or chromium is missing, except in CI (CI=true), where that fails it."""
    from tests.support import needs  # pytest: only in a test (benchmarks/bench_app.py imports this module too)

    missing = playwright_missing()
    if missing:
        needs.missing(missing)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, process: subprocess.Popen, timeout: float = SERVER_START_TIMEOUT) -> float:
    """Seconds until the server's health endpoint answers; raises if it dies or takes longer than `timeout`."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {process.returncode} before it was healthy")
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            if response.status == 200:
                return time.monotonic() - start
        time.sleep(0.2)
    raise TimeoutError(f"streamlit did not answer {url}/_stcore/health within {timeout:.0f} s")


@contextlib.contextmanager
def streamlit_server(
    env: dict[str, str] | None = None,
    log_path: Path | None = None,
    address: str | None = "127.0.0.1",
    started=None,
    wait: bool = True,
):
    """Yield (base url, seconds from start to healthy) of `streamlit run app.py` on a free local port, bound to
    `address` (None: the address the project's .streamlit/config.toml sets). `started`: a list that receives the
    server's Popen (its pid, for whoever reads its sockets). `wait=False`: yield (base url, None) at once, the
    server still starting (for visitors who arrive while it does)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    bind = ["--server.address", address] if address is not None else []
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(REPO / "app.py"),
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        *bind,
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error", **(env or {})}
    with contextlib.ExitStack() as stack:
        log = stack.enter_context(open(log_path, "wb")) if log_path else subprocess.DEVNULL
        process = subprocess.Popen(command, cwd=REPO, env=environment, stdout=log, stderr=subprocess.STDOUT)
        if isinstance(started, list):
            started.append(process)
        try:
            yield url, wait_healthy(url, process) if wait else None
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)


@contextlib.contextmanager
def chromium(viewport=(1440, 1000)):
    """A Playwright browser page in Debian's chromium, seeing the packaged CJK font (so Chinese is not boxes)."""
    from playwright.sync_api import sync_playwright

    from attnviz.figures import fonts

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(),
            args=CHROMIUM_ARGS,
            env={**os.environ, **fonts.chromium_environment()},
            timeout=60_000,
        )
        try:
            context = browser.new_context(
                viewport={"width": viewport[0], "height": viewport[1]}, accept_downloads=True, locale="en-US"
            )
            page = context.new_page()
            page.set_default_timeout(60_000)
            yield page
        finally:
            browser.close()


def wait_for_app(page, timeout_ms: int = 90_000, quiet_ms: int = 1500) -> None:
    """Wait until the app has drawn and is idle: no "running" status, and the page unchanged for `quiet_ms`.

    Streamlit shows its status widget while a script runs, but only after a short delay, so an unchanged page is the
    other half of "done". Raises playwright's TimeoutError after `timeout_ms`.
    """
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    page.wait_for_function(
        """(quiet) => {
            const main = document.querySelector('[data-testid="stMain"]');
            if (!main) return false;
            const running = document.querySelector('[data-testid="stStatusWidget"]');
            const skeleton = document.querySelector('[data-testid="stSkeleton"]');
            const snapshot = main.innerText.length + ':' + main.querySelectorAll('*').length;
            const now = Date.now();
            if (running || skeleton || window.__attnvizSnapshot !== snapshot) {
                window.__attnvizSnapshot = snapshot;
                window.__attnvizSince = now;
                return false;
            }
            return now - window.__attnvizSince >= quiet;
        }""",
        arg=quiet_ms,
        timeout=timeout_ms,
        polling=200,
    )


DOWNLOAD_TIMEOUT_MS = 120_000  # a figure's file is made on click: a render, and perhaps a browser start for kaleido


def download(page, button: str, index: int = 0, timeout_ms: int = DOWNLOAD_TIMEOUT_MS, tries: int = 2):
    """Playwright's Download of the `index`-th button labelled `button`, clicked once the app is idle.

    Streamlit makes a download's bytes when its button is clicked, from a callable kept for that run's buttons; a
    click that lands as a rerun replaces the buttons finds it gone (the server logs "Deferred file … not found" and
    the browser gets nothing). So a click that brings no file is made once more, on the button now drawn."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(tries):
        wait_for_app(page)
        try:
            with page.expect_download(timeout=timeout_ms) as info:
                page.get_by_role("button", name=button, exact=True).nth(index).click()
            return info.value
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
    raise ValueError("tries must be 1 or more")


def choose_option(page, label: str, option) -> str:
    """Open the selectbox labelled `label` and click its first option named `option` (a string or a pattern), as a
    person does; returns the option's text.

    Streamlit's selectbox is a combobox whose list closes when the page scrolls. Playwright scrolls the field into
    view just before it clicks, and on a busy machine that scroll's event arrives after the click and shuts the list
    it opened; so the field is scrolled into view first and clicked once the scroll has been delivered (two frames
    later), as a person scrolls, stops, then clicks. (A click on the middle of the whole widget lands between its
    label and its field: it focuses the field and opens nothing.)
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    field = page.get_by_role("combobox", name=label, exact=True)
    choice = page.get_by_role("option", name=option).first
    for attempt in range(3):  # bounded: a list that never opens still fails
        field.scroll_into_view_if_needed()
        page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        field.click()
        try:
            choice.wait_for(state="visible", timeout=10_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    text = choice.inner_text().strip()
    choice.click()
    return text


def screenshot_whole_page(page, path, width: int = 1440, max_height: int = 6000, until=None) -> None:
    """Screenshot the whole app: Streamlit scrolls inside its main area, so grow the viewport to fit it first.

    `until`: a locator; the picture stops just above it (a long page shown up to a section heading).
    """
    height = page.evaluate(
        """() => {
            const main = document.querySelector('[data-testid="stMain"]') || document.body;
            return Math.max(main.scrollHeight, document.body.scrollHeight);
        }"""
    )
    original = page.viewport_size
    page.set_viewport_size({"width": width, "height": min(int(height) + 20, max_height)})
    page.wait_for_timeout(500)
    clip = None
    if until is not None:
        box = until.bounding_box()
        if box:
            clip = {"x": 0, "y": 0, "width": width, "height": max(box["y"] - 16, 1)}
    page.screenshot(path=str(path), full_page=False, clip=clip)
    page.set_viewport_size(original)


def served_app(tmp_path_factory, env: dict[str, str] | None = None):
    """Yield the URL of `streamlit run app.py` (with `env`), its log in a temporary folder; skips or fails without a
    browser (`require_browser`). For a module-scoped fixture: `yield from served_app(tmp_path_factory)`."""
    require_browser()
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with streamlit_server(env=env, log_path=log) as (url, _):
        yield url


def served_page(tmp_path_factory, env: dict[str, str] | None = None):
    """Yield (a chromium page, the URL of `streamlit run app.py`): `served_app` with its browser page, for a
    module-scoped fixture (`yield from served_page(tmp_path_factory)`)."""
    for url in served_app(tmp_path_factory, env):
        with chromium() as browser_page:
            yield browser_page, url


def _fixture(function):
    import pytest

    return pytest.fixture(scope="module")(function)


@_fixture
def app_url(tmp_path_factory):
    """The served app (`served_app`), once per test module that imports this fixture."""
    yield from served_app(tmp_path_factory)


@_fixture
def page(app_url):
    """A chromium page for the served app, once per test module that imports this fixture."""
    with chromium() as browser_page:
        yield browser_page
