"""Finding a head and honest colours and labels, without a model: token choices and the ranking on hand-built maps
(attnviz.view.find_head), one colour scale across heads (said in the colour bar), alignment labels that never overlap,
and links that carry only their page's state."""

import html
import itertools
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go
import pytest

from app_pages.shared import state as app_state
from attnviz import figures
from attnviz.errors import InputError
from attnviz.figures import layout, text_fit
from attnviz.figures.fonts import text_width
from attnviz.types import AttentionCapture, AttentionMap
from attnviz.view import find_head, selection, viewing
from tests.support.maps import random_map, tokens_from

SENTENCE = "[CLS] the animal was tired because it ran [SEP]".split()


def _self_capture(layers: int = 2, heads: int = 3) -> AttentionCapture:
    text = "the animal was tired because it ran"
    tokens = tokens_from(SENTENCE, text, specials=("[CLS]", "[SEP]"))
    return AttentionCapture("m", "cpu", {"self": random_map(tokens, layers=layers, heads=heads)}, source_text=text)


# ----------------------------------------------------------------------------------------------------------------------
# Finding a head


def test_token_choices_skip_hidden_tokens_and_name_each_token_once():
    result = _self_capture()
    shown = find_head.token_choices(result, "self", "query")
    assert [c.label for c in shown] == [f"{w} #{i}" for i, w in enumerate(SENTENCE[1:-1])]
    assert [(c.start, c.stop) for c in shown] == [(i, i + 1) for i in range(1, len(SENTENCE) - 1)]
    every = find_head.token_choices(result, "self", "key", hide_special=False)
    assert every[0].text == "[CLS]" and len(every) == len(SENTENCE)
    assert find_head.find_choice(shown, "IT").label == "it #5"
    assert find_head.find_choice(shown, "it #5").index == 5
    with pytest.raises(InputError, match="zebra"):
        find_head.find_choice(shown, "zebra")
    with pytest.raises(InputError):
        find_head.token_choices(result, "self", "middle")


def test_ranking_orders_every_head_by_the_weight_from_query_to_key():
    result = _self_capture(layers=3, heads=4)
    weights = result["self"].weights  # (layers, heads, queries, keys)
    query = find_head.find_choice(find_head.token_choices(result, "self", "query"), "it")
    key = find_head.find_choice(find_head.token_choices(result, "self", "key"), "animal")
    ranked = find_head.rank_heads(result, "self", query, key)
    expected = weights[:, :, query.start, key.start]
    assert [(m.layer, m.head) for m in ranked[:3]] == [
        divmod(int(i), 4) for i in np.argsort(-expected.ravel(), kind="stable")[:3]
    ]
    assert [m.weight for m in ranked] == pytest.approx(sorted(expected.ravel(), reverse=True))
    top = ranked[0]
    shown = selection.show(result, viewing.ViewOptions(kind="self", aggregation="head", layer=top.layer, head=top.head))
    assert find_head.pair_weight(shown.selection, query, key) == pytest.approx(top.weight)


def test_with_value_norms_shown_the_ranking_ranks_what_the_figures_draw():
    result = _self_capture(layers=2, heads=3)
    amap = result["self"]
    norms = np.random.default_rng(7).uniform(0.1, 3.0, (2, 3, len(amap.key_tokens))).astype(np.float32)
    result = replace(result, maps={"self": replace(amap, value_norms=norms)})
    query = find_head.find_choice(find_head.token_choices(result, "self", "query"), "it")
    key = find_head.find_choice(find_head.token_choices(result, "self", "key"), "animal")
    ranked = find_head.rank_heads(result, "self", query, key, weighting="value-norm")
    scaled = amap.weights[:, :, query.start] * norms  # (layers, heads, keys): independent of analysis.weigh_rows
    expected = scaled[:, :, key.start] / scaled.sum(axis=-1)
    assert [m.weight for m in ranked] == pytest.approx(sorted(expected.ravel(), reverse=True))
    for match in ranked[:3]:  # each ranked weight is the one the opened head's figures draw
        options = viewing.ViewOptions(
            kind="self", aggregation="head", layer=match.layer, head=match.head, weighting="value-norm"
        )
        shown = selection.show(result, options)
        assert find_head.pair_weight(shown.selection, query, key) == pytest.approx(match.weight)
    raw = find_head.rank_heads(result, "self", query, key)
    assert [m.weight for m in raw] != pytest.approx([m.weight for m in ranked])
    with pytest.raises(InputError, match="value"):
        find_head.rank_heads(_self_capture(), "self", query, key, weighting="value-norm")  # no norms captured


