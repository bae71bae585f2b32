"""The query–key space and the sentence-steps figures: points and roles, the ring, the outlined row or column, the
picked point read back from a selection and from a link, every number hoverable, both languages."""

import numpy as np
import pytest

from app_pages.query_key_space.choices import picked_from_field, picked_to_field, selection_of
from attnviz import figures
from attnviz.attention.vectors import HeadVectors
from attnviz.attention.walkthrough import sentence_walkthrough
from attnviz.errors import InputError
from attnviz.figures import qkspace, text_fit
from attnviz.figures.sentence_steps import sentence_steps
from attnviz.maps.projection import project_queries_keys
from tests.support.maps import random_map, tokens_from

QUERIES = tokens_from(["早上", "好", "！"])
KEYS = tokens_from(["Good", "morning", "!", "</s>"], specials=("</s>",))


def vectors(d: int = 6, values: bool = True, seed: int = 0) -> HeadVectors:
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(3, d)), rng.normal(size=(4, d)), rng.normal(size=(4, d))
    return HeadVectors(
        "cross",
        1,
        2,
        "model.decoder.layers.1.encoder_attn",
        QUERIES,
        KEYS,
        q,
        k,
        v if values else None,
        d**-0.5,
        None,
        2,
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("color_by", qkspace.COLOR_BY)
def test_queries_and_keys_are_two_traces_told_apart_with_their_tokens(lang, color_by):
    head = vectors()
    projection = project_queries_keys(head.queries, head.keys)
    fig = qkspace.qk_space(
        projection,
        QUERIES,
        KEYS,
        color_by=color_by,
        kind="cross",
        layer=1,
        head=2,
        style=figures.FigureStyle(lang=lang),
    )
    queries, keys = fig.data[:2]
    assert queries.marker.symbol == "circle" and keys.marker.symbol == "diamond"
    np.testing.assert_allclose(queries.x, projection.queries[:, 0])
    assert [c[0] for c in queries.customdata] == ["query"] * 3 and [c[1] for c in keys.customdata] == [0, 1, 2, 3]
    assert [c[2] for c in keys.customdata] == ["Good", "morning", "!", "&lt;/s&gt;"]  # escaped for plotly
    assert "%{customdata[2]}" in queries.hovertemplate
    assert fig.layout.meta["view"] == "qk_space" and fig.layout.meta["queries"] == 3
    assert ("交叉注意力" if lang == "zh" else "cross-attention") in fig.layout.title.text
    if color_by == "token":
        assert keys.marker.color[2] != queries.marker.color[2]  # "!" and "！" are two texts: two colours
    else:
        assert list(keys.marker.color) == [0, 1, 2, 3]


def test_the_same_token_text_gets_the_same_colour():
    tokens = tokens_from(["cat", "sat", "cat"])
    projection = project_queries_keys(np.eye(3), np.eye(3))
    fig = qkspace.qk_space(projection, tokens, tokens, color_by="token")
    colours = list(fig.data[0].marker.color)
    assert colours[0] == colours[2] != colours[1]


def test_a_picked_point_is_ringed_and_outlined_in_the_heatmap():
    head = vectors()
    projection = project_queries_keys(head.queries, head.keys)
    fig = qkspace.qk_space(projection, QUERIES, KEYS, selected=("key", 1))
    ring = fig.data[2]
    assert (ring.x[0], ring.y[0]) == (projection.keys[1, 0], projection.keys[1, 1])
    amap = random_map(QUERIES, KEYS, layers=1, heads=1)
    column = qkspace.highlight(figures.heatmap(amap), "key", 1).layout.shapes[0]
    assert (column.x0, column.x1, column.y0, column.y1) == (0.5, 1.5, -0.5, 2.5)
    row = qkspace.highlight(figures.heatmap(amap), "query", 2).layout.shapes[0]
    assert (row.x0, row.x1, row.y0, row.y1) == (-0.5, 3.5, 1.5, 2.5)
    with pytest.raises(InputError, match="query or a key"):
        qkspace.highlight(figures.heatmap(amap), "value", 0)


def test_a_selection_and_a_link_give_the_picked_point_back():
    event = {"selection": {"points": [{"curve_number": 1, "customdata": ["key", 3, "</s>"]}]}}
    assert qkspace.picked_point(selection_of(event)) == ("key", 3)
    assert qkspace.picked_point(selection_of({"selection": {"points": []}})) is None
    assert qkspace.picked_point({"points": [{"customdata": None}]}) is None  # the ring: no customdata
    assert picked_to_field(("query", 2)) == "q2" and picked_from_field("q2", 3, 4) == ("query", 2)
    assert picked_from_field("k3", 3, 4) == ("key", 3)
    assert picked_from_field("k4", 3, 4) is None and picked_from_field("x1", 3, 4) is None
    assert picked_from_field("", 3, 4) is None


def test_mismatched_tokens_and_colours_are_refused():
    projection = project_queries_keys(np.eye(3), np.eye(3))
    with pytest.raises(InputError, match="points"):
        qkspace.qk_space(projection, QUERIES[:2], KEYS[:3])
    with pytest.raises(InputError, match="colour"):
        qkspace.qk_space(projection, QUERIES, KEYS[:3], color_by="size")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_number_of_the_steps_is_in_a_cell_with_a_hover(lang):
    head = vectors(d=5)
    walk = sentence_walkthrough(head, 1, mask=np.array([0.0, 0.0, -3.4e38, 0.0]), captured=np.zeros(4))
    fig = sentence_steps(walk, style=figures.FigureStyle(lang=lang))
    traces = list(fig.data)
    q_strip, key_strip = traces[0], traces[1]
    np.testing.assert_allclose(np.array(q_strip.z, dtype=float), head.queries[[1]])
    np.testing.assert_allclose(np.array(key_strip.z, dtype=float), head.keys)
    assert all(trace.hovertemplate for trace in traces)
    scores = traces[2]
    expected = head.keys @ head.queries[1]
    assert np.isnan(np.array(scores.z, dtype=float)[2, 0])  # the hidden key has no score…
    np.testing.assert_allclose(np.array(scores.z, dtype=float)[[0, 1, 3], 0], expected[[0, 1, 3]])
    weights = np.array(traces[4].z, dtype=float)[:, 0]
    assert np.nansum(weights) == pytest.approx(1.0) and walk.steps.weights[0, 2] == 0.0  # … and weight exactly 0
    assert fig.layout.meta["view"] == "sentence_steps" and fig.layout.meta["difference"] == walk.difference
    output, values = traces[-2], traces[-1]
    np.testing.assert_allclose(np.array(output.z, dtype=float)[0], walk.steps.weights[0] @ head.values)
    np.testing.assert_allclose(np.array(values.z, dtype=float), head.values)


def test_without_values_the_figure_stops_at_the_softmax():
    walk = sentence_walkthrough(vectors(values=False), 0)
    fig = sentence_steps(walk)
    assert len(fig.data) == 2 + 3  # q, K, then q·k, scaled, softmax


@pytest.mark.parametrize("color_by", qkspace.COLOR_BY)
def test_both_figures_export_without_a_browser(color_by):
    from attnviz import export

    head = vectors()
    space = qkspace.qk_space(
        project_queries_keys(head.queries, head.keys),
        QUERIES,
        KEYS,
        color_by=color_by,
        selected=("query", 0),
        style=figures.FigureStyle(lang="zh"),
    )
    steps = sentence_steps(sentence_walkthrough(head, 0, captured=np.full(4, 0.25)))
    for fig in (space, steps):
        assert export.figure_bytes(fig, "svg", engine="static").lstrip().startswith((b"<?xml", b"<svg"))
        assert export.figure_bytes(fig, "pdf", engine="static").startswith(b"%PDF")
        assert export.figure_bytes(fig, "png", engine="static").startswith(b"\x89PNG")


def test_the_figure_says_equal_only_when_the_rows_are():
    head = vectors()
    rebuilt = sentence_walkthrough(head, 0).steps.weights[0]
    same = sentence_steps(sentence_walkthrough(head, 0, captured=rebuilt + 1e-7))
    other = sentence_steps(sentence_walkthrough(head, 0, captured=np.full(4, 0.25)))
    assert "equals" in same.layout.title.text and "differs" not in same.layout.title.text
    assert "differs" in other.layout.title.text and "equals" not in other.layout.title.text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_steps_column_titles_fit_their_columns(lang):
    walk = sentence_walkthrough(vectors(d=5), 1, captured=np.zeros(4))
    fig = sentence_steps(walk, style=figures.FigureStyle(lang=lang))
    plot_px = fig.layout.width - fig.layout.margin.l - fig.layout.margin.r
    second_row = [axis for name, axis in fig.layout.to_plotly_json().items() if name.startswith("xaxis")][-5:-1]
    titles = [a for a in fig.layout.annotations if a.y is not None and a.y < 0.9]  # the columns' titles
    for axis in second_row:
        low, high = axis["domain"]
        inside = [a for a in titles if low <= a.x <= high]
        for title in inside:  # "q · k 点积乘以 0.1581softmax 权重…" ran into each other
            assert text_fit.text_width(title.text, title.font.size or 16) <= (high - low) * plot_px + 8, title.text
