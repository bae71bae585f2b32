"""The sidebar's "Advanced: placement": a max memory that sends part of the demo translator to disk loads it through
accelerate and captures what the model on one device captures, bit for bit, with the sidebar saying where each
layer was kept and ran; a max memory the parser refuses is one sentence in the page's language; the placement stays
out of the link."""

from __future__ import annotations

import numpy as np
import pytest

from app_pages.shared import caches
from attnviz.attention.capture import capture
from attnviz.errors import ModelLoadError
from attnviz.model.load import load_model
from attnviz.model.placement import max_memory_of
from tests.support.app import assert_page_ok, charts, one_torch_thread, open_app  # noqa: F401 - autouse fixture
from tests.support.figure_reading import plotly_array as array

PAIR = {"text": "早上好！", "target": "Good morning!", "mode": "pair", "words": 0, "hide": 0}
HEAD = {"model": "demo-zh-en", "view": "head", "layer": 2, "head": 1}


@pytest.fixture(scope="module")
def demo():
    return load_model("demo-zh-en", "cpu")


def _placed(at, max_memory: str, offload_folder: str = "") -> None:
    at.text_input(key="w_max_memory").set_value(max_memory)
    at.text_input(key="w_offload_folder").set_value(offload_folder)
    at.run()


def test_a_max_memory_that_sends_layers_to_disk_captures_the_same_weights(demo, tmp_path):
    at = open_app(device="cpu", **HEAD, **PAIR)
    assert_page_ok(at)
    one_device = array(charts(at)["heatmap"]["data"][0]["z"])
    size = sum(parameter.numel() * parameter.element_size() for parameter in demo.model.parameters())
    # 80% of the weights on the CPU: the last decoder layers go to disk (the demo's sinusoidal positions stay on the
    # CPU; accelerate cannot read back a buffer it did not write when those go to disk as well)
    _placed(at, f"cpu={int(size * 0.8)}B", str(tmp_path / "offload"))
    assert_page_ok(at)
    placed = array(charts(at)["heatmap"]["data"][0]["z"])
    expected = capture(demo, PAIR["text"], PAIR["target"])["cross"].weights[2, 1]  # (queries, keys)
    assert np.array_equal(placed, one_device) and np.array_equal(placed, expected)
    # the detached-translation flag needs ALTI, which reads every weight: refused in a sentence, the page goes on
    assert any("ALTI reads every layer's weights" in caption.value for caption in at.caption)
    report = [expander for expander in at.sidebar.expander if "Where each layer ran" in expander.label]
    assert len(report) == 1 and "disk" in report[0].label and "cpu" in report[0].label
    table = report[0].markdown[0].value
    assert "| `model.decoder.layers.2.encoder_attn` | disk | cpu |" in table
    assert "| `model.encoder.layers.0.self_attn` | cpu | cpu |" in table
    assert not {"max_memory", "offload_folder", "device_map"} & set(at.query_params)  # machine-specific: no link


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bad_max_memory_is_one_sentence_in_the_page_language(lang):
    at = open_app(device="cpu", lang=lang, **HEAD, **PAIR)
    labels = [expander.label for expander in at.sidebar.expander]
    assert {"en": "Advanced: placement", "zh": "高级：模型放置"}[lang] in labels
    _placed(at, "npu:0=lots")
    with pytest.raises(ModelLoadError) as refused:
        max_memory_of("npu:0=lots")
    sentence = refused.value.message(lang)
    assert sentence in [error.value for error in at.sidebar.error]
    assert any(sentence in error.value for error in at.main.error)  # the page's model load says it too
    assert not at.exception
    _placed(at, "")  # cleared: the model loads again on one device
    assert_page_ok(at)
    assert "heatmap" in charts(at)


def test_a_placement_the_model_cannot_run_with_is_said_not_crashed(demo, tmp_path):
    size = sum(parameter.numel() * parameter.element_size() for parameter in demo.model.parameters())
    at = open_app(device="cpu", lang="zh", **HEAD, **PAIR)
    _placed(at, f"cpu={size // 2}", str(tmp_path / "offload"))  # the decoder's positions would go to disk
    assert not at.exception
    with pytest.raises(ModelLoadError) as refused:
        load_model("demo-zh-en", "cpu", max_memory={"cpu": size // 2}, offload_folder=tmp_path / "again")
    assert any(refused.value.message("zh") in error.value for error in at.main.error)
    assert all("max_memory" in error.value for error in at.main.error)  # no "something went wrong"


def test_a_placement_that_loads_onto_one_device_is_keyed_as_one_device(tmp_path):
    """Blank limits, or an offload folder with no device map and no max memory, load the model as the sidebar's one
    device does: the model is not loaded again, and every page cache keys on the one-device placement."""
    at = open_app(device="cpu", **HEAD, **PAIR)
    assert_page_ok(at)
    loaded = set(caches._loaded)
    assert caches.ModelKey("demo-zh-en", "cpu", caches.ONE_DEVICE) in loaded
    for max_memory, offload_folder in [("  ", ""), ("", str(tmp_path)), (" ", f" {tmp_path} ")]:
        _placed(at, max_memory, offload_folder)
        assert_page_ok(at)
        assert caches._loaded == loaded
