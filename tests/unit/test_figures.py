from dataclasses import replace

import numpy as np
import pytest

from attnviz import export, figures
from attnviz.attention.walkthrough import walkthrough
from attnviz.errors import InputError
from attnviz.figures import FigureStyle
from attnviz.figures.common import token_label
from attnviz.figures.fonts import plain_text, require_cjk_font
from attnviz.figures.layout import fit_heatmap
from attnviz.maps import analysis, head_stats
from attnviz.text.tokens import readable
from attnviz.types import Token
from attnviz.view.looking import seed_looking_using
from tests.support.figure_reading import _axis, _axis_text, en_zh_map, hover_label  # noqa: F401
from tests.support.maps import random_map, seed_pair_map, tokens_from


def test_heatmap_ticks_are_tokens_and_z_is_the_aggregation():
    amap = seed_pair_map(layers=2, heads=3)
    fig = figures.heatmap(amap, layers=[0, 1], heads=[0, 2], head_reduce="max")
    trace = fig.data[0]
    assert list(fig.layout.xaxis.ticktext) == ["早上", "好", "！", "&lt;/s&gt;"]  # plotly reads labels as HTML
    assert list(fig.layout.yaxis.ticktext) == ["Good", "Morning", "!"]
    np.testing.assert_allclose(trace.z, analysis.aggregate(amap, [0, 1], [0, 2], "max"))
    assert trace.zmin == 0 and trace.zmax == pytest.approx(float(np.max(trace.z)))
    assert list(fig.layout.yaxis.range) == [2.5, -0.5]  # first query on top, the axis no longer than the rows
    causal = figures.heatmap(random_map(tokens_from("a b c d".split()), causal=True))
    assert len(causal.data) == 2 and list(causal.layout.yaxis.range) == [3.5, -0.5]  # not padded for the outline


def test_heatmap_hover_and_title_name_tokens_model_layer_and_head():
    fig = figures.heatmap(en_zh_map(), layers=0, heads=1, style=FigureStyle(model="demo-en-zh"))
    assert hover_label(fig, 0, 1) == "早上 → morning: 0.62"
    assert fig.data[0].text is None and fig.data[0].customdata is None  # no string or number per cell besides z
    assert fig.layout.title.text == "demo-en-zh · cross-attention · layer 0 · head 1"
    zh = figures.heatmap(en_zh_map(), layers=0, heads=1, style=FigureStyle(lang="zh", labels={"key": "源词元"}))
    assert "第 0 层" in zh.layout.title.text and "第 1 头" in zh.layout.title.text
    assert zh.layout.xaxis.title.text == "源词元" and zh.layout.yaxis.title.text == "查询 (Query)"
    assert figures.heatmap(en_zh_map(), style=FigureStyle(title="我的标题")).layout.title.text == "我的标题"
    with pytest.raises(InputError, match="language"):
        figures.heatmap(en_zh_map(), style=FigureStyle(lang="fr"))


def test_heatmap_masked_cells_are_nan_on_a_distinct_background():
    amap = random_map(tokens_from(list("abcd")), causal=True)
    fig = figures.heatmap(amap, layers=0, heads=0)
    z = np.array(fig.data[0].z, dtype=float)
    assert np.isnan(z[np.triu_indices(4, 1)]).all() and np.isfinite(z[np.tril_indices(4)]).all()
    assert fig.layout.plot_bgcolor == figures.MASKED_COLOR
    assert hover_label(fig, 0, 0) == f"a → a: {z[0, 0]:.3g}" and hover_label(fig, 3, 2) == f"d → c: {z[3, 2]:.3g}"
    assert [hover_label(fig, row, key) for row, key in zip(*np.triu_indices(4, 1))] == ["masked"] * 6
    assert any("masked" in a.text for a in fig.layout.annotations)
    plain = figures.heatmap(random_map(tokens_from(list("ab"))))
    assert not plain.layout.annotations  # nothing masked, no legend for it
    assert len(plain.data) == 1  # and no masked outline


