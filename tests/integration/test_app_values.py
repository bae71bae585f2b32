"""The weighting switch in the app (AppTest): weights | weighted by value norm, from a link and from the control,
on the Translate & align and Self-attention pages, and for a long text's pooled and exact views."""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attnviz.attention.capture import capture
from attnviz.maps import analysis
from attnviz.model.load import load_model
from attnviz.view import viewing
from tests.support.app import chart_specs, opened_without_errors

PAIR = {"text": "早上好！", "target": "Good morning!", "mode": "pair", "words": 0, "hide": 0}
LONG_TEXT = "早上好！Good morning, my friend! 晚安。"


@pytest.fixture(scope="module")
def marian(tiny_folder):
    folder = tiny_folder("marian")
    return folder, load_model(folder, "cpu")


def _heatmap(at: AppTest, key: str | None = None) -> dict:
    specs = [json.loads(e.proto.spec) for e in at.get("plotly_chart") if key is None or e.proto.id.endswith(key)]
    return next(spec for spec in specs if spec["layout"].get("meta", {}).get("view") == "heatmap")


def _z(spec: dict) -> np.ndarray:
    from tests.support.figure_reading import plotly_array

    return plotly_array(spec["data"][0]["z"])


def _bar(spec: dict) -> np.ndarray | None:
    from tests.support.figure_reading import plotly_array

    bars = [trace for trace in spec["data"] if trace.get("type") == "bar"]
    return plotly_array(bars[0]["y"]) if bars else None


def test_a_link_opens_the_value_weighted_heatmap_with_its_norm_bar(marian):
    folder, handle = marian
    at = opened_without_errors(model=folder, view="head", layer=1, head=2, weighting="value-norm", **PAIR)
    cross = capture(handle, PAIR["text"], PAIR["target"])["cross"]
    heatmap = _heatmap(at)
    expected = analysis.value_weighted(cross)
    np.testing.assert_allclose(_z(heatmap), expected.weights[1, 2], atol=1e-6)
    np.testing.assert_allclose(_bar(heatmap), cross.value_norms[1, 2], rtol=1e-5)
    assert "weighted by value norm" in heatmap["layout"]["title"]["text"]
    assert all("weighted by value norm" in spec["layout"]["title"]["text"] for spec in chart_specs(at))
    assert at.radio(key="w_weighting").value == "value-norm"
    assert at.query_params["weighting"] == "value-norm"


def test_the_control_switches_between_weights_and_value_norms(marian):
    folder, handle = marian
    at = opened_without_errors(model=folder, view="head", layer=0, head=1, **PAIR)
    cross = capture(handle, PAIR["text"], PAIR["target"])["cross"]
    np.testing.assert_allclose(_z(_heatmap(at)), cross.weights[0, 1], atol=1e-6)
    assert _bar(_heatmap(at)) is None
    assert "weighting" not in at.query_params
    at.radio(key="w_weighting").set_value("value-norm").run()
    np.testing.assert_allclose(_z(_heatmap(at)), analysis.value_weighted(cross).weights[0, 1], atol=1e-6)
    assert at.query_params["weighting"] == "value-norm"


def test_generated_translations_weigh_by_value_norm_too_in_chinese(marian):
    folder, _ = marian
    at = opened_without_errors(model=folder, text="早上好！", weighting="value-norm", lang="zh")
    heatmap = _heatmap(at)
    assert _bar(heatmap) is not None
    assert "按值向量范数加权" in heatmap["layout"]["title"]["text"]


def test_self_attention_page_weighs_by_value_norm(marian):
    folder, handle = marian
    at = opened_without_errors(
        "page_scripts/self_attention.py",
        model=folder,
        self_view="head",
        layer=1,
        head=0,
        weighting="value-norm",
        **PAIR,
    )
    encoder = capture(handle, PAIR["text"])["encoder"]
    heatmap = _heatmap(at)
    np.testing.assert_allclose(_z(heatmap), analysis.value_weighted(encoder).weights[1, 0], atol=1e-6)
    np.testing.assert_allclose(_bar(heatmap), encoder.value_norms[1, 0], rtol=1e-5)


def test_a_long_text_weighs_its_pooled_view_and_its_block(marian, monkeypatch):
    folder, handle = marian
    monkeypatch.setenv("ATTNVIZ_LAZY_FROM_TOKENS", "8")
    monkeypatch.setattr(viewing, "LONG_WINDOW", 8)
    monkeypatch.setattr(viewing, "LONG_BINS", 16)
    params = {**PAIR, "text": LONG_TEXT, "long_model": 0}  # this model, not the longest reader
    at = opened_without_errors(
        "page_scripts/self_attention.py", model=folder, layer=1, head=2, weighting="value-norm", **params
    )
    weighted = analysis.value_weighted(capture(handle, LONG_TEXT)["encoder"]).weights[1, 2]  # (n, n)
    n = weighted.shape[0]
    factor = -(-n // 16)
    pooled = _heatmap(at, "-chart_long_pooled")
    np.testing.assert_allclose(_z(pooled), analysis.downsample(weighted, factor, factor, "max"), atol=1e-5)
    block = _heatmap(at, "-chart_long_block")
    np.testing.assert_allclose(_z(block), weighted[:8, :8], atol=1e-5)
    assert _bar(block) is not None
