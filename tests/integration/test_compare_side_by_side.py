"""A's and B's alignment diagrams side by side (`attnviz.compare.side_by_side`) on tiny random translation models
(BART, Marian) and BERT: each side's links equal the strongest weights taken by numpy from that side's own prepared
map at the head the comparison set beside A's (heads paired by assignment included); both are drawn at one size, the
larger of the two each chose; titles speak the options' language."""

from __future__ import annotations

import pytest

from attnviz.attention.capture import capture
from attnviz.compare import compare_captures, side_by_side, side_options
from attnviz.model.load import load_model
from attnviz.view import selection, viewing
from tests.support.figure_reading import links_by_hand

TEXT_A, TEXT_B, TARGET = "the cat sat on the mat", "the big cat sat on the mat", "Good morning!"


def links(fig) -> list[tuple[str, float]]:
    """(query → key, weight) of each link line a diagram draws, sorted."""
    lines = [trace for trace in fig.data if trace.mode == "lines"]
    return sorted((trace.name, round(float(trace.customdata[0]), 6)) for trace in lines)


@pytest.mark.parametrize("family", ["bart", "marian"])
def test_each_side_draws_its_own_paired_head_at_one_size(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    a, b = capture(handle, TEXT_A, TARGET), capture(handle, TEXT_B, TARGET)
    compared = compare_captures(a, b, "cross", hide_special=True, pair_heads=True)  # B's heads paired by assignment
    base = viewing.ViewOptions(threshold=0.05)
    for head in range(a["cross"].num_heads):
        options_a, options_b = side_options(compared, b, base, 1, head)
        drawn = side_by_side(a, b, options_a, options_b)
        for result, shown, picked in ((a, drawn.a, head), (b, drawn.b, int(compared.heads_b[1, head]))):
            amap = selection.prepare_map(result, "cross", hide=True, words=True)
            expected = links_by_hand(amap, amap.weights[1, picked], 0.05, 3)
            assert expected and links(shown.figures["alignment"]) == expected
        own = [
            selection.show(r, o, names=("alignment",)).figures["alignment"].layout
            for r, o in ((a, options_a), (b, options_b))
        ]
        assert drawn.size == (max(o.width for o in own), max(o.height for o in own))
        for shown in (drawn.a, drawn.b):
            assert (shown.figures["alignment"].layout.width, shown.figures["alignment"].layout.height) == drawn.size


def test_self_attention_means_and_the_chinese_page(tiny_folder):
    handle = load_model(tiny_folder("bert"), "cpu")
    a, b = capture(handle, "早上好！我喜欢学习。"), capture(handle, "晚上好，晚安。我喜欢读书。")
    compared = compare_captures(a, b, hide_special=True)
    options_a, options_b = side_options(compared, b, viewing.ViewOptions(lang="zh"), 0, None)  # layer 0's heads
    assert (options_a.aggregation, options_b.aggregation, options_b.kind) == ("layer", "layer", "self")
    drawn = side_by_side(a, b, options_a, options_b)
    for result, shown in ((a, drawn.a), (b, drawn.b)):
        amap = selection.prepare_map(result, "self", hide=True, words=True)
        assert links(shown.figures["alignment"]) == links_by_hand(amap, amap.weights[0].mean(axis=0), 0.1, 3)
        assert "第 0 层" in shown.figures["alignment"].layout.title.text
    assert drawn.a.figures["alignment"].layout.height == drawn.b.figures["alignment"].layout.height
