"""The value-weighted view in a real browser: a link with weighting=value-norm opens the Translate & align page with
every figure weighted by value norm, the switch set, and the value norms drawn as bars above the heatmap's keys."""

from __future__ import annotations

import pytest

from tests.support.browser import served_page, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHARTS = '[data-testid="stPlotlyChart"]'
FIRST_DRAW_MS = 300_000  # the first run loads torch, transformers and the model (slow on a busy machine)


@pytest.fixture(scope="module")
def page_at(tmp_path_factory):
    yield from served_page(tmp_path_factory)


def test_a_link_opens_the_figures_weighted_by_value_norm(page_at):
    page, url = page_at
    page.goto(f"{url}/?weighting=value-norm&view=head&layer=2&head=0")
    wait_for_app(page, timeout_ms=FIRST_DRAW_MS)
    assert not page.locator('[data-testid="stException"]').count()
    assert page.get_by_role("radio", name="weighted by value norm").is_checked()
    titles = page.locator(f"{CHARTS} .gtitle").all_text_contents()
    assert len(titles) == 2 and all("weighted by value norm" in title for title in titles), titles
    heatmap = page.locator(CHARTS).filter(has=page.locator(".barlayer"))
    assert heatmap.count() == 1  # the heatmap, with its bar strip
    bars = heatmap.locator(".barlayer .point")
    keys = heatmap.locator(".xtick").count()
    assert bars.count() == keys > 0  # one value-norm bar above each key
    assert "‖f(x)‖" in "".join(heatmap.locator(".g-y2title").all_text_contents())

    page.get_by_text("weights", exact=True).click()  # the switch back: plain weights, no bars
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('{CHARTS} .gtitle')]
                   .every(t => !t.textContent.includes('weighted by value norm'))""",
        timeout=FIRST_DRAW_MS,
    )
    wait_for_app(page, timeout_ms=FIRST_DRAW_MS)
    assert not page.locator(f"{CHARTS} .barlayer .point").count()
    assert "weighting=" not in page.url
