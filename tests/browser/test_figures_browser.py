"""The hover a person sees, in plotly.js itself: figures drawn in Debian's chromium, the pointer moved onto cells.

The figures carry one label per token and a hovertemplate instead of one hover string per cell; this checks that
plotly.js turns them into the same words `test_figures.hover_label` expects ("早上 → morning: 0.62", "masked").
Skips without playwright or chromium, except in CI (CI=true), where a missing browser is a failure.
"""

from __future__ import annotations

import html

import numpy as np
import plotly.io
import pytest

from attnviz import figures
from tests.support.browser import chromium, require_browser
from tests.support.figure_reading import en_zh_map, hover_label
from tests.support.maps import random_map, tokens_from

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def plot_page(tmp_path_factory):
    require_browser()
    blank = tmp_path_factory.mktemp("plotly") / "blank.html"
    blank.write_text(plotly.io.to_html({"data": [], "layout": {}}, include_plotlyjs=True, div_id="plot"))
    with chromium(viewport=(1400, 1400)) as page:
        page.goto(blank.as_uri())
        page.wait_for_function("window.Plotly !== undefined")
        yield page


def _browser_hover(page, fig, row: int, col: int, trace: int = 0) -> str:
    """Draw `fig`, move the mouse onto cell (row, col) of trace `trace`, return the hover label's text."""
    xaxis, yaxis = (getattr(fig.data[trace], f"{letter}axis") or letter for letter in "xy")
    page.evaluate("json => Plotly.newPlot('plot', JSON.parse(json))", fig.to_json())
    x, y = page.evaluate(
        """([xname, yname, row, col]) => {
            const layout = document.getElementById('plot')._fullLayout;
            const xa = layout[xname.replace('x', 'xaxis')], ya = layout[yname.replace('y', 'yaxis')];
            const plot = document.getElementById('plot').getBoundingClientRect();
            return [plot.left + xa._offset + xa.l2p(col), plot.top + ya._offset + ya.l2p(row)];
        }""",
        [xaxis, yaxis, row, col],
    )
    page.mouse.move(0, 0)
    page.mouse.move(x, y)
    page.wait_for_timeout(100)
    return page.evaluate(
        "Array.from(document.querySelectorAll('.hoverlayer .hovertext text')).map(e => e.textContent).join('')"
    )


def _as_shown(label: str) -> str:
    """A plotly label as the page shows it: line breaks are separate lines (joined here), entities decoded."""
    return html.unescape(label.replace("<br>", ""))


def test_plotly_shows_the_hover_the_tests_expect(plot_page):
    causal = random_map(tokens_from(["the", "cat", "the", "mat", "</s>"]), layers=2, heads=2, causal=True)
    long = random_map(tokens_from([f"t{i}" for i in range(90)]), layers=1, heads=1, causal=True)
    cases = [
        (figures.heatmap(en_zh_map(), layers=0, heads=1), [(0, 1), (1, 0)]),
        (figures.heatmap(en_zh_map(), log_scale=True, style=figures.FigureStyle(lang="zh")), [(0, 1)]),
        (figures.heatmap(causal, layers=1, heads=0), [(2, 0), (4, 2), (0, 3), (1, 4)]),  # repeated "the", masked
        (figures.heatmap(long, max_tokens=30), [(20, 3), (3, 20)]),  # pooled: token ranges, a masked block
        (figures.heatmap(long, query_range=(40, 60), key_range=(30, 70), max_labels=4), [(5, 7), (1, 39)]),
    ]
    for fig, cells in cases:
        for row, col in cells:
            expected = _as_shown(hover_label(fig, row, col))
            assert expected and _browser_hover(plot_page, fig, row, col) == expected
    grid = figures.grid(causal)
    assert _browser_hover(plot_page, grid, 3, 1, trace=3) == _as_shown(hover_label(grid, 3, 1, trace=3))
    assert np.isnan(grid.data[3].z[1][3]) and _browser_hover(plot_page, grid, 1, 3, trace=3) == ""  # no hover
