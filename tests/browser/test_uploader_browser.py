"""Streamlit's own file-uploader words ("Upload", "64MB per file • JSON, NPZ", "Drag and drop a file here") in the
中文 UI: hidden and written in Chinese (app_pages/shared/uploader.py), checked in a real browser, since a style sheet
does it and only a browser draws it."""

from __future__ import annotations

import pytest

from attnviz import i18n
from tests.support.browser import chromium, served_app, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT_MS = 180_000

# What the drop zone draws: each text element with its own text (hidden when it is drawn 0 px wide or not at all) and
# the text its ::after pseudo-element writes.
DRAWN = """(zone) => [...zone.querySelectorAll('p, span, div')].filter((e) => e.children.length === 0 ||
    getComputedStyle(e, '::after').content !== 'none').map((e) => {
    const range = document.createRange(); range.selectNodeContents(e);
    const after = getComputedStyle(e, '::after').content;
    return {text: e.textContent, width: range.getBoundingClientRect().width,
            after: after === 'none' ? '' : JSON.parse(after)};
})"""


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    yield from served_app(tmp_path_factory)


def drawn_words(page) -> tuple[str, str]:
    """(the English texts drawn wider than 0 px, the texts pseudo-elements write) in the page's first drop zone."""
    zone = page.locator('[data-testid="stFileUploaderDropzone"]').first
    zone.wait_for(timeout=WAIT_MS)
    parts = zone.evaluate(DRAWN)
    visible = " ".join(p["text"] for p in parts if p["width"] > 0 and p["text"].strip())
    written = " ".join(p["after"] for p in parts if p["after"])
    return visible, written


def drag_over(page) -> None:
    """Hold a file over the first drop zone, as a browser does while one is dragged (react-dropzone's dragenter)."""
    zone = page.locator('[data-testid="stFileUploaderDropzone"]').first
    files = page.evaluate_handle(
        "() => { const d = new DataTransfer(); d.items.add(new File(['{}'], 'a.json', {type: 'application/json'}));"
        " return d; }"
    )
    zone.dispatch_event("dragenter", {"dataTransfer": files})
    page.wait_for_timeout(500)


@pytest.mark.parametrize("path", ["open-capture", "corpus"])
def test_the_chinese_ui_writes_the_uploaders_own_words_in_chinese(app_url, path):
    with chromium() as page:
        page.goto(f"{app_url}/{path}?lang=zh")
        wait_for_app(page, timeout_ms=WAIT_MS)
        visible, written = drawn_words(page)
        assert "Upload" not in visible and "per file" not in visible, visible
        assert i18n.t("uploader_button", "zh") in written and "每个文件最大" in written, written
        assert "JSON" in written  # the accepted types are still named
        drag_over(page)
        visible, written = drawn_words(page)
        assert "Drag and drop" not in visible, visible
        assert "拖放" in written, written


def test_the_english_ui_keeps_streamlits_words(app_url):
    with chromium() as page:
        page.goto(f"{app_url}/open-capture?lang=en")
        wait_for_app(page, timeout_ms=WAIT_MS)
        visible, written = drawn_words(page)
        assert "Upload" in visible and "per file" in visible and not written
