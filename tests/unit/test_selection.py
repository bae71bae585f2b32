"""What a view shows, without a model (attnviz.view.selection, which the app and the CLI share): head selections and the
alignment heads, the map as drawn (hidden tokens, words, decoder rows), the figures `show` draws and what their
titles say, long-text windows and a figure as a file shows it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.maps import analysis
from attnviz.types import AttentionCapture, AttentionMap, Token
from attnviz.view import head_choice, selection, viewing
from tests.support.maps import numbered_map, seq2seq_capture

# ----------------------------------------------------------------------------------------------------------------------
# Selections


def test_alignment_pairs_use_the_trained_heads_or_the_second_to_last_layer():
    assert head_choice.alignment_pairs([(2, 1), (0, 3), (9, 0), (1, 7)], 3, 4) == [
        (2, 1),
        (0, 3),
    ]  # out of range dropped
    assert head_choice.alignment_pairs([], 6, 2) == [(4, 0), (4, 1)]
    assert head_choice.alignment_pairs([], 1, 2) == [(0, 0), (0, 1)]


def test_alignment_view_is_the_mean_of_exactly_the_alignment_heads():
    amap = numbered_map()
    chosen = head_choice.head_selection(amap, "alignment", 0, 0, alignment_heads=[(2, 1), (0, 3)])
    expected = (amap.weights[2, 1] + amap.weights[0, 3]) / 2
    matrix = analysis.aggregate(chosen.amap, chosen.layers, chosen.heads)
    np.testing.assert_allclose(matrix, expected, atol=1e-6)
    assert chosen.pairs == ((2, 1), (0, 3))
    labels = chosen.labels  # the figure words naming the selection (FigureStyle.labels)
    assert labels["layer_one"] == "alignment heads" and labels["heads_all"] == "mean of L2·H1, L0·H3"


@pytest.mark.parametrize(
    "view, layers, heads",
    [("head", 1, 2), ("layer", 1, None), ("all", None, None)],
)
def test_head_selection_of_the_other_views(view, layers, heads):
    amap = numbered_map()
    chosen = head_choice.head_selection(amap, view, 1, 2)
    assert chosen.amap is amap
    assert (chosen.layers, chosen.heads) == (layers, heads)
    assert len(chosen.pairs) == {"head": 1, "layer": 4, "all": 12}[view]


def test_head_selection_clamps_indices_from_a_link_or_another_model_and_refuses_unknown_views():
    chosen = head_choice.head_selection(numbered_map(), "head", 99, -5)
    assert (chosen.layers, chosen.heads) == (2, 0)
    with pytest.raises(InputError, match="Unknown view"):
        head_choice.head_selection(numbered_map(), "sideways", 0, 0)


def test_describe_pairs_names_whole_layers_briefly():
    assert head_choice.describe_pairs([(4, 0), (4, 1), (4, 2)], 3) == "L4 (all heads)"
    assert head_choice.describe_pairs([(2, 3), (3, 1)], 8) == "L2·H3, L3·H1"
    words = {**head_choice.alignment_words(), "pair": "第{layer}层·第{head}头"}
    assert head_choice.describe_pairs([(2, 3)], 8, words) == "第2层·第3头"


def test_head_line_options():
    chosen = head_choice.head_selection(numbered_map(), "all", 0, 0)
    assert chosen.line_options()["combine"] == "mean"
    assert head_choice.head_selection(numbered_map(), "head", 1, 1).line_options()["combine"] is None


# ----------------------------------------------------------------------------------------------------------------------
# Preparing a map: hiding, words


def test_prepare_map_hides_special_tokens_then_merges_words():
    result = seq2seq_capture()
    shown = selection.prepare_map(result, "cross", hide=True, words=True)
    assert [t.text for t in shown.key_tokens] == ["早上", "好", "！"]
    assert [t.text for t in shown.query_tokens] == ["Good", "morning", "!"]
    assert shown.weights.shape[2:] == (3, 3)


def test_self_attention_kind_and_map_texts():
    result = seq2seq_capture()
    assert selection.self_attention_kind(result, "encoder") == "encoder"
    one_stack = AttentionCapture("m", "cpu", {"self": result["encoder"]}, source_text="早上好！")
    assert selection.self_attention_kind(one_stack, "decoder") == "self"
    assert selection.map_texts(result, "cross") == ("Good morning!", "早上好！")
    with pytest.raises(InputError):
        selection.self_attention_kind(result, "middle")


def test_token_windows_stay_inside_the_text():
    assert selection.token_window(1000, 0, 128) == (0, 128)
    assert selection.token_window(1000, 950, 128) == (872, 1000)  # slid back to fit
    assert selection.token_window(50, 10, 128) == (0, 50)  # the whole text when it is shorter than a window
    assert selection.token_window(1000, -5, 128) == (0, 128)


def test_decoder_self_attention_rows_are_named_by_the_decoder_input():
    start, good, morning = Token("<pad>", -1, -1, True), Token("Good", 0, 4), Token("morning", 5, 12)
    end = Token("</s>", -1, -1, True)
    weights = np.tril(np.ones((3, 3), dtype=np.float32))
    weights /= weights.sum(-1, keepdims=True)
    decoder = AttentionMap("decoder", weights[None, None], [good, morning, end], [start, good, morning], ["d0"], True)
    result = AttentionCapture("m", "cpu", {"decoder": decoder}, source_text="早上好", target_text="Good morning")
    shown = selection.prepare_map(result, "decoder", hide=True)
    assert [t.text for t in shown.query_tokens] == [t.text for t in shown.key_tokens] == ["Good", "morning"]
    assert shown.causal
    np.testing.assert_allclose(shown.weights[0, 0], weights[1:, 1:])


def test_custom_selections_take_any_heads_and_check_them():
    amap = numbered_map()
    chosen = head_choice.custom_selection(amap, (0, 2), None, head_reduce="max")
    assert chosen.pairs == tuple((layer, head) for layer in (0, 2) for head in range(4))
    np.testing.assert_allclose(
        analysis.aggregate(chosen.amap, chosen.layers, None, "max"),
        amap.weights[[0, 2]].max(axis=1).mean(axis=0),
        atol=1e-6,
    )
    assert chosen.line_options()["combine"] == "max"  # every head, combined
    assert head_choice.custom_selection(amap, None, (1, 3)).line_options()["combine"] is None
    with pytest.raises(InputError, match="Head 9 does not exist"):
        head_choice.custom_selection(amap, None, (9,))


def test_show_draws_the_named_figures_of_the_chosen_map():
    result = seq2seq_capture()
    shown = selection.show(result, viewing.ViewOptions(step=2), (), ("alignment", "heatmap", "grid"))
    assert list(shown.figures) == ["alignment", "heatmap", "grid"]
    assert [t.text for t in shown.amap.query_tokens] == ["Good", "morning"]  # words merged, replayed to step 2
    assert shown.figures["alignment"].layout.height == shown.figures["heatmap"].layout.height
    assert shown.selection.pairs == ((0, 0), (0, 1))  # no trained alignment heads: the second-to-last layer
    with pytest.raises(InputError, match="Unknown figure"):
        selection.show(result, viewing.ViewOptions(), (), ("pie",))
    with pytest.raises(InputError, match="cross-attention heads"):
        selection.show(result, viewing.ViewOptions(kind="encoder", aggregation="alignment"))
    assert selection.default_kind(result) == "cross"


def test_a_title_says_how_much_weight_the_hidden_tokens_held_or_that_rows_were_renormalised():
    amap = numbered_map(kind="self", layers=1, heads=1, queries=4, keys=4, specials=(0,))
    weights = np.full((1, 1, 4, 4), 0.1, np.float32)
    weights[..., 0] = 0.7  # the special token holds 70% of every row
    amap = AttentionMap("self", weights, amap.query_tokens, amap.key_tokens, amap.layer_names)
    result = AttentionCapture("m", "cpu", {"self": amap}, source_text="q0q1q2q3")
    options = viewing.ViewOptions(kind="self", aggregation="head", words=False)
    titles = {
        name: fig.layout.title.text
        for name, fig in selection.show(result, options, names=("heatmap", "alignment", "lines")).figures.items()
    }
    assert all("hidden tokens hold 70% of each row's weight" in title for title in titles.values()), titles
    renormalised = selection.show(result, replace(options, renormalize=True)).figures["heatmap"].layout.title.text
    assert "rows renormalised after hiding tokens" in renormalised and "hold" not in renormalised
    shown = selection.show(result, replace(options, hide_special=False)).figures["heatmap"].layout.title.text
    assert "hidden" not in shown
    weights[..., 0] = 0.01
    weights[..., 1:] = 0.33
    faint = AttentionMap("self", weights, amap.query_tokens, amap.key_tokens, amap.layer_names)
    result = AttentionCapture("m", "cpu", {"self": faint}, source_text="q0q1q2q3")
    assert "hidden" not in selection.show(result, options).figures["heatmap"].layout.title.text  # 1%: not said


def test_a_replayed_figure_says_which_step_it_shows():
    result = seq2seq_capture()
    options = viewing.ViewOptions(kind="cross", aggregation="head", words=False, hide_special=False, step=2)
    for name, fig in selection.show(result, options, names=("heatmap", "alignment", "grid")).figures.items():
        assert "replay: the first 2 of 5 rows written" in fig.layout.title.text, name
    whole = selection.show(result, replace(options, step=5)).figures["heatmap"].layout.title.text
    assert "replay" not in whole  # the last step is the whole map
    chinese = selection.show(result, replace(options, lang="zh")).figures["heatmap"].layout.title.text
    assert "回放：已写出 5 行中的前 2 行" in chinese


def test_each_figure_has_one_builder_and_the_alignment_stands_beside_the_heatmap():
    assert tuple(selection.FIGURE_BUILDERS) == viewing.FIGURES
    assert selection.FIGURE_BUILDERS["alignment"].beside == "heatmap"
    assert not selection.FIGURE_BUILDERS["grid"].of_selection  # the grid draws every head, whichever are chosen


@pytest.mark.parametrize(
    "options, heads",
    [
        (viewing.ViewOptions(aggregation="head", layer=1, head=2), {"layer": 1, "head": 2}),
        (viewing.ViewOptions(aggregation="layer", layer=1), {"layer": 1, "head": "mean"}),
        (viewing.ViewOptions(aggregation="all"), {"head": "mean"}),
        (viewing.ViewOptions(aggregation="alignment"), {"head": "align"}),
        (
            viewing.ViewOptions(aggregation=viewing.CUSTOM, layers=(0, 1), head_reduce="max"),
            {"layer": [0, 1], "head": "max"},
        ),
    ],
)
def test_a_selection_names_its_heads_in_a_file_name_as_its_figures_draw_them(options, heads):
    chosen = head_choice.choose_heads(numbered_map(), options)
    assert chosen.file_heads() == heads
    assert chosen.aggregation == head_choice.aggregation_of(options, "cross")
    np.testing.assert_array_equal(chosen.matrix(), analysis.aggregate(chosen.amap, **chosen.reduction))


def test_files_record_only_the_options_their_view_uses():
    aligned = selection.recorded_options(viewing.ViewOptions(aggregation="alignment", layer=0, head=2))
    assert "layer" not in aligned and "head" not in aligned and "rollout_layers" not in aligned
    one = selection.recorded_options(viewing.ViewOptions(aggregation="head", layer=1, head=2))
    assert (one["layer"], one["head"]) == (1, 2) and "rollout_layers" not in one and "residual" not in one
    rolled = selection.recorded_options(viewing.ViewOptions(aggregation="rollout", rollout_layers=(0, 2)))
    assert rolled["rollout_layers"] == (0, 2) and "head" not in rolled and "layer" not in rolled
    assert selection.recorded_options(viewing.ViewOptions(aggregation="layer", layer=3))["layer"] == 3


def test_each_map_offers_the_aggregations_it_can_show():
    assert head_choice.offered_aggregations("cross") == viewing.AGGREGATIONS
    assert head_choice.offered_aggregations("encoder") == viewing.SELF_AGGREGATIONS  # a rollout, no alignment heads
    # a contributions map: one map per layer, so neither alignment heads nor a rollout of heads (`aggregation_of`)
    assert head_choice.offered_aggregations("cross", "alti") == ("head", "layer", "all")
    for kind, measure in [("cross", "alti"), ("self", "value-zeroing"), ("decoder", "weights")]:
        for aggregation in head_choice.offered_aggregations(kind, measure):
            options = viewing.ViewOptions(kind=kind, aggregation=aggregation, measure=measure)
            assert head_choice.aggregation_of(options, kind) == aggregation  # none of them is refused
