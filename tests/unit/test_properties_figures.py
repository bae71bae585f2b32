"""Property-based: every figure builds on any valid map, draws exactly the aggregation it names, and labels its axes
with the map's tokens. No rendering here (plotly objects only); tests/integration/test_export.py renders fixed figures."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnviz import figures
from attnviz.errors import InputError
from attnviz.figures.common import token_label
from attnviz.maps import analysis, head_stats
from tests.support.figure_reading import hover_label
from tests.support.strategies import drawn_maps, property_settings


def _selection(data, amap):
    def pick(size, name):
        index = st.integers(-size, size - 1)
        return data.draw(st.none() | index | st.lists(index, min_size=1, max_size=3, unique=True), name)

    return dict(
        layers=pick(amap.num_layers, "layers"),
        heads=pick(amap.num_heads, "heads"),
        head_reduce=data.draw(st.sampled_from(analysis.REDUCTIONS), "head_reduce"),
        layer_reduce=data.draw(st.sampled_from(analysis.REDUCTIONS), "layer_reduce"),
    )


def _z(trace) -> np.ndarray:
    return np.array(trace.z, dtype=np.float64)


@property_settings(60)
@given(drawn=drawn_maps(), log_scale=st.booleans(), max_tokens=st.integers(3, 24), data=st.data())
def test_heatmap_draws_the_aggregation_with_token_labels(drawn, log_scale, max_tokens, data):
    amap = drawn.amap
    selection = _selection(data, amap)
    lang = data.draw(st.sampled_from(["en", "zh"]), "lang")
    fig = figures.heatmap(
        amap, **selection, log_scale=log_scale, max_tokens=max_tokens, style=figures.FigureStyle(lang=lang)
    )
    expected = np.where(analysis.causal_mask(amap), np.nan, analysis.aggregate(amap, **selection))
    queries, keys = expected.shape
    meta = fig.layout.meta
    if meta["query_factor"] == meta["key_factor"] == 1:
        assert queries <= max_tokens and keys <= max_tokens
        expected_z = np.log10(np.clip(expected, 1e-4, None)) if log_scale else expected
        np.testing.assert_allclose(_z(fig.data[0]), expected_z, rtol=1e-6, equal_nan=True)
        assert list(fig.layout.yaxis.ticktext) == [token_label(amap.query_tokens[i]) for i in fig.layout.yaxis.tickvals]
        assert list(fig.layout.xaxis.ticktext) == [token_label(amap.key_tokens[i]) for i in fig.layout.xaxis.tickvals]
        # Hover names every row and column by its token, whether or not it carries a tick label.
        assert fig.layout.yaxis.labelalias == {str(i): token_label(t) for i, t in enumerate(amap.query_tokens)}
        assert fig.layout.xaxis.labelalias == {str(i): token_label(t) for i, t in enumerate(amap.key_tokens)}
        row, col = data.draw(st.integers(0, queries - 1), "row"), data.draw(st.integers(0, keys - 1), "col")
        hovered = hover_label(fig, row, col)
        if np.isnan(expected[row, col]):
            assert hovered == figures.LABELS[lang]["masked"]
        else:
            query, key = token_label(amap.query_tokens[row]), token_label(amap.key_tokens[col])
            assert hovered == f"{query} → {key}: {expected[row, col]:.3g}"
    else:
        factors = math.ceil(queries / max_tokens), math.ceil(keys / max_tokens)
        assert (meta["query_factor"], meta["key_factor"]) == factors
        assert _z(fig.data[0]).shape == (math.ceil(queries / factors[0]), math.ceil(keys / factors[1]))
    assert bool(fig.layout.annotations) == bool(np.isnan(_z(fig.data[0])).any())  # the "grey = masked" key


@property_settings(50)
@given(drawn=drawn_maps(), threshold=st.floats(0, 1), top_k=st.none() | st.integers(1, 5), data=st.data())
def test_alignment_links_are_the_strongest_weights_above_the_threshold(drawn, threshold, top_k, data):
    amap = drawn.amap
    selection = _selection(data, amap)
    fig = figures.alignment(amap, **selection, threshold=threshold, top_k=top_k)
    matrix = analysis.aggregate(amap, **selection)
    keys_trace, queries_trace = fig.data[-2], fig.data[-1]
    assert list(keys_trace.text) == [token_label(t) for t in amap.key_tokens]
    assert list(queries_trace.text) == [token_label(t) for t in amap.query_tokens]
    links = [trace for trace in fig.data if trace.mode == "lines"]
    weights = sorted(float(trace.customdata[0]) for trace in links)
    expected = sorted(w for _, _, w in figures.strongest_links(matrix, threshold, top_k))
    assert weights == expected and all(w >= threshold and w > 0 for w in weights)
    assert fig.layout.meta["links"] == len(links) <= len(amap.query_tokens) * (top_k or len(amap.key_tokens))


@property_settings(40)
@given(drawn=drawn_maps(max_layers=3, max_heads=4), threshold=st.floats(0.01, 0.99), data=st.data())
def test_head_lines_draw_one_line_per_weight_above_the_threshold(drawn, threshold, data):
    amap = drawn.amap
    combine = data.draw(st.sampled_from([None, "mean", "max"]), "combine")
    heads = data.draw(st.none() | st.lists(st.integers(0, amap.num_heads - 1), min_size=1, max_size=3, unique=True))
    layer = data.draw(st.integers(-amap.num_layers, amap.num_layers - 1), "layer")
    fig = figures.head_lines(amap, layers=layer, heads=heads, combine=combine, threshold=threshold)
    head_idx = analysis.select_indices(amap, None, heads)[1]
    groups = [head_idx] if combine else [[h] for h in head_idx]
    expected = 0
    for group in groups:
        matrix = analysis.aggregate(amap, layer, group, combine or "mean")  # (queries, keys)
        expected += int(((matrix >= threshold) & (matrix > 0)).sum())
    drawn_links = sum(trace.meta["links"] for trace in fig.data if trace.mode == "lines")
    assert drawn_links == expected
    token_traces = [trace for trace in fig.data if trace.name == "tokens"]
    assert [list(t.text) for t in token_traces] == [
        [token_label(t) for t in amap.query_tokens],
        [token_label(t) for t in amap.key_tokens],
    ]


@property_settings(25)
@given(drawn=drawn_maps(max_layers=3, max_heads=3, max_tokens=12), max_cells=st.integers(4, 16), data=st.data())
def test_grid_has_one_exact_thumbnail_per_layer_and_head(drawn, max_cells, data):
    amap = drawn.amap
    layers = data.draw(
        st.none() | st.lists(st.integers(0, amap.num_layers - 1), min_size=1, max_size=3, unique=True), "layers"
    )
    fig = figures.grid(amap, layers=layers, max_cells=max_cells)
    layer_idx, head_idx = analysis.select_indices(amap, layers, None)
    assert len(fig.data) == len(layer_idx) * len(head_idx)
    mask = analysis.causal_mask(amap)
    pooled = max(len(amap.query_tokens), len(amap.key_tokens)) > max_cells
    for trace, (layer, head) in zip(fig.data, [(lay, h) for lay in layer_idx for h in head_idx], strict=True):
        if not pooled:
            np.testing.assert_array_equal(_z(trace), np.where(mask, np.nan, amap.weights[layer, head]))
        else:
            assert _z(trace).shape == (
                math.ceil(len(amap.query_tokens) / fig.layout.meta["query_factor"]),
                math.ceil(len(amap.key_tokens) / fig.layout.meta["key_factor"]),
            )


@property_settings(25)
@given(drawn=drawn_maps(), statistic=st.sampled_from(list(head_stats.STATISTICS)))
def test_statistic_grid_shows_the_statistic_or_says_it_does_not_apply(drawn, statistic):
    amap = drawn.amap
    values = head_stats.head_statistics(amap)[statistic]
    if not np.isfinite(values).any():
        with pytest.raises(InputError, match="not defined"):
            figures.statistic_grid(amap, statistic)
        return
    fig = figures.statistic_grid(amap, statistic)
    np.testing.assert_allclose(_z(fig.data[0]), values, equal_nan=True)