def test_a_word_of_pieces_weighs_its_pieces_as_the_word_view_does():
    text = "the animals ran"
    tokens = tokens_from(["the", "animal", "s", "ran"], text)
    result = AttentionCapture("m", "cpu", {"self": random_map(tokens, layers=1, heads=2)}, source_text=text)
    key = find_head.find_choice(find_head.token_choices(result, "self", "key"), "animals")
    query = find_head.find_choice(find_head.token_choices(result, "self", "query"), "animals")
    assert (key.start, key.stop) == (1, 3)
    ranked = {(m.layer, m.head): m.weight for m in find_head.rank_heads(result, "self", query, key)}
    weights = result["self"].weights
    for head in range(2):
        assert ranked[(0, head)] == pytest.approx(weights[0, head, 1:3, 1:3].sum(axis=1).mean())
        shown = selection.show(result, viewing.ViewOptions(kind="self", aggregation="head", head=head))
        assert find_head.pair_weight(shown.selection, query, key) == pytest.approx(ranked[(0, head)])


# ----------------------------------------------------------------------------------------------------------------------
# One colour scale across heads


def _two_heads() -> AttentionMap:
    """Head 0 peaks at 0.35, head 1 at 0.68 (what a person saw: 0–0.35 on one head, 0–0.68 on the next)."""
    tokens = tokens_from(list("abc"))
    weights = np.full((1, 2, 3, 3), 0.0, dtype=np.float32)
    weights[0, 0] = [[0.35, 0.33, 0.32]] * 3
    weights[0, 1] = [[0.68, 0.16, 0.16]] * 3
    return AttentionMap("self", weights, tokens, tokens, ["l0"])


def test_the_same_colour_means_the_same_weight_on_every_head_unless_asked():
    amap = _two_heads()
    unit = [figures.heatmap(amap, layers=0, heads=h, color_scale="unit").data[0] for h in (0, 1)]
    assert [trace.zmax for trace in unit] == [1.0, 1.0]
    assert "0–1" in unit[0].colorbar.title.text
    shared = [figures.heatmap(amap, layers=0, heads=h, color_scale="shared").data[0] for h in (0, 1)]
    assert [trace.zmax for trace in shared] == pytest.approx([0.68, 0.68])
    assert "0–0.68" in shared[0].colorbar.title.text and "2 heads" in shared[0].colorbar.title.text
    own = [figures.heatmap(amap, layers=0, heads=h, color_scale="head").data[0] for h in (0, 1)]
    assert [trace.zmax for trace in own] == pytest.approx([0.35, 0.68])
    assert "this figure" in own[0].colorbar.title.text
    zh = figures.heatmap(amap, color_scale="unit", style=figures.FigureStyle(lang="zh")).data[0]
    assert "所有头相同" in zh.colorbar.title.text
    with pytest.raises(InputError, match="colour scale"):
        figures.heatmap(amap, color_scale="rainbow")


