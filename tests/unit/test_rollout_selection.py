"""Rollout as a view (attnviz.view.selection): a layer range, the residual term, cross-attention refused with the reason,
the figure the app and the CLI draw, its file name."""

from dataclasses import replace

import numpy as np
import pytest

from attnviz import figures, i18n
from attnviz.errors import InputError
from attnviz.maps import analysis
from attnviz.types import AttentionCapture, AttentionMap
from attnviz.view import head_choice, selection, viewing
from tests.support.maps import random_map, seed_pair_map, tokens_from

TOKENS = tokens_from(["[CLS]", "the", "cat", "sat", "[SEP]"], specials=("[CLS]", "[SEP]"))


def self_map(layers: int = 4, heads: int = 3, seed: int = 5):
    return random_map(TOKENS, layers=layers, heads=heads, seed=seed)


def paper(amap, first: int, last: int, residual: bool = True) -> np.ndarray:
    """Abnar & Zuidema by hand: Ã_l = norm(0.5·mean_h A_l + 0.5·I), rollout = Ã_last · … · Ã_first."""
    n = len(amap.query_tokens)
    total = np.eye(n)
    for layer in range(first, last + 1):
        a = amap.weights[layer].astype(np.float64).mean(0)
        if residual:
            a = 0.5 * a + 0.5 * np.eye(n)
        total = (a / a.sum(-1, keepdims=True)) @ total
    return total


@pytest.mark.parametrize(("layers", "first", "last"), [(None, 0, 3), ((1, 2), 1, 2), ((3, 3), 3, 3)])
@pytest.mark.parametrize("residual", [True, False])
def test_a_layer_range_rolls_out_only_those_layers(layers, first, last, residual):
    amap = self_map()
    rolled = head_choice.rollout_map(amap, layers, residual=residual)
    assert rolled.weights.shape == (last - first + 1, 1, 5, 5)
    np.testing.assert_allclose(rolled.weights[-1, 0], paper(amap, first, last, residual), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rolled.weights[0, 0], paper(amap, first, first, residual), rtol=1e-5, atol=1e-6)
    assert rolled.layer_names[-1] == f"rollout L{first}–L{last}"
    if layers is None:
        np.testing.assert_allclose(rolled.weights, analysis.rollout(amap, residual=residual).weights, rtol=1e-6)


def test_cross_attention_is_refused_with_the_reason():
    with pytest.raises(InputError, match="encoder's last output") as raised:
        head_choice.rollout_map(seed_pair_map())
    assert "交叉注意力" in raised.value.message("zh")


@pytest.mark.parametrize("layers", [(0, 4), (-1, 2)])  # (2, 1) runs backwards: its own sentence (below)
def test_a_range_outside_the_map_is_refused(layers):
    with pytest.raises(InputError, match="not inside layers 0–3"):
        head_choice.rollout_map(self_map(), layers)


def test_show_draws_the_rollout_through_the_range_and_the_grid_layer_by_layer():
    amap = self_map()
    capture = AttentionCapture("tiny", "cpu", {"self": amap}, "the cat sat", None)
    options = viewing.ViewOptions(aggregation=viewing.ROLLOUT, rollout_layers=(1, 3), words=False, hide_special=False)
    shown = selection.show(capture, options, names=("heatmap", "grid", "lines"))
    z = np.array(shown.figures["heatmap"].data[0].z, dtype=float)
    np.testing.assert_allclose(z, paper(amap, 1, 3), rtol=1e-5, atol=1e-6)
    assert "rollout L1–L3" in shown.figures["heatmap"].layout.title.text
    assert shown.amap.num_layers == 3  # the grid: rollout through layer 1, 1–2 and 1–3
    assert shown.selection.file_heads() == {"layer": "1-3", "head": viewing.ROLLOUT}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_head_lines_legend_names_the_mean_of_heads_not_one_head(lang):
    capture = AttentionCapture("tiny", "cpu", {"self": self_map()}, "the cat sat", None)
    options = viewing.ViewOptions(aggregation=viewing.ROLLOUT, words=False, hide_special=False, lang=lang)
    lines = selection.show(capture, options, names=("lines",)).figures["lines"]
    legend = {trace.name for trace in lines.data if trace.showlegend}
    assert legend == {i18n.t("qk_rollout_heads", lang)}  # was "head 0" / "第 0 头" under a title saying all heads