def test_heatmap_log_scale_colours_log_weights_but_hovers_weights():
    amap = en_zh_map()
    fig = figures.heatmap(amap, log_scale=True, log_floor=1e-3)
    np.testing.assert_allclose(fig.data[0].z, np.log10(analysis.aggregate(amap)), rtol=1e-6)
    assert list(fig.data[0].colorbar.ticktext) == ["1.0e-03", "0.01", "0.10"]
    assert hover_label(fig, 0, 1) == "早上 → morning: 0.62"  # the weight, not its logarithm
    assert "log scale" in fig.layout.title.text


def test_large_heatmap_is_pooled_with_few_labels_and_a_range_gives_exact_values():
    amap = random_map(tokens_from([f"t{i}" for i in range(600)]), layers=1, heads=1, causal=True)
    fig = figures.heatmap(amap, max_tokens=200, pool="max")
    z = np.array(fig.data[0].z, dtype=float)
    masked = np.where(analysis.causal_mask(amap), np.nan, amap.weights[0, 0])
    assert z.shape == (200, 200)
    np.testing.assert_allclose(z, analysis.downsample(masked, 3, 3, "max"), equal_nan=True)
    assert len(fig.layout.xaxis.ticktext) <= 64 and fig.layout.xaxis.ticktext[1].startswith("#")
    assert "max-pool" in fig.layout.title.text and fig.layout.meta["query_factor"] == 3
    assert hover_label(fig, 101, 5) == f"#303–305 t303 → #15–17 t15: {format(z[101, 5], '.3g')}"
    assert hover_label(fig, 5, 101) == "masked"  # every cell of this block is masked
    part = figures.heatmap(amap, query_range=(300, 340), key_range=(280, 330))
    exact = np.array(part.data[0].z, dtype=float)
    np.testing.assert_allclose(
        exact,
        np.where(analysis.causal_mask(amap)[300:340, 280:330], np.nan, amap.weights[0, 0, 300:340, 280:330]),
        equal_nan=True,
    )
    assert part.layout.meta["query_offset"] == 300 and part.layout.xaxis.ticktext[0] == "t280"
    assert hover_label(part, 39, 1).startswith("t339 → t281: ") and hover_label(part, 0, 49) == "masked"
    # A box selected on the pooled view (bins 100–102 × 90–95) maps back to tokens 300–308 × 270–287.
    assert figures.selected_ranges(fig, x=(89.6, 95.2), y=(99.7, 102.4)) == ((300, 309), (270, 288))
    assert figures.selected_ranges(part, x=(0, 3), y=(-0.5, 0.4)) == ((300, 301), (280, 284))
    mean = figures.heatmap(amap, max_tokens=200, pool="mean")
    np.testing.assert_allclose(mean.data[0].z, analysis.downsample(masked, 3, 3, "mean"), equal_nan=True)


def test_a_head_pooled_elsewhere_draws_as_the_heatmap_pools_it():
    amap = random_map(tokens_from([f"t{i}" for i in range(50)]), layers=2, heads=2, causal=True)
    masked = np.where(analysis.causal_mask(amap), np.nan, amap.weights[1, 0])
    pooled = analysis.Pooled(analysis.downsample(masked, 4, 4, "mean"), 4, 4, "mean")
    style = FigureStyle(model="m", lang="zh")
    fig = figures.pooled_heatmap(pooled, amap.query_tokens, amap.key_tokens, layer=1, head=0, style=style)
    same = figures.heatmap(amap, layers=1, heads=0, max_tokens=13, pool="mean", style=style)
    np.testing.assert_array_equal(np.array(fig.data[0].z, float), np.array(same.data[0].z, float))
    assert "平均池化" in fig.layout.title.text and fig.layout.title.text == same.layout.title.text
    assert fig.layout.meta == same.layout.meta and list(fig.layout.xaxis.ticktext) == list(same.layout.xaxis.ticktext)
    assert hover_label(fig, 12, 2) == f"#48–49 t48 → #8–11 t8: {pooled.values[12, 2]:.3g}"
    assert hover_label(fig, 0, 12) == "已遮蔽"
    assert figures.selected_ranges(fig, x=(1.6, 2.4), y=(11.6, 12.4)) == ((48, 50), (8, 12))
    with pytest.raises(InputError, match="make 5 × 13"):
        figures.pooled_heatmap(pooled, amap.query_tokens[:20], amap.key_tokens)
    with pytest.raises(InputError, match="Unknown map kind"):
        figures.pooled_heatmap(pooled, amap.query_tokens, amap.key_tokens, kind="sideways")


