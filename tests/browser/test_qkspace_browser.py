"""The query–key space, rollout and the explainer on your sentence in a real browser: each opens from its link, a
click on a point outlines its column and lands in the link, and a figure downloads as SVG.

Skips without playwright or chromium, except in CI (CI=true), where a missing browser is a failure.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.browser import app_url, page, wait_for_app  # noqa: F401 - the served app and its page
from tests.support.browser import download as clicked_download

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SLOW_MS = 300_000  # a page that loads the model and runs it twice, on a busy machine


def main_text(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def test_clicking_a_key_outlines_its_column_and_keeps_it_in_the_link(page, app_url):
    page.goto(f"{app_url}/query-key-space?model=demo-zh-en&kind=encoder&layer=1&head=0")
    wait_for_app(page, timeout_ms=SLOW_MS)
    assert page.get_by_role("heading", name="Query–key space").first.is_visible()
    assert not page.locator('[data-testid="stException"]').count()
    charts = page.locator('[data-testid="stPlotlyChart"]')
    assert charts.count() == 2  # the space and the map
    keys = charts.first.locator(".scatterlayer .trace").nth(1).locator(".points path")
    assert keys.count() >= 3  # 早上 好 ！ </s>
    keys.nth(1).click(force=True)
    page.get_by_text(re.compile(r"Picked: key #\d")).wait_for(timeout=60_000)
    wait_for_app(page, timeout_ms=SLOW_MS)
    assert re.search(r"qk_point=k\d", page.url)
    assert charts.nth(1).locator(".shapelayer path, .layer-above path").count() >= 1  # the outlined column


def test_the_query_key_space_downloads_as_svg_in_chinese(page, app_url):
    page.goto(f"{app_url}/query-key-space?model=demo-zh-en&kind=encoder&lang=zh")
    wait_for_app(page, timeout_ms=SLOW_MS)
    assert "查询–键空间" in main_text(page)
    download = clicked_download(page, "SVG")
    assert download.suggested_filename.startswith("qk-space_demo-zh-en_L0H0")
    svg = Path(download.path()).read_text(encoding="utf-8")
    assert svg.lstrip().startswith(("<?xml", "<svg")) and "查询" in svg


def test_rollout_opens_from_its_link(page, app_url):
    page.goto(f"{app_url}/self-attention?model=demo-zh-en&stack=encoder&self_view=rollout&roll_last=1")
    wait_for_app(page, timeout_ms=SLOW_MS)
    assert not page.locator('[data-testid="stException"]').count()
    assert "rollout L0–L1" in page.locator('[data-testid="stPlotlyChart"]').first.inner_text()
    assert "Residual term" in main_text(page)


def test_the_explainer_walks_your_sentence(page, app_url):
    page.goto(f"{app_url}/how-attention-works?model=demo-zh-en&kind=encoder&layer=0&head=1&ex_token=1")
    wait_for_app(page, timeout_ms=SLOW_MS)
    text = main_text(page)
    assert "on your sentence" in text and "Step 4 · softmax." in text
    assert re.search(r"largest difference over its \d+ keys is \d\.\de-0[6-9]", text)
    assert "How “好” looks at the sentence" in text
