"""The Compare page under streamlit's AppTest: A (the sidebar's model and text) beside B, the diff figure and the
ranking equal the library's comparison, the view control picks one head, the link reopens the same view, B in half
precision shows the parity numbers of a direct computation, and an empty B is said in a sentence."""

from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import pytest
import torch

from attnviz import i18n
from attnviz.attention.capture import capture
from attnviz.compare import compare_captures
from attnviz.errors import InputError
from attnviz.model import precision
from attnviz.model.devices import resolve_device
from attnviz.model.load import load_model
from attnviz.view import selection, viewing
from tests.support.app import assert_page_ok, open_by_link

PAGE = "page_scripts/compare.py"
TEXT_A, TEXT_B = "the cat sat on the mat", "the big cat sat on the mat"


def diff_z(at) -> np.ndarray:
    specs = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    z = next(s for s in specs if s["layout"].get("meta", {}).get("view") == "diff")["data"][0]["z"]
    if isinstance(z, dict):
        flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        shape = [int(n) for n in z["shape"].split(",")] if isinstance(z["shape"], str) else z["shape"]
        return flat.reshape(shape).astype(float)
    return np.array([[math.nan if v is None else v for v in row] for row in z], dtype=float)


def drawn_alignments(at) -> list[dict]:
    """The alignment diagrams on the page, left to right."""
    specs = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    return [s for s in specs if s["layout"].get("meta", {}).get("view") == "alignment"]


def link_weights(spec_or_figure) -> list[float]:
    """The weights of an alignment's links (one line trace each, its weight in customdata), sorted."""
    data = spec_or_figure["data"] if isinstance(spec_or_figure, dict) else spec_or_figure.to_plotly_json()["data"]
    lines = [trace for trace in data if trace.get("mode") == "lines"]
    return sorted(float(np.asarray(trace["customdata"]).ravel()[0]) for trace in lines)


def assert_side_by_side(at, captures, options) -> None:
    """Two diagrams, A's then B's, each with the links `selection.show` draws of its capture, at one size."""
    diagrams = drawn_alignments(at)
    assert len(diagrams) == 2
    for diagram, result, option in zip(diagrams, captures, options):
        expected = selection.show(result, option, names=("alignment",)).figures["alignment"]
        assert link_weights(diagram) == link_weights(expected)
        assert link_weights(diagram)  # something drawn, at the default threshold
    (a, b) = (d["layout"] for d in diagrams)
    assert a["height"] == b["height"] and a["width"] == b["width"]


def test_the_page_draws_the_librarys_comparison_and_its_link_reopens_it(tiny_folder):
    model = tiny_folder("bert")
    handle = load_model(model, "cpu")
    captures = capture(handle, TEXT_A), capture(handle, TEXT_B)
    expected = compare_captures(*captures, hide_special=True)  # as the app
    at = open_by_link(PAGE, timeout=240, model=model, text=TEXT_A, text_b=TEXT_B, device="cpu")
    assert_page_ok(at)
    np.testing.assert_allclose(diff_z(at), expected.diff_view().values, atol=1e-6)
    table = at.dataframe[0].value
    assert len(table) == 8 and list(table["js"]) == [row["js"] for row in expected.table()]
    assert list(table["kind"]) == [i18n.t("kind_self", "en")] * 8  # the map named as the page names it
    every = viewing.ViewOptions(kind="self", aggregation="all")  # the view's defaults: words, special tokens hidden
    assert_side_by_side(at, captures, (every, every))

    at.segmented_control(key="w_compare_scope").set_value("head").run()
    at.selectbox(key="w_layer").set_value(1).run()
    at.selectbox(key="w_head").set_value(2).run()
    assert_page_ok(at)
    np.testing.assert_allclose(diff_z(at), expected.diff[1, 2], atol=1e-6)
    one = viewing.ViewOptions(kind="self", aggregation="head", layer=1, head=2)
    assert_side_by_side(at, captures, (one, one))

    link = {name: at.query_params[name] for name in at.query_params}
    link = {name: value if isinstance(value, str) else value[-1] for name, value in link.items()}
    assert link["text_b"] == TEXT_B and link["compare_scope"] == "head" and link["layer"] == "1"
    reopened = open_by_link(PAGE, timeout=240, **link)
    assert_page_ok(reopened)
    np.testing.assert_allclose(diff_z(reopened), expected.diff[1, 2], atol=1e-6)


def test_an_empty_b_is_said_in_the_pages_language(tiny_folder):
    at = open_by_link(PAGE, timeout=240, model=tiny_folder("bert"), text=TEXT_A, text_b=" ", lang="zh")
    assert not at.exception
    assert any("文本 B 是空的" in error.value for error in at.error)