def test_downsample_ignores_masked_cells():
    matrix = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 5.0]])
    np.testing.assert_allclose(analysis.downsample(matrix, 2, 2, "max"), [[1.0, 5.0]])
    np.testing.assert_allclose(analysis.downsample(matrix, 2, 2, "mean"), [[1.0, 4.0]])
    assert np.isnan(analysis.downsample(np.full((2, 2), np.nan), 2, 2, "max")).all()


# ---------------------------------------------------------------------------------------------------------------------
# alignment


def _links(fig):
    return [t for t in fig.data if t.mode == "lines"]


def test_alignment_seed_figure_links_follow_weights():
    amap = figures.seed_alignment_map()
    fig = figures.alignment(amap, threshold=0.0, top_k=None)
    links = _links(fig)
    assert len(links) == 9
    weights = [t.customdata[0] for t in links]
    widths = [t.line.width for t in links]
    opacities = [t.opacity for t in links]
    assert widths == [figures.link_width(w) for w in weights] and opacities == [
        figures.link_opacity(w) for w in weights
    ]
    order = np.argsort(weights)
    assert np.all(np.diff(np.array(widths)[order]) >= 0) and np.all(np.diff(np.array(opacities)[order]) >= 0)
    strongest = {t.name for t in links if t.customdata[0] > 0.7}
    assert strongest == {"Good → 好", "morning → 早上", "! → ！"}  # as the demo translator writes it
    tokens = [t for t in fig.data if t.mode == "markers+text"]
    assert list(tokens[0].text) == ["早上", "好", "！"] and list(tokens[1].text) == ["Good", "morning", "!"]
    assert all(y == 1.0 for y in tokens[0].y) and all(y == 0.0 for y in tokens[1].y)  # source above target


@pytest.mark.parametrize("long_word", ["wigigigigigratiowigigigigi", "中华人民共和国国务院新闻办公室发布会"])
def test_alignment_of_a_given_height_keeps_its_token_lines_apart_however_long_a_word(long_word):
    """A very long word drawn upright must not squeeze the two token lines (and their Source/Target ticks) together
    in a figure of fixed height (an export size): its labels are drawn smaller instead."""
    source = tokens_from(["人工", "智能", "正在", "改变", "世界"], "人工智能正在改变世界")
    words = ["The", long_word, "is", "changing", "the", "world", "now", "and", "then", "again"]
    amap = random_map(tokens_from(words), source, layers=1, heads=1)
    fig = figures.alignment(amap, style=FigureStyle(width=600, height=420))
    low, high = fig.layout.yaxis.range
    plot_px = 420 - fig.layout.margin.t - fig.layout.margin.b
    lines_apart = plot_px / (high - low)  # px between y = 0 (target) and y = 1 (source)
    assert lines_apart >= 0.25 * plot_px, (lines_apart, plot_px)
    assert fig.layout.meta["labels"]["queries"]["angle"] == -90  # upright: the case that squeezed


def test_alignment_threshold_and_top_k_per_target_token():
    amap = seed_pair_map(layers=1, heads=1, seed=3)
    matrix = amap.weights[0, 0]
    fig = figures.alignment(amap, threshold=0.1, top_k=2)
    links = _links(fig)
    expected = figures.strongest_links(matrix, 0.1, 2)
    assert len(links) == len(expected) and fig.layout.meta["links"] == len(expected)
    for query in range(3):
        row = [w for q, _, w in expected if q == query]
        assert len(row) <= 2 and all(w >= 0.1 for w in row)
        assert row == sorted((w for w in matrix[query] if w >= 0.1), reverse=True)[:2]
    hover = next(t for t in fig.data if t.name == "hover")
    assert len(hover.text) == len(expected) and "→" in hover.text[0]
    with pytest.raises(InputError, match="top_k"):
        figures.alignment(amap, top_k=0)


# ---------------------------------------------------------------------------------------------------------------------
# head lines