def test_the_grid_and_the_views_share_one_scale_by_default():
    amap = _two_heads()
    grid = figures.grid(amap, color_scale="unit")
    assert grid.layout.coloraxis.cmax == 1.0 and "0–1" in grid.layout.coloraxis.colorbar.title.text
    each = figures.grid(amap, color_scale="head")
    assert [trace.zmax for trace in each.data] == pytest.approx([0.35, 0.68])
    assert each.layout.coloraxis.showscale is False and "own max" in each.layout.title.text
    result = AttentionCapture("m", "cpu", {"self": amap})
    shown = selection.show(result, viewing.ViewOptions(kind="self", hide_special=False), names=("heatmap", "grid"))
    assert shown.figures["heatmap"].data[0].zmax == 1.0 and shown.figures["grid"].layout.coloraxis.cmax == 1.0


def test_clickable_heads_carry_their_layer_and_head():
    amap = random_map(tokens_from(list("abcd")), layers=2, heads=3)
    grid = figures.grid(amap)
    clickable = figures.clickable_heads(grid)
    targets = [trace for trace in clickable.data if trace.type == "scatter"]
    assert len(clickable.data) == len(grid.data) + 6 and len(grid.data) == 6  # the figure given is unchanged
    assert figures.grid(amap, clickable=True) == clickable
    assert all(t.marker.opacity == 0 and t.selected.marker.opacity == 0 for t in targets)  # never drawn
    assert sorted(tuple(t.customdata[0]) for t in targets) == [(lay, h) for lay in range(2) for h in range(3)]
    stats = figures.clickable_heads(figures.statistic_grid(amap, "entropy")).data[-1]
    assert [tuple(c[:2]) for c in stats.customdata] == [(lay, h) for lay in range(2) for h in range(3)]
    with pytest.raises(InputError):
        figures.clickable_heads(figures.heatmap(amap))


# ----------------------------------------------------------------------------------------------------------------------
# Alignment labels never overlap


def _label_boxes(fig) -> list[tuple[float, float, float, float]]:
    """Every label's box (x0, x1, y0, y1) in px of the figure, read from its annotations and measured in its font."""
    width, margin = fig.layout.width, fig.layout.margin
    plot_px = width - margin.l - margin.r
    y0, y1 = fig.layout.yaxis.range
    plot_h = fig.layout.height - margin.t - margin.b
    boxes = []
    for note in fig.layout.annotations:
        if note.xref != "x":
            continue
        size = note.font.size
        centre = (note.x - layout.X_RANGE[0]) / (layout.X_RANGE[1] - layout.X_RANGE[0])
        centre *= plot_px
        line = (note.y - y0) / (y1 - y0) * plot_h  # px up from the plot's bottom
        text = text_width(html.unescape(note.text), size)
        height = layout.LINE_HEIGHT * size
        across, along = (height, text) if note.textangle else (text, height)
        start = line + note.yshift if note.yanchor == "bottom" else line + note.yshift - along
        boxes.append((centre - across / 2, centre + across / 2, start, start + along))
    return boxes


def _overlapping(boxes) -> list[tuple[int, int]]:
    return [
        (i, j)
        for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2)
        if a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]
    ]


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("明天 我 去 上海", "Tomorrow I will fly to Shanghai tomorrow"),
        ("internationalization", "Shanghai tomorrow Shanghai tomorrow Shanghai tomorrow Shanghai tomorrow"),
        ("a " * 40, "extraordinarily " * 30),
        ("上海浦东国际机场 " * 12, "Pudong International Airport " * 8),
    ],
)
def test_no_two_alignment_labels_overlap_even_for_long_words(source, target):
    src, tgt = source.split(), target.split()
    amap = random_map(tokens_from(tgt), tokens_from(src), layers=1, heads=1)
    for style in (figures.FigureStyle(), figures.FigureStyle(width=700, height=420)):
        fig = figures.alignment(amap, style=style)
        boxes = _label_boxes(fig)
        assert len(boxes) == len(src) + len(tgt)
        assert _overlapping(boxes) == []
        assert all(0 <= x0 and x1 <= fig.layout.width - sum(layout.MARGINS) + 40 for x0, x1, _, _ in boxes)
    plan = fig.layout.meta["labels"]["queries"]
    assert plan["angle"] in (0, -90) and plan["rows"] in (1, 2)


