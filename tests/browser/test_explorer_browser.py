"""The explorer file in Debian's chromium, opened from a file:// URL with every other request aborted: it unpacks
plotly.js and its figures itself, draws the figure the reader picks (the file's own, looked up by the same key the
library gives it), keeps the choice in the URL's fragment so that a link opens that view, and speaks both languages.

Without chromium or playwright this skips, except in CI (CI=true), where a missing browser is a failure."""

from __future__ import annotations

import dataclasses
import html
import re

import pytest

from attnviz.export import explorer_file as ef
from attnviz.export.explorer_page import read_page
from tests.support.browser import chromium, require_browser
from tests.support.maps import seq2seq_capture

pytestmark = pytest.mark.browser

CONTENT = ef.ExplorerContent(thresholds=(0.1, 0.3))
READY = "document.body.dataset.ready === '1' || document.body.dataset.failed === '1'"


@pytest.fixture(scope="module", params=["en", "zh"])
def explorer(request, tmp_path_factory):
    """(file path, info, payload) of a translation capture's explorer file opening in each language."""
    require_browser()
    path = tmp_path_factory.mktemp("explorer") / f"explorer-{request.param}.html"
    path.write_bytes(ef.explorer_file(seq2seq_capture(), ((1, 0),), content=CONTENT, lang=request.param).data)
    return (path, *read_page(path.read_bytes()))


@pytest.fixture
def offline_page():
    """A chromium page on which every request but a file:// one is aborted; yields (page, the aborted URLs)."""
    aborted = []

    def only_files(route):
        if route.request.url.startswith("file://"):
            return route.continue_()
        aborted.append(route.request.url)
        return route.abort()

    with chromium() as page:
        page.context.route("**/*", only_files)
        yield page, aborted


def opened(page, path, fragment: str = "") -> None:
    page.goto(path.as_uri() + fragment)
    page.wait_for_function(READY, timeout=120_000)
    assert page.evaluate("document.body.dataset.failed") is None, page.inner_text("#status")


def shown_key(page) -> str:
    return page.evaluate("document.body.dataset.shown")


def choose(page, name: str, value) -> None:
    """Pick `value` in the control `name` as a reader does, and wait for its figure (nothing to wait for when the
    control holds it already)."""
    field = f"select[name={name}]"
    if page.eval_on_selector(field, "element => element.value") == str(value):
        return
    before = shown_key(page)
    page.select_option(field, str(value))
    page.wait_for_function(f"document.body.dataset.shown !== {before!r}", timeout=30_000)


def drawn_title(page) -> str:
    return page.evaluate("document.getElementById('figure').layout.title.text")


def plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", text)).split()


def test_it_opens_offline_and_draws_its_default_figure(explorer, offline_page):
    path, info, payload = explorer
    page, aborted = offline_page
    opened(page, path)
    default = ef.Choice(**{name: info["default"][name] for name in ef.Choice.__dataclass_fields__}).normalised()
    assert shown_key(page) == default.key()
    expected = ef.resolved(payload, default.key())
    assert page.evaluate("attnvizExplorer.figure(attnvizExplorer.choice())") == expected
    assert page.evaluate("document.getElementById('figure').data.length") == len(expected["data"])
    assert plain(drawn_title(page)) == plain(expected["layout"]["title"]["text"])
    assert page.locator("#figure .main-svg").count() >= 1
    assert not aborted  # plotly.js, the figures and the font are all in the file


def test_its_keys_are_the_librarys_for_every_choice(explorer, offline_page):
    path, info, payload = explorer
    page, _ = offline_page
    opened(page, path)
    choices = []
    for choice in ef.plan(seq2seq_capture(), {}, CONTENT.checked()):
        # the choice as a reader leaves it: fields the figure ignores still hold a value
        loose = dataclasses.replace(
            choice,
            aggregation=choice.aggregation or "layer",
            layer=1 if choice.layer is None else choice.layer,
            head=1 if choice.head is None else choice.head,
            threshold=0.3 if choice.threshold is None else choice.threshold,
        )
        choices.append((dataclasses.asdict(loose), choice.key()))
    keys = page.evaluate("(choices) => choices.map(attnvizExplorer.figureKey)", [loose for loose, _ in choices])
    assert keys == [key for _, key in choices]
    assert sorted(page.evaluate("attnvizExplorer.keys()")) == sorted(payload["figures"])


def test_the_reader_picks_the_view_and_the_link_keeps_it(explorer, offline_page):
    path, info, payload = explorer
    page, aborted = offline_page
    opened(page, path)
    other = "zh" if info["default"]["lang"] == "en" else "en"
    choose(page, "lang", other)
    choose(page, "kind", "encoder")
    choose(page, "aggregation", "head")
    choose(page, "layer", 1)
    choose(page, "head", 1)
    choose(page, "view", "lines")
    choose(page, "threshold", 0.3)
    choose(page, "words", "false")
    picked = ef.Choice("weights", "encoder", "lines", "head", 1, 1, False, 0.3, other)
    assert shown_key(page) == picked.key()
    expected = ef.resolved(payload, picked.key())
    assert plain(drawn_title(page)) == plain(expected["layout"]["title"]["text"])
    fragment = page.evaluate("location.hash")
    assert "lang=" + other in fragment and "view=lines" in fragment and "layer=1" in fragment
    labels = page.evaluate("[...document.querySelectorAll('#controls label')].map(l => l.firstChild.textContent)")
    said = ["注意力图", "图形", "层", "头"] if other == "zh" else ["Map", "Figure", "Layer", "Head"]
    assert set(said) <= set(labels), labels
    second = page.context.new_page()  # the link, opened afresh in another tab, shows the same figure
    opened(second, path, fragment)
    assert shown_key(second) == picked.key()
    second.close()
    assert not aborted


def test_a_link_to_a_view_the_file_lacks_shows_the_nearest_and_says_so(explorer, offline_page):
    path, info, _ = explorer
    page, _ = offline_page
    opened(page, path, "#kind=cross&view=lines&threshold=0.7")
    key = shown_key(page).split("|")
    assert key[1:3] == ["cross", info["menu"]["weights"]["cross"]["views"][0]]
    said = page.inner_text("#note")
    assert "view" in said and "threshold" in said