def test_head_lines_colour_links_by_head_and_combine_heads():
    amap = random_map(tokens_from("the cat sat down".split()), layers=2, heads=4, causal=True)
    fig = figures.head_lines(amap, layers=1, heads=[0, 2], threshold=0.05)
    link_traces = [t for t in fig.data if t.mode == "lines"]
    assert {tuple(t.meta["heads"]) for t in link_traces} == {(0,), (2,)}
    colors = {t.meta["heads"][0]: t.line.color for t in link_traces}
    assert colors[0] != colors[2]
    for head in (0, 2):  # every weight ≥ threshold is drawn exactly once, in a band that holds it
        drawn = sum(t.meta["links"] for t in link_traces if t.meta["heads"] == [head])
        assert drawn == int((amap.weights[1, head] >= 0.05).sum())
        bands = sorted((t.meta["low"], t.opacity, t.line.width) for t in link_traces if t.meta["heads"] == [head])
        assert [b[1] for b in bands] == sorted(b[1] for b in bands)  # stronger band, more opaque
    assert [t.name for t in fig.data if t.showlegend] == ["head 0", "head 2"]
    combined = figures.head_lines(amap, layers=1, heads=[0, 2], combine="mean")
    assert len({t.line.color for t in combined.data if t.mode == "lines"}) == 1
    assert [t.name for t in combined.data if t.showlegend] == ["mean of heads 0, 2"]
    drawn = sum(t.meta["links"] for t in combined.data if t.mode == "lines")
    assert drawn == int((amap.weights[1, [0, 2]].mean(0) >= 0.05).sum())
    one = figures.head_lines(amap, layers=1, heads=0, query=3, threshold=0.05)
    assert all(y == -3.0 for t in one.data if t.mode == "lines" for y in t.y[0::3])  # every link starts at query 3


# ---------------------------------------------------------------------------------------------------------------------
# grid and statistics


def test_grid_has_one_heatmap_per_layer_and_head_with_its_weights():
    amap = random_map(tokens_from(list("abcde")), layers=2, heads=3, causal=True)
    fig = figures.grid(amap)
    assert len(fig.data) == 6 and fig.layout.meta["layers"] == [0, 1]
    mask = analysis.causal_mask(amap)
    for index, trace in enumerate(fig.data):
        layer, head = divmod(index, 3)
        np.testing.assert_allclose(trace.z, np.where(mask, np.nan, amap.weights[layer, head]), equal_nan=True)
        assert trace.coloraxis == "coloraxis"
    assert [a.text for a in fig.layout.annotations][:3] == ["head 0", "head 1", "head 2"]
    assert hover_label(fig, 1, 0, trace=4) == f"layer 1 · head 1<br>b → a: {amap.weights[1, 1, 1, 0]:.3g}"
    pooled = figures.grid(random_map(tokens_from([f"w{i}" for i in range(100)]), layers=1, heads=1), max_cells=25)
    assert np.array(pooled.data[0].z).shape == (25, 25)
    assert hover_label(pooled, 2, 24).startswith("layer 0 · head 0<br>#8–11 w8 → #96–99 w96: ")


def test_statistic_grid_shows_the_statistic():
    amap = random_map(tokens_from(list("abcd")), layers=2, heads=3)
    fig = figures.statistic_grid(amap, "previous_token")
    np.testing.assert_allclose(fig.data[0].z, head_stats.head_statistics(amap)["previous_token"])
    assert fig.data[0].text[1][2] == f"{head_stats.head_statistics(amap)['previous_token'][1, 2]:.2f}"
    with pytest.raises(InputError, match="not defined for cross"):
        figures.statistic_grid(seed_pair_map(), "distance")
    with pytest.raises(InputError, match="Unknown head statistic"):
        figures.statistic_grid(amap, "beauty")


