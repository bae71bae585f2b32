"""Eight people at once against one running app: each sees its own text's tokens and nobody else's, and the server
stays up. One `streamlit run app.py` process, one Debian chromium with eight browser contexts driven concurrently
(Playwright's async API), each opening the Self-attention page with its own text in the link. The app runs as a
server deployment would (server mode, one allowlisted model folder holding a tiny random BERT).

Without chromium or playwright this skips, except in CI (CI=true), where a missing browser is a failure.
"""

from __future__ import annotations

import asyncio
import os
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from attnviz import fonts, selection
from attnviz.attention.capture import capture
from attnviz.figures._common import token_label
from attnviz.models import load_model
from tests.support.browser import CHROMIUM_ARGS, chromium_path, require_browser, streamlit_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MARKERS = "山水火木金土月星"  # one character per session, in no other session's text
TEST_BUDGET_S = 90.0  # the whole test, server start included
PAGE_TIMEOUT_MS = 75_000  # the test budget below is what bounds the whole run


def _text(index: int) -> str:
    """Session `index`'s text: its own character, and a length of its own (`index` more tokens)."""
    return f"我喜欢{MARKERS[index]}。" + "好" * index


def _url(base: str, model: str, index: int) -> str:
    view = {"model": model, "text": _text(index), "lang": "en", "words": "1", "hide": "1", "self_view": "head"}
    return f"{base}/self-attention?{urllib.parse.urlencode(view)}"


def _expected_labels(model: str) -> list[list[str]]:
    """The heatmap's row labels each session should see: the library's own tokens for its text (words, no specials)."""
    handle = load_model(model, "cpu")
    return [
        [
            token_label(t)
            for t in selection.prepare_map(capture(handle, _text(i)), "self", hide=True, words=True).query_tokens
        ]
        for i in range(len(MARKERS))
    ]


CHART_TEXT = (
    """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].map(c => c.innerText).join('\\n')"""
)
HEATMAP_ROWS = """() => [...document.querySelector('[data-testid="stPlotlyChart"]').querySelectorAll('g.ytick text')]
    .map(t => t.textContent)"""
PAGE_READY = """([marker, charts]) => {
    const drawn = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
    const running = document.querySelector('[data-testid="stStatusWidget"]');
    return !running && drawn.length >= charts && drawn.every(c => c.querySelector('.main-svg'))
        && drawn[0].innerText.includes(marker);
}"""


async def _session(browser, base: str, model: str, index: int) -> dict:
    """Open the page as one person and report what it shows once its charts are drawn."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = await context.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        await page.goto(_url(base, model, index))
        await page.wait_for_function(PAGE_READY, arg=[MARKERS[index], 3], polling=250)
        main = page.locator('[data-testid="stMain"]')
        return {
            "charts": await page.evaluate(CHART_TEXT),
            "heatmap_rows": await page.evaluate(HEATMAP_ROWS),
            "main": await main.inner_text(),
            "text_box": await page.get_by_label("Text", exact=True).input_value(),
            "url": page.url,
            "errors": await main.locator('[data-testid="stException"], [data-testid="stAlert"]').all_inner_texts(),
        }
    finally:
        await context.close()


async def _all_sessions(base: str, model: str, deadline: float) -> list[dict]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium_path(),
            args=CHROMIUM_ARGS,
            env={**os.environ, **fonts.chromium_environment()},
            timeout=30_000,
        )
        try:
            sessions = asyncio.gather(*(_session(browser, base, model, i) for i in range(len(MARKERS))))
            return await asyncio.wait_for(sessions, timeout=max(deadline - time.monotonic(), 1.0))
        finally:
            await browser.close()


def _healthy(base: str) -> bool:
    with urllib.request.urlopen(f"{base}/_stcore/health", timeout=5) as response:
        return response.status == 200 and response.read().strip() == b"ok"


def test_eight_sessions_at_once_each_see_only_their_own_text(tmp_path, tiny_folder):
    started = time.monotonic()
    require_browser()
    model = tiny_folder("bert")  # 2 layers × 4 heads: the pages stay light, so the time goes to concurrency
    # Deployed as a server would be: only folders under the allowlisted one may be loaded.
    server_env = {"ATTNVIZ_SERVER_MODE": "1", "ATTNVIZ_ALLOWED_DIRS": str(Path(model).parent)}
    with streamlit_server(env=server_env, log_path=tmp_path / "server.log") as (base, _healthy_after):
        deadline = started + TEST_BUDGET_S - 10  # leave time to stop the server and the browser
        results = asyncio.run(_all_sessions(base, model, deadline))
        assert _healthy(base), "the server stopped answering after eight sessions"
    log = (tmp_path / "server.log").read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log, log[-2000:]
    expected = _expected_labels(model)
    for index, result in enumerate(results):
        own, others = MARKERS[index], set(MARKERS) - {MARKERS[index]}
        assert result["errors"] == [], (index, result["errors"])
        assert result["text_box"] == _text(index)
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(result["url"]).query)["text"] == [_text(index)]
        assert result["heatmap_rows"] == expected[index], index  # its own tokens, all of them, in order
        assert own in result["charts"]
        seen = {marker for marker in others if marker in result["main"] or marker in result["charts"]}
        assert not seen, f"session {index} ({own}) shows another session's text: {seen}"
    assert time.monotonic() - started < TEST_BUDGET_S