def test_tokens_are_hidden_after_the_rollout_not_before():
    """Rollout multiplies the whole token-level maps: hiding [CLS]/[SEP] first would change every product."""
    amap = self_map()
    capture = AttentionCapture("tiny", "cpu", {"self": amap}, "the cat sat", None)
    options = viewing.ViewOptions(aggregation=viewing.ROLLOUT, words=False, hide_special=True)
    prepared = selection.prepare(capture, options)
    np.testing.assert_allclose(prepared.weights[-1, 0], paper(amap, 0, 3)[1:4, 1:4], rtol=1e-5, atol=1e-6)
    assert [t.text for t in prepared.key_tokens] == ["the", "cat", "sat"]


def test_other_views_are_unchanged_by_the_rollout_fields():
    amap = self_map()
    capture = AttentionCapture("tiny", "cpu", {"self": amap}, "the cat sat", None)
    plain = viewing.ViewOptions(aggregation="head", layer=2, head=1, words=False, hide_special=False)
    odd = replace(plain, rollout_layers=(1, 1), residual=False)
    np.testing.assert_array_equal(selection.prepare(capture, plain).weights, selection.prepare(capture, odd).weights)
    assert viewing.ROLLOUT in viewing.SELF_AGGREGATIONS and viewing.ROLLOUT not in viewing.AGGREGATIONS


def test_a_rollout_range_given_backwards_says_so_and_one_outside_says_where():
    from attnviz.errors import InputError
    from attnviz.view.head_choice import rollout_range

    assert rollout_range((1, 3), 6) == (1, 3) and rollout_range(None, 6) == (0, 5)
    with pytest.raises(InputError) as backwards:
        rollout_range((3, 1), 6)
    assert backwards.value.key == "qk_rollout_reversed" and "(1–3)" in str(backwards.value)
    with pytest.raises(InputError) as outside:
        rollout_range((2, 9), 6)
    assert outside.value.key == "qk_rollout_range"


def _rollout_figures(lang: str = "en"):
    tokens = tokens_from("the animal was tired because it ran".split())
    result = AttentionCapture("m", "cpu", {"self": random_map(tokens, layers=3, heads=4)}, source_text="x")
    options = viewing.ViewOptions(kind="self", aggregation="rollout", lang=lang)
    return selection.show(result, options, names=("grid", "lines")).figures


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_rollout_grid_names_its_layers_and_keeps_its_cells_square(lang):
    grid = _rollout_figures(lang)["grid"]
    titles = [a.text for a in grid.layout.annotations]
    assert [t for t in titles if t.startswith("rollout")] == ["rollout L0–L0", "rollout L0–L1", "rollout L0–L2"]
    assert not any(t in ("head 0", "第 0 头") for t in titles)  # its one column is every head rolled out
    anchors = [grid.layout[f"yaxis{'' if i == 1 else i}"].scaleanchor for i in range(1, 4)]
    assert anchors == ["x", "x2", "x3"]  # each thumbnail's cells square, not stretched into a strip


def test_head_lines_say_when_no_weight_reaches_the_threshold():
    tokens = tokens_from(list("abcdefghij"))
    flat = AttentionMap("self", np.full((1, 1, 10, 10), 0.1, np.float32), tokens, tokens, ["l0"])
    lines = figures.head_lines(flat, threshold=0.2)
    assert "no weight reaches 0.2" in lines.layout.title.text and "0.10" in lines.layout.title.text
    assert "调低阈值" in figures.head_lines(flat, threshold=0.2, style=figures.FigureStyle(lang="zh")).layout.title.text
    assert "no weight reaches" not in figures.head_lines(flat, threshold=0.05).layout.title.text
