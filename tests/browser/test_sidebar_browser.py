"""The sidebar's model picker reads whole in a real browser, in English and 中文: every name it lists, and the one
chosen, fits its box (no ellipsis), and is the model's full name (a hub model's whole id)."""

from __future__ import annotations

import pytest

from attnviz import i18n
from attnviz.model import catalogue, hub
from tests.support.browser import chromium, require_browser, served_app, streamlit_server, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT_MS = 180_000
PICKER = ".st-key-w_model_pick"

# Each listed name's width drawn in the picker's input font, against the room the input gives its text.
FITS = """(input, names) => {
    const style = getComputedStyle(input);
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const pen = document.createElement('canvas').getContext('2d');
    pen.font = style.font;
    return {room: room, wide: names.filter((n) => pen.measureText(n).width > room), value: input.value,
            clipped: input.scrollWidth > input.clientWidth};
}"""
CLIPPED_OPTIONS = """(options) => options.filter((o) => o.scrollWidth > o.clientWidth
    || [...o.querySelectorAll('*')].some((e) => e.scrollWidth > e.clientWidth)).map((o) => o.textContent)"""


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    yield from served_app(tmp_path_factory, env={"HF_HUB_OFFLINE": "1"})  # a hub model picked: said at once


def full_names(lang: str) -> set[str]:
    embedded = {i18n.t(f"model_{entry.name}", lang) for entry in catalogue.catalogue()}
    return embedded | {model.id for model in hub.HUB_MODELS} | {i18n.t("model_custom", lang)}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("model", ["demo-zh-en", "facebook/nllb-200-distilled-600M"])
def test_the_model_picker_shows_every_name_whole(app_url, lang, model):
    with chromium() as page:
        page.goto(f"{app_url}/?lang={lang}&model={model}")
        wait_for_app(page, timeout_ms=WAIT_MS)
        box = page.locator(f"{PICKER} input")
        page.locator(f"{PICKER} button[aria-haspopup='listbox']").click()
        options = page.locator('[role="option"]')
        options.first.wait_for(timeout=30_000)
        listed = [text.strip() for text in options.all_text_contents()]
        assert set(listed) == full_names(lang)  # full names: a hub model's whole id
        assert options.evaluate_all(CLIPPED_OPTIONS) == []  # none cut in the list
        measured = box.evaluate(FITS, listed)
        assert measured["wide"] == [], measured  # each would fit the box once chosen
        expected = model if model in hub.BY_ID else i18n.t(f"model_{model}", lang)
        assert measured["value"] == expected and not measured["clipped"]


def test_the_sidebar_lists_the_devices_once_torch_has_loaded_without_a_click(tmp_path_factory):
    """A first visitor meets the start-up load: the sidebar says the devices are listed once torch has loaded, and
    then lists them by itself (its line asks again until the load ends, then the page runs again)."""
    require_browser()
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    loading = i18n.t("device_report_loading", "en")
    with streamlit_server(log_path=log) as (url, _), chromium() as page:
        page.goto(url)  # at once: the warm-up waits for this first page before it imports torch
        page.wait_for_selector('[data-testid="stSidebar"]', timeout=WAIT_MS)
        sidebar = page.locator('[data-testid="stSidebar"]')
        try:
            sidebar.get_by_text(loading).wait_for(timeout=30_000)
        except Exception:
            pytest.skip("the server had loaded torch before the page drew its sidebar")
        sidebar.get_by_text(loading).wait_for(state="detached", timeout=WAIT_MS)  # no click, no typing
        listed = sidebar.locator('[data-testid="stExpander"]').filter(has_text="Device:")  # "Device: CPU", the list
        listed.first.wait_for(timeout=WAIT_MS)
