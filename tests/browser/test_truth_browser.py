"""Truth on the screen in a real browser: an English sentence typed on the default translator page (zh → en) is
named as a language the model does not read, its unknown token is drawn as unknown, and one click switches to the
model that reads it."""

from __future__ import annotations

import re

import pytest

from tests.support.browser import served_page, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ENGLISH = "The animal did not cross the street because it was tired."


@pytest.fixture(scope="module")
def page_and_url(tmp_path_factory):
    yield from served_page(tmp_path_factory)


def test_english_on_the_default_translator_is_named_and_a_model_offered(page_and_url):
    page, url = page_and_url
    page.goto(url)
    wait_for_app(page)
    box = page.get_by_label("Text", exact=True)
    box.fill(ENGLISH)
    box.press("Enter")
    sentence = page.get_by_text(re.compile(r"written in Latin letters, which demo-zh-en does not read"))
    sentence.wait_for(timeout=60_000)
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "The model does not know “The animal did not cross the street because it was tired”" in main
    charts = " ".join(page.locator('[data-testid="stPlotlyChart"]').all_inner_texts())
    assert "The animal did …?" in charts  # drawn as unknown, not as the letter "T"
    page.get_by_role("button", name="Use Demo translator English → Chinese").click()
    page.wait_for_url(re.compile(r"model=demo-en-zh"), timeout=60_000)
    wait_for_app(page)
    page.get_by_text(re.compile("does not read")).wait_for(state="detached", timeout=60_000)
    charts = " ".join(page.locator('[data-testid="stPlotlyChart"]').all_inner_texts())
    assert "animal" in charts and "…?" not in charts