PARITY = {  # the parity line as each language says it: max |ΔP|, its layer and head, the row-sum error
    "en": r"max \|ΔP\| (\S+) \(layer (\d+), head (\d+)\); row-sum error (\S+)",
    "zh": r"最大 \|ΔP\| (\S+)（第 (\d+) 层，第 (\d+) 个头）；行和误差 (\S+)",
}


@pytest.mark.parametrize("lang, title", [("en", "One input read twice"), ("zh", "同一输入读了两次")])
def test_b_in_bfloat16_shows_the_parity_numbers_of_a_direct_computation(tiny_folder, lang, title):
    # a comparison of precisions: the CPU runs B in bfloat16 (the policy's `compared`), no patch needed
    model = tiny_folder("bert")
    link = dict(model=model, text=TEXT_A, text_b=TEXT_A, device="cpu", dtype_b="bfloat16", lang=lang)
    at = open_by_link(PAGE, timeout=240, **link)
    assert_page_ok(at)
    assert at.selectbox(key="w_dtype_b").value == "bfloat16" and at.query_params["dtype_b"] == "bfloat16"
    assert title in [header.value for header in at.subheader]
    said = next(found for caption in at.caption if (found := re.search(PARITY[lang], caption.value)))
    # independently: the float32 model cast by torch itself (not through load_model's dtype), diffed in numpy
    full, half = load_model(model, "cpu"), load_model(model, "cpu")
    half.model.to(torch.bfloat16)
    weights = [capture(handle, TEXT_A)["self"].weights.astype(np.float64) for handle in (full, half)]
    per_head = np.abs(weights[0] - weights[1]).max(axis=(2, 3))  # (layers, heads)
    assert 0 < per_head.max() < 0.1  # half precision moves the weights, a little
    assert float(said[1]) == pytest.approx(per_head.max(), rel=0.01)  # the page says 3 digits
    assert (int(said[2]), int(said[3])) == np.unravel_index(np.argmax(per_head), per_head.shape)
    rows = max(np.abs(w.sum(-1) - 1).max() for w in weights)
    assert float(said[4]) == pytest.approx(rows, rel=0.01, abs=1e-12)


def runs_in(device: str, dtype: str) -> bool:
    """Whether the precision policy lets a model run in `dtype` on the device `device` names."""
    try:
        precision.dtype_policy(resolve_device(device), dtype, compared=True)
    except InputError:
        return False
    return True


@pytest.mark.parametrize("device, lang", [("cpu", "en"), ("auto", "zh")])
def test_b_is_offered_only_the_precisions_its_device_runs(tiny_folder, device, lang):
    # what the policy allows B's device in a comparison of precisions: on the CPU, both half precisions too
    link = dict(model=tiny_folder("bert"), text=TEXT_A, text_b=TEXT_A, device=device, lang=lang)
    at = open_by_link(PAGE, timeout=240, **link)
    assert_page_ok(at)
    halves = [dtype for dtype in ("float16", "bfloat16") if runs_in(device, dtype)]
    assert at.selectbox(key="w_dtype_b").options == [i18n.t("compare_dtype_same", lang), *halves]


def test_bs_same_device_is_named_in_the_pages_language(tiny_folder):
    at = open_by_link(PAGE, timeout=240, model=tiny_folder("bert"), text=TEXT_A, text_b=TEXT_A, lang="zh")
    assert_page_ok(at)
    assert at.selectbox(key="w_device_b").options[0] == "与 A 相同（自动（NPU → CUDA → CPU））"


@pytest.mark.parametrize("lang, words", [("en", "not allowed on cpu"), ("zh", "cpu 上不能使用")])
def test_a_precision_the_device_cannot_run_is_said_in_the_pages_language(monkeypatch, tiny_folder, lang, words):
    # a device whose policy refuses it (mps refuses bfloat16; none here): the CPU stands in with float32 alone
    monkeypatch.setitem(precision._COMPARED_DTYPES, "cpu", (torch.float32,))
    link = dict(model=tiny_folder("bert"), text=TEXT_A, text_b=TEXT_A, device="cpu", dtype_b="float16", lang=lang)
    at = open_by_link(PAGE, timeout=240, **link)
    assert not at.exception
    assert any(words in error.value for error in at.error)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_precision_for_b_on_another_text_says_what_parity_needs(tiny_folder, lang):
    link = dict(model=tiny_folder("bert"), text=TEXT_A, text_b=TEXT_B, device="cpu", dtype_b="bfloat16", lang=lang)
    at = open_by_link(PAGE, timeout=240, **link)
    assert_page_ok(at)
    assert [info.value for info in at.info] == [i18n.t("compare_parity_needs_same", lang)]
    assert i18n.t("compare_parity_title", lang) not in [header.value for header in at.subheader]
