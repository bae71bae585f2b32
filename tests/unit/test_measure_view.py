"""Figures name the measure they draw (attnviz.measures.names through attnviz.view.selection.show), files record it, and
the agreement line (attnviz.view.agreement) ranks weights against contributions exactly as Spearman defines it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from attnviz import measuring
from attnviz.errors import InputError
from attnviz.measures import names
from attnviz.types import AttentionCapture
from attnviz.view import agreement, selection, viewing
from tests.support.maps import numbered_map, seq2seq_capture

CONTRIBUTIONS = ("alti", "alti-rollout", "value-zeroing")


def measured(capture: AttentionCapture, measure: str, seed: int = 5) -> AttentionCapture:
    """A capture of one map per layer, (layers, 1, q, k) rows summing to 1, saying it holds `measure` as the
    library's measures say it (value zeroing in `meta`, ALTI in its provenance)."""
    rng = np.random.default_rng(seed)
    maps = {}
    for kind, amap in capture.maps.items():
        values = rng.random((amap.num_layers, 1, *amap.weights.shape[2:])).astype(np.float32)
        maps[kind] = replace(amap, weights=values / values.sum(-1, keepdims=True), value_norms=None)
    said = (
        {"meta": {"measure": measure}} if measure == "value-zeroing" else {"provenance": {"measure": {"name": measure}}}
    )
    return replace(capture, maps=maps, **said)


def title(figure) -> str:
    return figure.layout.title.text


