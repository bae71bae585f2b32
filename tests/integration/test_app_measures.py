"""The Measure choice in the app (AppTest): Translate & align and Self-attention draw ALTI, its rollout or value
zeroing when chosen — the cells equal the measure's own module, the titles name it, the link carries it — with each
target token's ALTI+ shares under a translation's figures and the agreement line of weights and contributions."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attnviz import i18n, measuring
from attnviz.attention.capture import capture
from attnviz.errors import InputError
from attnviz.measures.alti import alti
from attnviz.measures.value_zeroing import value_zeroing
from attnviz.model.load import load_model
from attnviz.view import agreement, selection, viewing
from attnviz.view.looking import seed_looking_using
from tests.support.app import chart_specs, opened_without_errors
from tests.support.app import open_by_link as app
from tests.support.figure_reading import plotly_array

PAIR = {"text": "早上好！", "target": "Good morning!", "mode": "pair", "words": 0, "hide": 0}


@pytest.fixture(scope="module")
def marian(tiny_folder):
    folder = tiny_folder("marian")
    return folder, load_model(folder, "cpu")


def _view(at: AppTest, name: str) -> dict:
    return next(spec for spec in chart_specs(at) if spec["layout"].get("meta", {}).get("view") == name)


def _z(spec: dict) -> np.ndarray:
    return plotly_array(spec["data"][0]["z"])


def _said(at: AppTest) -> str:
    return " ".join(str(element.value) for element in [*at.markdown, *at.caption])


def test_a_link_opens_value_zeroing_on_translate_with_the_measures_numbers(marian):
    folder, handle = marian
    at = opened_without_errors(model=folder, view="layer", layer=1, measure="value-zeroing", **PAIR)
    expected = value_zeroing(handle, PAIR["text"], PAIR["target"])["cross"].weights[1, 0]  # (targets, sources)
    heatmap = _view(at, "heatmap")
    np.testing.assert_allclose(_z(heatmap), expected, atol=1e-6)
    for spec in chart_specs(at):
        title = spec["layout"]["title"]["text"]
        assert "head 0" not in title
    assert "value zeroing" in heatmap["layout"]["title"]["text"]
    assert at.selectbox(key="w_measure").value == "value-zeroing"
    assert at.query_params["measure"] == "value-zeroing"
    offered = at.selectbox(key="w_cross_aggregation").options  # the labels the menu shows
    assert i18n.t("aggregation_layer", "en") in offered  # the menu is read by its labels
    assert i18n.t("aggregation_alignment", "en") not in offered  # one map per layer: no heads


def test_alti_on_translate_draws_the_shares_and_the_agreement_line(marian):
    folder, handle = marian
    at = opened_without_errors(model=folder, view="layer", layer=1, **PAIR)
    assert "agree" not in _said(at)  # weights alone: no measure is run
    at.selectbox(key="w_measure").set_value("alti").run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    measured = alti(handle, PAIR["text"], PAIR["target"])
    np.testing.assert_allclose(_z(_view(at, "heatmap")), measured["cross"].weights[1, 0], atol=1e-6)
    shares = next(spec for spec in chart_specs(at) if spec["data"][0].get("type") == "bar")

    source, target = (plotly_array(trace["y"]) for trace in shares["data"])
    np.testing.assert_allclose(source, measured.shares.source_share, atol=1e-6)
    np.testing.assert_allclose(source + target, 1.0, atol=1e-5)
    weights = capture(handle, PAIR["text"], PAIR["target"])
    options = viewing.ViewOptions(kind="cross", layer=1, words=False, hide_special=False)
    found = agreement.view_agreement(
        weights, {"alti": measured, "value-zeroing": value_zeroing(handle, PAIR["text"], PAIR["target"])}, options
    )
    line, detail = agreement.agreement_line(found, 1, measure="alti")
    assert line in _said(at) and detail in _said(at)
    assert "ALTI contributions" in line and f"ρ = {found.pairs['alti']:.2f}" in line and "mean" not in line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_agreement_headline_is_the_drawn_measures_own_rho(marian, lang):
    folder, handle = marian
    at = opened_without_errors(model=folder, view="layer", layer=1, measure="alti-rollout", lang=lang, **PAIR)
    weights = capture(handle, PAIR["text"], PAIR["target"])
    measured = {name: measuring.measured(handle, PAIR["text"], PAIR["target"], measure=name) for name in MEASURED}
    options = viewing.ViewOptions(kind="cross", layer=1, words=False, hide_special=False, lang=lang)
    found = agreement.view_agreement(weights, measured, options)
    line = next(m.value for m in at.markdown if "ρ =" in m.value)
    assert f"ρ = {found.pairs['alti-rollout']:.2f}" in line  # the measure drawn, compared too
    assert i18n.t("measure_choice.alti-rollout", lang) in line and "mean" not in line and "平均" not in line


MEASURED = ("alti-rollout", "alti", "value-zeroing")


def test_self_attention_draws_alti_rollout_in_chinese(marian):
    folder, handle = marian
    at = opened_without_errors(
        "page_scripts/self_attention.py", model=folder, layer=1, measure="alti-rollout", lang="zh", **PAIR
    )
    expected = alti(handle, PAIR["text"], method="alti-rollout")["encoder"].weights[1, 0]
    heatmap = _view(at, "heatmap")
    np.testing.assert_allclose(_z(heatmap), expected, atol=1e-6)
    assert "ALTI 展开" in heatmap["layout"]["title"]["text"] and "第 0 头" not in heatmap["layout"]["title"]["text"]
    offered = at.selectbox(key="w_self_aggregation").options  # the labels the menu shows
    assert i18n.t("aggregation_layer", "zh") in offered  # the menu is read by its labels
    assert i18n.t("aggregation_rollout", "zh") not in offered
    assert "斯皮尔曼" in _said(at)


def test_a_measure_the_architecture_cannot_compute_is_a_sentence(marian, monkeypatch):
    def refuses(*args, **kwargs):
        raise InputError("block_not_found", measure="ALTI", layer="x", model="m")

    monkeypatch.setattr(measuring, "measured", refuses)
    folder, _ = marian
    at = app(model=folder, measure="alti", **{**PAIR, "text": "晚安。", "target": "Good night."})  # not cached
    assert not at.exception, [e.value for e in at.exception]
    assert any("cannot find the layer" in e.value for e in at.error)


def test_how_attention_works_shows_looking_is_not_using_with_computed_numbers():
    at = opened_without_errors("page_scripts/how_attention_works.py", lang="zh")
    assert any("看见不等于用到" in header.value for header in at.header)
    seed = seed_looking_using()
    tables = [frame.value for frame in at.dataframe if "贡献（值置零）" in frame.value.columns]
    table = next(frame for frame in tables if "鹿" in list(frame.iloc[:, 0]))  # the seed's, not your sentence's
    np.testing.assert_allclose(table["贡献（值置零）"].to_numpy(dtype=float), seed.contributions)
    assert "鹿" in _said(at) and "0.33" in _said(at)


def test_the_alti_shares_follow_the_word_view_and_hide_special_tokens():
    words = {"text": "爷爷和奶奶身体都很好。", "target": "Grandpa and grandma are both healthy.", "mode": "pair"}
    at = opened_without_errors(model="demo-zh-en", view="layer", layer=1, measure="alti", **words)  # words, hide on
    measured = alti(load_model("demo-zh-en", "cpu"), words["text"], words["target"])
    pieces = measured["cross"].query_tokens
    drawn = selection.prepare_map(measured, "cross", hide=True, words=True).query_tokens  # the rows the maps draw
    assert [w.text for w in drawn] == ["Grandpa", "and", "grandma", "are", "both", "healthy", "."]
    shares = next(spec for spec in chart_specs(at) if spec["data"][0].get("type") == "bar")
    source, target = shares["data"]
    assert [label.split(" ", 1)[1] for label in source["x"]] == [w.text for w in drawn]  # no "Grand", "pa", "</s>"
    inside = [[j for j, p in enumerate(pieces) if not p.special and w.start <= p.start < p.end <= w.end] for w in drawn]
    expected = [measured.shares.source_share[js].mean() for js in inside]  # a word: its pieces' mean, as rows merge
    np.testing.assert_allclose(plotly_array(source["y"]), expected, atol=1e-6)
    np.testing.assert_allclose(plotly_array(source["y"]) + plotly_array(target["y"]), 1.0, atol=1e-5)
    assert list(shares["layout"]["xaxis"]["tickvals"]) == list(source["x"])  # every label written