def test_statistic_grid_draws_statistics_computed_elsewhere():
    amap = random_map(tokens_from(list("abcd")), layers=2, heads=3, causal=True)
    computed = head_stats.head_statistics(amap)
    fig = figures.statistic_grid(values=computed, statistic="distance", kind="decoder", style=FigureStyle(model="m"))
    np.testing.assert_array_equal(fig.data[0].z, computed["distance"])
    assert fig.layout.title.text == "m · decoder self-attention · Mean attention distance"
    assert figures.statistic_grid(values=computed).layout.title.text == "Entropy (nats)"  # no kind given, none named
    with pytest.raises(InputError, match="values="):
        figures.statistic_grid()
    with pytest.raises(InputError, match="holds no 'sink'"):
        figures.statistic_grid(values={"entropy": computed["entropy"]}, statistic="sink")
    with pytest.raises(InputError, match=r"\(layers, heads\) array"):
        figures.statistic_grid(values={"entropy": np.ones(3)})
    with pytest.raises(InputError, match="not defined for cross"):
        figures.statistic_grid(values=head_stats.head_statistics(seed_pair_map()), statistic="distance", kind="cross")
    with pytest.raises(InputError, match="Unknown map kind"):
        figures.statistic_grid(values=computed, kind="sideways")


# ---------------------------------------------------------------------------------------------------------------------
# explainer figures


def test_explainer_shows_each_step_of_the_walk_through():
    steps = walkthrough(figures.SEED_Q, figures.SEED_K, figures.SEED_V)
    fig = figures.explainer(steps)
    expected = [steps.query, steps.key.T, steps.scores, steps.scaled_scores, steps.weights, steps.value, steps.context]
    assert len(fig.data) == len(expected)
    for trace, matrix in zip(fig.data, expected):
        np.testing.assert_allclose(trace.z, matrix)
        assert trace.text[0][0] == f"{matrix[0, 0]:.2f}" and trace.texttemplate == "%{text}"
    assert figures.SEED_Q.shape == (3, 2) and figures.SEED_K.shape == figures.SEED_V.shape == (4, 2)
    assert "÷1.41" in fig.layout.meta["panels"][3]
    assert len(figures.explainer(walkthrough(figures.SEED_Q, figures.SEED_K, figures.SEED_V, scaled=False)).data) == 6


def test_mixture_draws_where_the_query_looks_beside_what_it_uses():

    seed = seed_looking_using()
    fig = figures.mixture(figures.SEED_MIXTURE, seed.contributions)
    looked, used = fig.data[0], fig.data[1]
    assert list(fig.layout.xaxis.ticktext) == ["鹿", "牛", "羊", "驴", "青蛙"]
    np.testing.assert_allclose(looked.y, [1 / 3, 1 / 6, 1 / 4, 1 / 4, 0])
    assert list(looked.text) == ["1/3", "1/6", "1/4", "1/4", "0"]
    np.testing.assert_allclose(used.y, seed.contributions)  # beside each weight, its value-zeroing contribution
    assert np.all(np.asarray(used.x) > np.asarray(looked.x))  # each key's two bars side by side, not stacked
    assert used.y[0] == 0.0 and looked.y[0] == max(looked.y)  # 鹿: looked at most, not used
    assert fig.layout.title.text == "四不像 = 1/3·v(鹿) + 1/6·v(牛) + 1/4·v(羊) + 1/4·v(驴) + 0·v(青蛙)"  # values mixed
    bottom = fig.data[2:]
    rows = {name: [p for p in bottom if p.y[0] == name] for name in (looked.name, used.name)}
    assert sum(p.x[0] for p in rows[looked.name]) == pytest.approx(1.0)
    assert sum(p.x[0] for p in rows[used.name]) == pytest.approx(1.0)
    assert "鹿" not in [p.name for p in rows[used.name]]  # the output does not take 鹿's part, though it looks most
    assert "uses" in used.name and "looks" in looked.name
    zh = figures.mixture(figures.SEED_MIXTURE, seed.contributions, style=figures.FigureStyle(lang="zh"))
    assert "用到" in zh.data[1].name and "看向" in zh.data[0].name
    with pytest.raises(InputError, match="sum to 1"):
        figures.mixture([("a", 0.5), ("b", 0.2)], [0.5, 0.5])
    with pytest.raises(InputError, match="one contribution per key"):
        figures.mixture(figures.SEED_MIXTURE, [0.5, 0.5])


def test_whitespace_and_long_tokens_stay_readable():
    tokens = [Token(" ", 0, 1), Token("x" * 40, 1, 41)]
    fig = figures.heatmap(random_map(tokens))
    assert fig.layout.xaxis.ticktext[0] == "␣" and len(fig.layout.xaxis.ticktext[1]) == 16


