"""Finding a head in a real browser: on Self-attention with MiniLM, "Which head makes *it* look at *animal*?" is
answered by the head search, whose top head opens in one click with the weight the ranking said (and the weight eager
attention computes); a click on the layer × head grid opens a head, and a click on a token isolates its lines.

Skips without playwright, chromium or the MiniLM package, except in CI (CI=true), where a missing browser fails.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from tests.support import needs
from tests.support.browser import choose_option, chromium, require_browser, streamlit_server, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SENTENCE = "The animal didn't cross the street because it was too tired."
BUTTON = re.compile(r"^L(\d+)·H(\d+): (\d\.\d\d)$")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    require_browser()
    needs.minilm()
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with streamlit_server(log_path=log) as (url, _), chromium(viewport=(1440, 1200)) as browser_page:
        browser_page.attnviz_url = url
        yield browser_page


def _choose(page, label: str, option: re.Pattern) -> str:
    """Pick the first option matching `option` in the selectbox labelled `label`; returns the option's text."""
    text = choose_option(page, label, option)
    wait_for_app(page)
    return text


def _opened(page) -> tuple[str, str]:
    """(layer, head) the page shows, as its link says."""
    return re.search(r"[?&]layer=(\d+)", page.url)[1], re.search(r"[?&]head=(\d+)", page.url)[1]


def _ranked(page) -> list[tuple[int, int, float]]:
    labels = [b.inner_text().strip() for b in page.locator('[data-testid="stMain"] button').all()]
    return [(int(m[1]), int(m[2]), float(m[3])) for m in (BUTTON.match(text) for text in labels) if m]


def _eager_weight(layer: int, head: int) -> float:
    """it → animal in (layer, head) as eager attention computes it (output_attentions), in this process."""
    import torch
    import transformers

    from attnviz.model.load import load_model

    handle = load_model("minilm", "cpu")
    model = transformers.AutoModel.from_pretrained(handle.path, attn_implementation="eager").eval()
    encoded = handle.tokenizer(SENTENCE, return_tensors="pt")
    pieces = handle.tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
    with torch.no_grad():
        attentions = model(**encoded, output_attentions=True).attentions
    return float(attentions[layer][0, head, pieces.index("it"), pieces.index("animal")])


def _click_point(page, chart: int, xaxis: str, yaxis: str, x: float | None, y: float | None) -> None:
    """Click the data point (x, y) of the `chart`-th plotly chart on the page, on axes `xaxis`/`yaxis` ("x2");
    None: the middle of that axis."""
    position = page.evaluate(
        """([index, xname, yname, x, y]) => {
            const plot = document.querySelectorAll('.js-plotly-plot')[index];
            const layout = plot._fullLayout;
            const xa = layout[xname.replace('x', 'xaxis')], ya = layout[yname.replace('y', 'yaxis')];
            plot.scrollIntoView({block: 'center'});  // the page scrolls inside its main area: bring the chart into view
            const box = plot.getBoundingClientRect();
            const middle = axis => (axis.range[0] + axis.range[1]) / 2;
            x = x === null ? middle(xa) : x;
            y = y === null ? middle(ya) : y;
            return [box.left + xa._offset + xa.l2p(x), box.top + ya._offset + ya.l2p(y)];
        }""",
        [chart, xaxis, yaxis, x, y],
    )
    page.mouse.move(position[0], position[1])
    page.wait_for_timeout(300)
    page.mouse.click(position[0], position[1])
    wait_for_app(page)


def test_the_head_search_finds_the_head_that_sends_it_to_animal_and_opens_it(page):
    page.goto(f"{page.attnviz_url}/self-attention?model=minilm&text={quote('A cat.')}")
    wait_for_app(page, timeout_ms=300_000)  # the first run loads MiniLM
    box = page.get_by_label("Text", exact=True)
    box.fill(SENTENCE)
    box.press("Enter")
    page.get_by_text("tired", exact=False).first.wait_for(timeout=90_000)
    wait_for_app(page)
    query = _choose(page, "Query token (looks)", re.compile(r"^it #\d+$"))
    key = _choose(page, "Key token (looked at)", re.compile(r"^animal #\d+$"))
    page.get_by_role("button", name=BUTTON).first.wait_for(timeout=90_000)
    ranked = _ranked(page)
    assert len(ranked) >= 2 and [w for *_, w in ranked] == sorted((w for *_, w in ranked), reverse=True)
    layer, head, weight = ranked[0]
    assert weight > 0.5  # a head really sends "it" to "animal"
    assert abs(_eager_weight(layer, head) - weight) <= 0.005  # the ranking's weight is eager attention's

    page.get_by_role("button", name=BUTTON).first.click()
    wait_for_app(page)
    page.wait_for_function("want => location.search.includes(want)", arg=f"layer={layer}&head={head}", timeout=30_000)
    assert _opened(page) == (str(layer), str(head))
    main = page.locator('[data-testid="stMain"]').inner_text()
    said = f"(self-attention · layer {layer} · head {head}), it → animal has weight {weight:.2f}"
    assert said in main
    assert "find_query=" in page.url and "target=" not in page.url
    assert query.startswith("it #") and key.startswith("animal #")

    # The grid opens the second-ranked head on a click; its thumbnail's middle is the click target.
    second_layer, second_head, _ = ranked[1]
    charts = page.locator(".js-plotly-plot")
    grid = charts.count() - 1
    columns = page.evaluate(
        "i => document.querySelectorAll('.js-plotly-plot')[i]._fullLayout._subplots.cartesian.length", grid
    )
    heads = 12  # MiniLM: 6 layers × 12 heads
    assert columns == 6 * heads
    axis = second_layer * heads + second_head + 1
    suffix = "" if axis == 1 else str(axis)
    _click_point(page, grid, f"x{suffix}", f"y{suffix}", None, None)
    page.wait_for_function(
        "want => [...document.querySelectorAll('[data-testid=\"stMain\"]')].some(m => m.innerText.includes(want))",
        arg=f"layer {second_layer} · head {second_head}), it → animal",
        timeout=60_000,
    )
    page.wait_for_function(
        "want => location.search.includes(want)", arg=f"layer={second_layer}&head={second_head}", timeout=30_000
    )
    assert _opened(page) == (str(second_layer), str(second_head))

    # A click on a query token in the head lines keeps only its lines.
    lines = 1  # the heatmap, then the head lines, then the grid
    index = int(query.split("#")[1])
    _click_point(page, lines, "x", "y", 0.0, -float(index))
    page.get_by_text(f"Only the lines of {query} are shown").wait_for(timeout=60_000)
