"""The Corpus page in a real browser: a small report opens from its folder, its AER map is drawn, and clicking a
cell of that map opens the head on Translate & align (the scatter overlay is what makes a cell clickable)."""

from __future__ import annotations

import urllib.parse

import pytest

from attnviz.corpus.job import JobConfig, run_job
from attnviz.corpus.shards import JobOptions
from tests.support.browser import chromium, require_browser, streamlit_server, wait_for_app
from tests.support.corpus_files import corpus_file

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpus-browser")
    path, _ = corpus_file(folder, count=4, bad_every=2)
    run_job(JobConfig("demo-zh-en", path, folder / "report", JobOptions(gold=True, segmented=True), shard_size=3))
    return folder / "report"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    require_browser()
    with streamlit_server(log_path=tmp_path_factory.mktemp("streamlit") / "server.log") as (url, _):
        yield url


def test_the_corpus_page_opens_a_report_and_a_click_on_the_aer_map_opens_that_head(app_url, report):
    with chromium() as page:
        page.goto(f"{app_url}/corpus?{urllib.parse.urlencode({'corpus': str(report)})}")
        wait_for_app(page, timeout_ms=180_000)
        assert page.get_by_text("pairs: 4", exact=False).first.is_visible()
        assert page.get_by_text("lines skipped: 2", exact=False).first.is_visible()
        chart = page.locator('[data-testid="stPlotlyChart"]').first
        chart.scroll_into_view_if_needed()
        box = chart.locator(".nsewdrag").first.bounding_box()  # the plot area: 4 heads × 3 layers of cells
        page.mouse.click(box["x"] + box["width"] * (2.5 / 4), box["y"] + box["height"] * (1.5 / 3))  # layer 1, head 2
        page.wait_for_url(lambda url: "corpus" not in urllib.parse.urlparse(url).path, timeout=120_000)
        wait_for_app(page, timeout_ms=180_000)
        query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
        assert query["cross_aggregation"] == ["head"] and query["layer"] == ["1"] and query["head"] == ["2"]
