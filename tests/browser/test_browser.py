"""The product in a real browser: `streamlit run app.py` on 127.0.0.1, driven through Playwright and Debian's chromium.

Screenshots go to test-output/screenshots, or to the folder in ATTNVIZ_SCREENSHOTS (`make screenshots` sets
docs/screenshots, the ones the README and the user guide show). Without chromium or playwright these tests skip,
except in CI (CI=true), where a missing browser is a failure.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from tests.support.browser import (  # noqa: F401 - app_url and page: the served app and its browser page
    REPO,
    app_url,
    page,
    screenshot_whole_page,
    served_app,
    wait_for_app,
)
from tests.support.browser import download as clicked_download

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCREENSHOTS_ENV = "ATTNVIZ_SCREENSHOTS"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PAGES = {  # screenshot name -> URL path
    "translate": "",
    "self-attention": "self-attention",
    "how-attention-works": "how-attention-works",
    "heads": "heads",
    "query-key-space": "query-key-space?kind=encoder&qk_point=k1",
}
# The walk-through is long: its picture shows sections 1 and 2 and stops above section 3.
SCREENSHOT_UNTIL = {"how-attention-works": re.compile(r"^3 ·")}


@pytest.fixture(scope="module")
def screenshot_dir() -> Path:
    folder = Path(os.environ.get(SCREENSHOTS_ENV) or REPO / "test-output" / "screenshots")
    folder = folder if folder.is_absolute() else REPO / folder
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def save(page, folder: Path, name: str) -> Path:
    """A whole-page screenshot, quantised to a small palette PNG (screenshots are mostly flat colour)."""
    from PIL import Image

    path = folder / f"{name}.png"
    heading = SCREENSHOT_UNTIL.get(name)
    until = page.get_by_role("heading", name=heading).first if heading else None
    screenshot_whole_page(page, path, until=until)
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)
    return path


def alignment_text(page) -> str:
    """The words drawn in the first chart on the page (the alignment diagram on Translate & align)."""
    return page.locator('[data-testid="stPlotlyChart"]').first.inner_text()


def test_default_view_shows_the_alignment_of_good_morning(page, app_url, screenshot_dir):
    page.goto(app_url)
    wait_for_app(page)
    assert page.get_by_role("heading", name="Translate & align").is_visible()
    drawn = alignment_text(page)
    assert "早上" in drawn and "好" in drawn
    assert re.search(r"good morning", page.locator('[data-testid="stMain"]').inner_text(), re.IGNORECASE)
    assert "model=demo-zh-en" in page.url
    for name, path in PAGES.items():  # one screenshot per page for the user guide
        page.goto(f"{app_url}/{path}")
        wait_for_app(page)
        assert not page.locator('[data-testid="stException"]').count()
        save(page, screenshot_dir, name)


def test_the_app_asks_nothing_of_any_host_but_its_own(page, app_url):
    outside = []
    page.on("request", lambda request: outside.append(request.url) if not request.url.startswith(app_url) else None)
    page.goto(f"{app_url}/self-attention")
    wait_for_app(page)
    page.goto(app_url)  # Translate & align, the icon in the tab
    wait_for_app(page)
    assert outside == []  # offline: no font, icon or script fetched from elsewhere


def test_typing_a_new_text_updates_the_alignment(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    box = page.get_by_label("Text", exact=True)
    box.fill("晚安")
    box.press("Enter")
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
                   .some(chart => chart.innerText.includes('晚') && !chart.innerText.includes('早上'))""",
        timeout=60_000,
    )
    wait_for_app(page)
    assert "晚" in alignment_text(page) and "早上" not in alignment_text(page)
    assert "text=%E6%99%9A%E5%AE%89" in page.url  # 晚安, shareable


def test_switching_to_chinese_changes_the_interface(page, app_url, screenshot_dir):
    page.goto(app_url)
    wait_for_app(page)
    page.locator('[data-testid="stSidebar"]').get_by_text("中文", exact=True).click()
    page.get_by_role("heading", name="翻译与对齐").wait_for(timeout=60_000)
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "交叉注意力" in main and "Cross-attention" not in main
    assert page.get_by_role("link", name="自注意力").is_visible()  # the navigation too
    save(page, screenshot_dir, "translate-zh")


def test_png_export_downloads_a_valid_png(page, app_url):
    from PIL import Image

    page.goto(app_url)
    wait_for_app(page)
    download = clicked_download(page, "PNG")
    assert download.suggested_filename == "alignment_demo-zh-en_Halign_早上好.png"  # what it holds, not "alignment"
    data = Path(download.path()).read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    with Image.open(io.BytesIO(data)) as image:
        image.verify()
    with Image.open(io.BytesIO(data)) as image:
        assert image.width >= 300 and image.height >= 200
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 10  # a drawing, not a blank


LONG_TEXT = " ".join(
    ["Attention lets every token look at every other token, and the model decides how much each one matters."] * 14
)  # about 300 MiniLM tokens: above the server's ATTNVIZ_LAZY_FROM_TOKENS below


@pytest.fixture(scope="module")
def long_text_url(tmp_path_factory):
    yield from served_app(tmp_path_factory, env={"ATTNVIZ_LAZY_FROM_TOKENS": "256"})


def test_a_long_text_shows_one_head_pooled_and_an_exact_block_you_move(page, long_text_url, screenshot_dir):
    from urllib.parse import quote

    page.goto(f"{long_text_url}/self-attention?model=minilm&layer=2&head=3&text={quote(LONG_TEXT)}")
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    assert "A long text" in main.inner_text()
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 3  # the pooled head, the exact block, head lines
    assert "rows 0–127 × keys 0–127 (exact)" in main.inner_text()
    save(page, screenshot_dir, "long-text")
    row = page.get_by_label("First query row")
    row.fill("200")
    row.press("Enter")
    page.get_by_text(re.compile(r"rows \d+–\d+ × keys 0–127 \(exact\)")).filter(has_not_text="rows 0–").first.wait_for(
        timeout=60_000
    )
    wait_for_app(page)
    assert re.search(r"rows (200|1\d\d)–\d+ × keys 0–127", main.inner_text())