COLUMN_PAIR = (
    "明天 我 要 坐 飞机 去 上海 看 朋友".split(),
    "Tomorrow I will take a plane to Shanghai to see friends".split(),
)


def _at_width(fig, width: int, height: int):
    """`fig` as an export of that size draws it unchanged: the same annotations, another width and height."""
    drawn = go.Figure(fig)
    drawn.update_layout(width=width, height=height)
    return drawn


@pytest.mark.parametrize("width", [336, 200])  # the single-column print preset (3.5 in), and narrower
def test_an_alignment_exported_narrow_has_its_labels_planned_for_that_width(width):
    src, tgt = COLUMN_PAIR
    fig = figures.alignment(random_map(tokens_from(tgt), tokens_from(src), layers=1, heads=1))
    as_before = _at_width(fig, width, round(width * fig.layout.height / fig.layout.width))
    assert _overlapping(_label_boxes(as_before))  # the figure's own plan squeezed into a column: labels collide
    fitted = layout.fit_alignment(fig, width)
    boxes = _label_boxes(fitted)
    assert fitted.layout.width == width and len(boxes) == len(src) + len(tgt)
    assert _overlapping(boxes) == []
    left = fitted.layout.margin.l  # labels may reach into the margins, not past the figure's edges
    assert all(-left <= x0 and x1 <= width - left for x0, x1, _, _ in boxes)
    assert fitted.layout.meta["labels"]["queries"]["angle"] == -90
    assert len(fitted.data) == len(fig.data)  # links kept
    wide = layout.fit_alignment(fig, 900)  # a file wider than the page plans for: labels as large as fit
    assert wide.layout.meta["labels"]["queries"] == {"angle": 0, "rows": 1, "size": layout.LABEL_SIZE}
    assert _overlapping(_label_boxes(wide)) == []
    short = figures.alignment(random_map(tokens_from(["a", "b"]), tokens_from(["c", "d"]), layers=1, heads=1))
    assert layout.fit_alignment(short, 900) is short  # labels that would stand as they do: the figure as is


def test_export_draws_an_alignment_fitted_to_the_preset_width(monkeypatch):
    from attnviz import export

    src, tgt = COLUMN_PAIR
    fig = figures.alignment(random_map(tokens_from(tgt), tokens_from(src), layers=1, heads=1))
    drawn = {}

    def record(figure, fmt, width, height, scale):
        drawn.update(figure=figure, width=width, height=height)
        return b"<svg/>"

    monkeypatch.setitem(export.RENDERERS, "static", record)
    export.figure_bytes(fig, "svg", engine="static", preset="single-column")
    assert drawn["width"] == 336 and drawn["figure"].layout.height == drawn["height"]
    assert _overlapping(_label_boxes(drawn["figure"])) == []
    export.figure_bytes(fig, "svg", engine="static", preset="single-column", height=300)
    assert drawn["height"] == 300  # a height asked for is kept


def test_a_heatmap_exported_narrow_keeps_its_rows_height_and_thins_its_key_labels_to_fit(monkeypatch):
    from attnviz import export

    src, tgt = COLUMN_PAIR
    fig = figures.heatmap(random_map(tokens_from(tgt * 2), tokens_from(src * 2), layers=1, heads=1))
    drawn = {}
    monkeypatch.setitem(
        export.RENDERERS,
        "static",
        lambda figure, fmt, width, height, scale: drawn.update(figure=figure, width=width, height=height) or b"<svg/>",
    )
    export.figure_bytes(fig, "svg", engine="static", preset="single-column")
    fitted, width = drawn["figure"], drawn["width"]
    assert width == 336 and drawn["height"] >= fig.layout.height  # rows keep their room (plus any title line)
    ticks = list(fitted.layout.xaxis.tickvals)
    screen_rule = (width - layout.PLOT_MARGIN_PX[0]) // layout.LABEL_ROOM_PX  # what a screen layout would keep
    size = fitted.layout.xaxis.tickfont.size
    assert len(ticks) > screen_rule and size >= layout.PRINT_TICK_FLOOR  # laid out for print: more, still legible
    assert len(ticks) * size * layout.PRINT_LABEL_PITCH <= width  # … and no two labels overlap
    assert [fitted.layout.xaxis.ticktext[i] for i in range(len(ticks))] == [
        fig.layout.xaxis.labelalias[str(t)] for t in ticks
    ]  # each drawn label names its own column
    assert list(fitted.layout.yaxis.tickvals) == list(fig.layout.yaxis.tickvals)  # every row still named
    assert layout.fit_heatmap(fig, 900) is fig