def _shipped_font_characters() -> dict[str, set[int]]:
    """The characters each font a figure is drawn with has a glyph for: the packaged Noto Sans SC (the screen's first
    choice and both export engines'), and DejaVu Sans (the static engine's fallback)."""
    from pathlib import Path

    import matplotlib
    from fontTools.ttLib import TTFont

    dejavu = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
    return {
        name: set(TTFont(path, fontNumber=0).getBestCmap())
        for name, path in (("Noto Sans SC", require_cjk_font()), ("DejaVu Sans", dejavu))
    }


def test_control_tokens_are_drawn_with_characters_every_shipped_font_has():

    fonts = _shipped_font_characters()
    controls = [*range(0x20), 0x7F]
    drawn = {}
    for code in controls:
        for text in (chr(code), readable(chr(code))):  # raw, or as a captured token holds it (␊)
            label = plain_text(token_label(Token(text, 0, 1)))  # what every figure's label draws
            for name, characters in fonts.items():
                assert all(ord(c) in characters for c in label), (hex(code), label, name)
            drawn[code] = label
    assert drawn[0x0A] == "\\n" and drawn[0x09] == "\\t" and drawn[0x1B] == "\\x1b"
    assert len(set(drawn.values())) == len(controls)  # each control character its own label


def test_a_newline_token_exports_without_a_missing_glyph():
    import warnings

    tokens = [Token("a", 0, 1), Token(readable("\n"), 1, 2), Token(readable("\t"), 2, 3)]
    fig = figures.heatmap(random_map(tokens))
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        export.figure_bytes(fig, "png", engine="static")
    assert not [w for w in said if "Glyph" in str(w.message)]  # matplotlib's word for a box drawn in its place


@pytest.mark.parametrize("count", [17, 30, 45])
def test_a_heatmap_of_up_to_45_tokens_labels_every_token(count):
    """The figure grows by a label's room per token (up to 1200 px), so a sentence's heatmap skips no label — a
    skipped one could be the token marked unknown."""
    amap = random_map(tokens_from([f"w{i}" for i in range(count)]), layers=1, heads=1, seed=count)
    fig = figures.heatmap(amap, layers=[0], heads=[0])
    assert list(fig.layout.xaxis.ticktext) == list(fig.layout.yaxis.ticktext) == [f"w{i}" for i in range(count)]
    assert fig.layout.height <= 1200 and fig.layout.width <= 1200


def test_a_heatmap_axis_that_labels_only_some_tokens_says_how_many():
    words = [f"w{i}" for i in range(120)]
    fig = figures.heatmap(random_map(tokens_from(words), layers=1, heads=1))
    shown = len(fig.layout.xaxis.tickvals)
    assert shown < 120 and fig.layout.xaxis.title.text == f"Key ({shown} of 120 labelled)"
    narrow = fit_heatmap(fig, 336)  # a column thins them again: said once, with the new count
    assert narrow.layout.xaxis.title.text == f"Key ({len(narrow.layout.xaxis.tickvals)} of 120 labelled)"
    zh = figures.heatmap(random_map(tokens_from(words), layers=1, heads=1), style=figures.FigureStyle(lang="zh"))
    assert zh.layout.yaxis.title.text == f"查询 (Query)（120 个中标注 {len(zh.layout.yaxis.tickvals)} 个）"
    few = figures.heatmap(random_map(tokens_from(words[:8]), layers=1, heads=1))
    assert (few.layout.xaxis.title.text, few.layout.yaxis.title.text) == ("Key", "Query")  # every token labelled


def test_a_map_of_some_heads_is_titled_by_the_models_numbers_not_its_positions():
    amap = random_map(tokens_from("a b c".split()), tokens_from("x y".split()), layers=1, heads=2)
    part = replace(amap, layer_numbers=(3,), head_numbers=(1, 5))
    title = figures.heatmap(part, heads=1).layout.title.text
    assert "layer 3 · head 5" in title and "layer 0" not in title
    grid = figures.grid(part)
    assert {a.text for a in grid.layout.annotations} >= {"layer 3", "head 1", "head 5"}
    with pytest.raises(InputError, match="head_numbers names 1"):
        replace(amap, head_numbers=(4,))
