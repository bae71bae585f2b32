"""Downloads from the real app in a real browser: `streamlit run app.py` driven through Playwright and Debian's
chromium, in the Chinese interface. A PNG chosen at 3× has three times the figure's pixels each way; a PDF's text, as
pypdf extracts it, holds the figure's Chinese labels exactly, in embedded fonts that are not Type 3. Without chromium
or playwright these tests skip, except in CI (CI=true), where a missing browser is a failure (as tests/test_browser.py).
"""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest

from attnviz.figures.text_fit import as_file
from tests.support.browser import app_url, page, wait_for_app  # noqa: F401 - fixtures: the served app and its browser page
from tests.support.browser import download as clicked_download

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MODEL, TEXT = "demo-zh-en", "早上好！"  # the app's default input: the demo translator writes the English
CJK_RUN = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")


@pytest.fixture(scope="module")
def files():
    """The default view's figures as the app's files hold them, drawn here as the server draws them: the demo
    translator writing its translation of 早上好！ (one torch thread, as the app runs), labels in Chinese."""
    import torch

    from attnviz.attention.generation import generate
    from attnviz.model.load import load_model
    from attnviz.run import MAX_NEW_TOKENS
    from attnviz.view import selection, viewing

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        handle = load_model(MODEL, "cpu")
        result = generate(handle, TEXT, max_new_tokens=MAX_NEW_TOKENS)
    finally:
        torch.set_num_threads(threads)
    options = viewing.ViewOptions(kind="cross", aggregation="alignment", lang="zh")
    shown = selection.show(result, options, handle.alignment_heads, ("alignment", "heatmap"))
    return {name: as_file(figure, MODEL) for name, figure in shown.figures.items()}


def download(page, button: str, index: int) -> tuple[str, bytes]:
    """(suggested file name, bytes) of the `index`-th download button labelled `button` on the page."""
    done = clicked_download(page, button, index)
    return done.suggested_filename, Path(done.path()).read_bytes()


def choose_scale(page, scale: int) -> None:
    """In the sidebar's download-size popover, the PNG scale (it applies to every download)."""
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name=re.compile("下载尺寸")).click()
    page.get_by_role("radio", name=f"{scale}×", exact=True).click()  # a segmented control's option
    wait_for_app(page)
    page.get_by_text(f"PNG 为图像素的 {scale} 倍").wait_for(timeout=60_000)
    page.keyboard.press("Escape")


def test_a_png_at_3x_and_a_pdf_whose_chinese_text_is_the_labels(page, app_url, files):
    from PIL import Image
    from pypdf import PdfReader

    from attnviz.export.sizing import ExportSize

    page.goto(f"{app_url}/?lang=zh")
    wait_for_app(page)
    page.get_by_role("heading", name="翻译与对齐").wait_for(timeout=60_000)
    choose_scale(page, 3)

    name, png = download(page, "PNG", 0)  # the alignment, the first chart
    assert name == "alignment_demo-zh-en_Halign_早上好.png"
    width, height = ExportSize().of(files["alignment"])
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (3 * width, 3 * height)
        assert round(image.info["dpi"][0]) == 288

    name, pdf = download(page, "PDF", 1)  # the heatmap, the second chart
    assert name == "heatmap_demo-zh-en_Halign_早上好.pdf"
    reader = PdfReader(io.BytesIO(pdf))
    text = "".join(page_.extract_text() for page_ in reader.pages)
    heatmap = files["heatmap"]
    labels = [html.unescape(label) for label in heatmap.layout.xaxis.ticktext]
    assert "早上" in labels
    for label in labels:
        assert label in text, (label, text)
    title = re.sub(r"<[^<>]+>", " ", html.unescape(heatmap.layout.title.text))
    for run in CJK_RUN.findall(title):
        assert run in text, (run, text)
    assert "\u2f6c" not in text and "\u2f12" not in text  # no Kangxi radicals standing in for 目 and 力
    fonts = [
        font.get_object()
        for page_ in reader.pages
        for font in (page_["/Resources"].get_object().get("/Font") or {}).values()
    ]
    assert fonts and all(font["/Subtype"] != "/Type3" for font in fonts)