def test_a_title_wider_than_a_narrow_export_is_broken_at_its_parts():
    from attnviz.figures.fonts import plain_text

    amap = random_map(tokens_from("I fly".split()), tokens_from("我 飞".split()), layers=4, heads=4)
    fig = figures.alignment(amap, heads=[0, 1, 2], layers=[1, 2, 3], style=figures.FigureStyle(model="demo-zh-en"))
    first = fig.layout.title.text.split("<br>")[0]
    assert text_width(plain_text(first), text_fit.TITLE_SIZE) > 300  # too wide for a column
    fitted = text_fit.fit_title(fig, 336)
    lines = fitted.layout.title.text.split("<br>")
    added = lines.index(fig.layout.title.text.split("<br>")[1]) - 1 if "<br>" in fig.layout.title.text else 0
    assert added >= 1 and " · ".join(lines[: added + 1]) == first  # the same words, broken at their parts
    assert all(text_width(plain_text(line), text_fit.TITLE_SIZE) <= 336 for line in lines[: added + 1])
    assert fitted.layout.margin.t - fig.layout.margin.t == added * 22  # room made above the plot, a line each
    assert text_fit.fit_title(fig, 2000) is fig


def test_short_sentences_keep_level_labels_in_one_row():
    amap = random_map(tokens_from("I fly tomorrow".split()), tokens_from("明天 我 飞".split()), layers=1, heads=1)
    labels = figures.alignment(amap).layout.meta["labels"]
    assert labels["keys"] == labels["queries"] == {"angle": 0, "rows": 1, "size": layout.LABEL_SIZE}


# ----------------------------------------------------------------------------------------------------------------------
# A link carries only the state of its page


def test_a_page_link_carries_only_the_state_that_page_uses():
    view = app_state.ViewState(model="minilm", text="it ran", find_query="it #0", find_key="ran #1", stat="sink")
    self_link = app_state.to_query_params(view, "self_attention")
    assert {"find_query", "find_key", "model", "text", "layer", "head"} <= set(self_link)
    assert not {"target", "cross_aggregation", "stat", "step"} & set(
        self_link
    )  # generate mode: the target is the model's
    heads_link = app_state.to_query_params(view, "heads")
    assert "stat" in heads_link and not {"find_query", "cross_aggregation", "target"} & set(heads_link)
    explainer = app_state.to_query_params(app_state.ViewState(q="1,0;0,1"), "how_attention_works")
    assert set(explainer) == {"model", "q", "text", "layer", "head"}  # it also walks through the user's sentence
    assert not {"stat", "find_query", "cross_aggregation"} & set(explainer)
    pair = app_state.to_query_params(app_state.ViewState(mode="pair", target="Hi"), "translate")
    assert pair["target"] == "Hi" and pair["mode"] == "pair"
    assert "target" not in app_state.to_query_params(app_state.ViewState(), "translate")
    assert set(app_state.to_query_params(app_state.ViewState())) == set(app_state.ALWAYS_IN_URL)  # no page: all