@pytest.mark.parametrize("measure", CONTRIBUTIONS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_figure_of_a_measure_names_it_and_no_head(measure, lang):
    result = measured(seq2seq_capture(), measure)
    options = viewing.ViewOptions(kind="cross", layer=1, lang=lang)
    shown = selection.show(result, options, names=viewing.FIGURES)
    name = {
        "en": {"alti": "ALTI contributions", "alti-rollout": "ALTI rollout", "value-zeroing": "value zeroing"},
        "zh": {"alti": "ALTI 贡献", "alti-rollout": "ALTI 展开", "value-zeroing": "值置零"},
    }[lang][measure]
    head = {"en": "head 0", "zh": "第 0 头"}[lang]
    for figure_name, figure in shown.figures.items():
        text = title(figure) + " ".join(str(a.text) for a in figure.layout.annotations)
        assert head not in text, figure_name
        if figure_name != "grid":  # the grid names the measure over each column
            assert name in title(figure), figure_name
    assert name in " ".join(str(a.text) for a in shown.figures["grid"].layout.annotations)
    colorbar = shown.figures["heatmap"].data[0].colorbar.title.text
    assert {"en": "contribution", "zh": "贡献"}[lang] in colorbar


def with_norms(capture: AttentionCapture) -> AttentionCapture:
    """The capture with a value norm ‖f(x)‖ per layer, head and key (random, positive), to weight it by."""
    rng = np.random.default_rng(2)
    maps = {
        kind: replace(amap, value_norms=rng.random((*amap.weights.shape[:2], len(amap.key_tokens))) + 0.1)
        for kind, amap in capture.maps.items()
    }
    return replace(capture, maps=maps)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("measure", ["alti", "value-norm"])
def test_the_colour_bar_says_what_the_drawn_rows_sum_to(measure, lang):
    less, one = (selection.i18n.t(key, lang) for key in ("rows_sum_less", "rows_sum_one"))
    result = with_norms(seq2seq_capture()) if measure == "value-norm" else measured(seq2seq_capture(), measure)
    for hide, renormalize in ((True, False), (False, False), (True, True)):
        options = selection.ViewOptions(
            kind="cross", layer=1, lang=lang, measure=measure, hide_special=hide, renormalize=renormalize
        )
        shown = selection.show(result, options, names=("heatmap",))
        figure = shown.figures["heatmap"]
        sums = np.nansum(shown.selection.matrix(), axis=-1)  # the drawn rows, added up here
        said = figure.data[0].colorbar.title.text
        if np.allclose(sums, 1.0, atol=1e-6):
            assert one in said and less not in said, (hide, renormalize)
        else:  # </s> hidden: its share is gone from every row
            assert less in said and one not in said, (hide, renormalize)
            assert less in title(figure)  # the subtitle says it too, and how much
    # the case the colour bar once got wrong: hidden, not renormalised
    hidden = selection.show(result, selection.ViewOptions(kind="cross", layer=1, lang=lang, measure=measure))
    assert less in hidden.figures["heatmap"].data[0].colorbar.title.text


def test_a_measure_opens_on_a_layer_and_weights_stay_as_they_were():
    result = measured(seq2seq_capture(), "value-zeroing")
    shown = selection.show(result, viewing.ViewOptions(kind="cross", layer=1))
    assert shown.selection.aggregation == "layer" and shown.selection.pairs == ((1, 0),)
    np.testing.assert_array_equal(shown.selection.matrix(), shown.amap.weights[1, 0])
    plain = selection.show(seq2seq_capture(), viewing.ViewOptions(kind="cross", aggregation="head", layer=1))
    assert "head 0" in title(plain.figures["heatmap"]) and "value zeroing" not in title(plain.figures["heatmap"])


def test_rollout_titles_say_the_layers_it_went_through():
    result = measured(seq2seq_capture(), "alti-rollout")
    heading = title(selection.show(result, viewing.ViewOptions(kind="encoder", layer=1)).figures["heatmap"])
    assert "layers up to 1" in heading and "ALTI rollout" in heading


def test_a_result_that_does_not_hold_the_measure_is_refused_in_both_languages():
    with pytest.raises(InputError) as caught:
        selection.show(seq2seq_capture(), viewing.ViewOptions(measure="alti"))
    assert "ALTI contributions" in caught.value.message("en") and "ALTI 贡献" in caught.value.message("zh")
    with pytest.raises(InputError, match="attention weights"):
        selection.show(measured(seq2seq_capture(), "alti"), viewing.ViewOptions(measure="weights"))
    with pytest.raises(InputError, match="Unknown measure"):
        selection.show(seq2seq_capture(), viewing.ViewOptions(measure="gradients"))


def test_a_measure_has_no_alignment_heads_and_no_attention_rollout():
    result = measured(seq2seq_capture(), "alti")
    with pytest.raises(InputError, match="no alignment heads") as caught:
        selection.show(result, viewing.ViewOptions(kind="cross", aggregation="alignment"))
    assert "对齐头" in caught.value.message("zh")
    with pytest.raises(InputError, match="ALTI rollout"):
        selection.show(result, viewing.ViewOptions(kind="encoder", aggregation="rollout"))


def test_value_norm_as_a_measure_is_the_value_norm_weighting():
    amap = numbered_map(kind="self")
    norms = np.random.default_rng(3).random((amap.num_layers, amap.num_heads, len(amap.key_tokens)))
    capture = AttentionCapture("m", "cpu", {"self": replace(amap, value_norms=norms.astype(np.float32))})
    options = viewing.ViewOptions(kind="self", aggregation="head", layer=1, head=2, hide_special=False, words=False)
    as_measure = selection.show(capture, replace(options, measure="value-norm"))
    as_weighting = selection.show(capture, replace(options, weighting="value-norm"))
    np.testing.assert_array_equal(as_measure.selection.matrix(), as_weighting.selection.matrix())
    assert title(as_measure.figures["heatmap"]) == title(as_weighting.figures["heatmap"])
    assert "value norm" in title(as_measure.figures["heatmap"])


def test_files_record_the_measure_when_a_view_names_it():
    assert selection.recorded_options(viewing.ViewOptions(measure="value-zeroing"))["measure"] == "value-zeroing"
    assert "measure" not in selection.recorded_options(viewing.ViewOptions())  # the capture's own provenance says


# ----------------------------------------------------------------------------------------------------------------------
# The agreement line


def ranks(values: np.ndarray) -> np.ndarray:
    """Each value's rank 0..n-1 (no ties in these tests), by sorting twice."""
    order = np.argsort(values, kind="stable")
    ranked = np.empty(len(values))
    ranked[order] = np.arange(len(values))
    return ranked


def test_spearman_is_pearson_of_the_ranks():
    rng = np.random.default_rng(0)
    first, second = rng.random(40), rng.random(40)
    expected = np.corrcoef(ranks(first), ranks(second))[0, 1]
    assert agreement.spearman(first, second) == pytest.approx(expected, abs=1e-12)
    assert agreement.spearman(first, first**3) == pytest.approx(1.0)  # ranks only: any increasing map agrees fully
    assert np.isnan(agreement.spearman(first, np.ones(40)))


def test_agreement_leaves_a_causal_maps_upper_triangle_out():
    rng = np.random.default_rng(1)
    lower = np.tril(np.ones((6, 6), bool))
    weights, other = np.where(lower, rng.random((6, 6)), 0), np.where(lower, rng.random((6, 6)), 0)
    found = agreement.agreement(weights, {"alti": other}, causal=True)
    assert found.cells == 21
    assert found.pairs["alti"] == pytest.approx(np.corrcoef(ranks(weights[lower]), ranks(other[lower]))[0, 1])
    whole = agreement.agreement(weights, {"alti": other}, causal=False)
    assert whole.cells == 36 and whole.pairs["alti"] > found.pairs["alti"]  # the shared zeros alone look like agreement


def test_the_line_says_agree_or_disagree_at_its_threshold_in_both_languages():
    rng = np.random.default_rng(2)
    weights = rng.random((5, 7))
    close = weights + 0.01 * rng.random((5, 7))
    found = agreement.agreement(weights, {"alti": close, "value-zeroing": rng.random((5, 7))})
    assert found.mean == pytest.approx(np.mean(list(found.pairs.values())))
    line, detail = agreement.agreement_line(found, layer=2)  # no measure chosen: the mean, said as one
    verdict = "agree:" if found.mean >= agreement.AGREE_FROM else "disagree:"
    assert verdict in line and f"mean ρ = {found.mean:.2f}" in line
    assert "layer 2" in detail and f"ρ ≥ {agreement.AGREE_FROM}" in detail and "ALTI contributions" in detail
    zh_line, zh_detail = agreement.agreement_line(found, layer=2, lang="zh")
    assert "平均 ρ =" in zh_line and "斯皮尔曼" in zh_detail and "值置零" in zh_detail
    same = agreement.agreement(weights, {"alti": close})
    assert "agree: ρ = 1.00" in agreement.agreement_line(same, 0, measure="alti")[0]
    assert agreement.agreement_line(None, 0, "en")[0].startswith("Too few")


def test_the_line_says_the_chosen_measures_own_rho_not_the_mean_of_every_pair():
    rng = np.random.default_rng(3)
    weights = rng.random((6, 6))
    close = weights + 0.05 * rng.random((6, 6))  # ρ near 1
    unrelated = rng.random((6, 6))  # ρ near 0
    found = agreement.agreement(weights, {"value-norm": close, "alti": close, "value-zeroing": unrelated})
    own = found.pairs["value-zeroing"]
    assert abs(own - found.mean) > 0.2  # the two numbers a line could say differ here
    line, _ = agreement.agreement_line(found, 0, measure="value-zeroing")
    assert f"ρ = {own:.2f}" in line and "value zeroing" in line and "mean" not in line
    assert ("disagree" in line) == (own < agreement.AGREE_FROM)  # the verdict is the chosen measure's
    zh_line, _ = agreement.agreement_line(found, 0, "zh", measure="value-zeroing")
    assert f"ρ = {own:.2f}" in zh_line and "值置零" in zh_line and "平均" not in zh_line


def test_view_agreement_compares_the_drawn_rows_of_the_shown_layer():
    capture = seq2seq_capture()
    alti = measured(capture, "alti")
    options = viewing.ViewOptions(kind="cross", aggregation="alignment", layer=1, words=False, hide_special=False)
    found = agreement.view_agreement(capture, {"alti": alti}, options)
    weights = capture["cross"].weights[1].mean(axis=0)
    expected = np.corrcoef(ranks(weights.ravel()), ranks(alti["cross"].weights[1, 0].ravel()))[0, 1]
    assert found.cells == weights.size and found.pairs == {"alti": pytest.approx(expected)}


def test_measures_of_another_shape_are_refused():
    with pytest.raises(ValueError, match="cannot be compared"):
        agreement.agreement(np.ones((2, 3)), {"alti": np.ones((3, 2))})


def test_one_table_of_computed_measures_names_what_views_offer():
    """`attnviz.measuring.MEASURES` (function, figure, file writer) holds every computed measure the views name, and
    no other; an unknown name reads the one sentence."""
    assert set(measuring.MEASURES) == {*names.CONTRIBUTIONS, *names.PER_OUTPUT_TOKEN}
    assert all(entry.per_layer_map == (name in names.CONTRIBUTIONS) for name, entry in measuring.MEASURES.items())
    with pytest.raises(InputError) as raised:
        measuring.get("attention-flow")
    assert raised.value.key == "measure_unknown" and "alti-rollout" in raised.value.message("en")
