"""The Compare page under streamlit's AppTest: A (the sidebar's model and text) beside B, the diff figure and the
ranking equal the library's comparison, the view control picks one head, the link reopens the same view, and an
empty B is said in a sentence."""

from __future__ import annotations

import base64
import json
import math

import numpy as np

from attnviz import selection
from attnviz.attention.capture import capture
from attnviz.compare import compare_captures
from attnviz.models import load_model
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
    every = selection.ViewOptions(kind="self", aggregation="all")  # the view's defaults: words, special tokens hidden
    assert_side_by_side(at, captures, (every, every))

    at.segmented_control(key="w_compare_scope").set_value("head").run()
    at.selectbox(key="w_layer").set_value(1).run()
    at.selectbox(key="w_head").set_value(2).run()
    assert_page_ok(at)
    np.testing.assert_allclose(diff_z(at), expected.diff[1, 2], atol=1e-6)
    one = selection.ViewOptions(kind="self", aggregation="head", layer=1, head=2)
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