def test_an_alignment_of_self_attention_names_its_lines_queries_and_keys():
    tokens = tokens_from("the cat sat".split())
    own = figures.alignment(random_map(tokens, layers=1, heads=1))
    assert list(own.layout.yaxis.ticktext) == ["Query", "Key"] and "per query token" in own.layout.title.text
    src, tgt = COLUMN_PAIR
    pair = figures.alignment(random_map(tokens_from(tgt), tokens_from(src), layers=1, heads=1))
    assert list(pair.layout.yaxis.ticktext) == ["Target", "Source"] and "per target token" in pair.layout.title.text


def test_an_alignment_exported_at_its_own_width_stands_its_labels_for_that_width(monkeypatch):
    from attnviz import export

    words = [f"word{i}" for i in range(24)]
    fig = figures.alignment(random_map(tokens_from(words), tokens_from(words[::-1]), layers=1, heads=1))
    drawn = {}

    def record(figure, fmt, width, height, scale):
        drawn.update(figure=figure, width=width)
        return b"<svg/>"

    monkeypatch.setitem(export.RENDERERS, "static", record)
    export.figure_bytes(fig, "svg", engine="static")  # no size asked: the figure's own width
    assert drawn["width"] == fig.layout.width > layout.WHOLE_PLAN_WIDTH
    assert fig.layout.meta["plan_width"] == layout.WHOLE_PLAN_WIDTH  # 24 tokens: it stands alone on a page
    in_file = drawn["figure"].layout.meta["labels"]["keys"]["size"]
    assert export.LEGIBLE_LABEL_PX <= in_file
    assert _overlapping(_label_boxes(drawn["figure"])) == []


@pytest.mark.parametrize("words", [13, 14, 16])
def test_a_long_pair_stands_alone_on_a_page_its_labels_at_the_stated_size(words):
    """A pair of 13–16 words a side cannot stand its labels level in half a column: its alignment takes a whole
    column (placed for WHOLE_PLAN_WIDTH, at its own height), labels at SCREEN_LABEL_FLOOR px or more (level or
    upright), none overlapping; a short pair stays beside the heatmap, planned for half a column."""
    source = ["grandfather", "and", "grandmother", "walk", "in", "the", "park", "every", "morning"] * 2
    target = ["我的", "爷爷", "和", "奶奶", "每天", "早上", "吃完", "早饭", "以后"] * 2
    amap = random_map(tokens_from(target[:words]), tokens_from(source[:words]), layers=1, heads=1)
    assert words <= layout.STATED_PAIR_WORDS and figures.alignment_stands_alone(amap)
    fig = figures.alignment(amap)
    meta = fig.layout.meta
    assert meta["column"] == "whole" and meta["plan_width"] == layout.WHOLE_PLAN_WIDTH
    assert min(plan["size"] for plan in meta["labels"].values()) >= layout.SCREEN_LABEL_FLOOR
    on_page = _at_width(fig, layout.WHOLE_PLAN_WIDTH, fig.layout.height)  # a whole column of the page
    assert _overlapping(_label_boxes(on_page)) == []
    short = random_map(tokens_from(["Good", "morning", "!"]), tokens_from(["早上", "好", "！"]), layers=1, heads=1)
    assert not figures.alignment_stands_alone(short)
    assert figures.alignment(short).layout.meta["column"] == "half"


def test_the_view_draws_a_long_pairs_alignment_at_its_own_height_not_the_heatmaps():
    source = "My grandfather and my grandmother walk in the park every morning after breakfast together".split()
    amap = random_map(tokens_from(source[::-1]), tokens_from(source), layers=1, heads=2)
    result = AttentionCapture("m", "cpu", {"cross": amap})
    options = selection.ViewOptions(kind="cross", aggregation="head", words=False, hide_special=False)
    shown = selection.show(result, options, (), ("heatmap", "alignment"))
    alone = figures.alignment(amap, layers=0, heads=0)
    assert shown.figures["alignment"].layout.height == alone.layout.height != shown.figures["heatmap"].layout.height
