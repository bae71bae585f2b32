"""Long texts in the app through AppTest: truncation is offered and said, a long text opens on the catalogue model
that reads the most of it (on Self-attention and on Heads), and the long view's figures are the model's exact
weights."""

from __future__ import annotations

import base64
import json
import math

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from app_pages.how_attention_works import sentence
from app_pages.shared import caches
from attnviz.attention.capture import capture
from attnviz.maps import head_stats
from attnviz.model import catalogue
from attnviz.model.load import load_model
from attnviz.view import selection, viewing
from tests.support import needs
from tests.support.app import open_by_link
from tests.support.long_texts import english_text


def open_page(page: str, **params) -> AppTest:
    return open_by_link(page, timeout=600, **params)


def array(value) -> np.ndarray:
    """A plotly JSON array: a nested list (null = NaN) or a typed array {"dtype", "bdata", "shape"}."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        shape = [int(n) for n in shape.split(",")] if isinstance(shape, str) else shape
        return flat.reshape(shape).astype(float) if shape else flat.astype(float)
    return np.array([[math.nan if v is None else v for v in row] for row in value], dtype=float)


def page_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def chart(at: AppTest, key: str) -> dict:
    return next(json.loads(e.proto.spec) for e in at.get("plotly_chart") if e.proto.id.endswith(f"-chart_{key}"))


def said(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.caption, *at.warning, *at.info, *at.markdown])


@pytest.fixture(scope="module")
def minilm():
    needs.minilm()
    return load_model("minilm", "cpu")


def test_1500_words_open_on_minilm_truncated_with_exact_figures(minilm):
    text = english_text(1500)
    total = len(minilm.tokenizer(text)["input_ids"])
    at = open_page(
        "page_scripts/self_attention.py", model="minilm", long_model=0
    )  # MiniLM kept, not the longest reader
    at.text_input(key="w_text").input(text).run()
    page_ok(at)
    assert f"Kept 512 of {total:,} tokens; cut from" in said(at)
    assert "It is shown with" not in said(at)  # the link keeps MiniLM; the toggle offers the longer reader
    assert at.toggle(key="w_truncate").value and not at.toggle(key="w_long_model").value
    weights = capture(minilm, text, truncate=True)["self"].weights  # (layers, heads, 512, 512), equal to eager
    assert weights.shape[-1] == 512
    np.testing.assert_allclose(array(chart(at, "long_block")["data"][0]["z"]), weights[0, 0, :128, :128], atol=1e-5)
    pooled = chart(at, "long_pooled")
    assert pooled["layout"]["meta"]["query_count"] == 512
    assert len(pooled["layout"]["yaxis"]["ticktext"]) <= 64 < len(array(pooled["data"][0]["z"]))  # labels thinned

    at.selectbox(key="w_layer").set_value(3).run()
    at.selectbox(key="w_head").set_value(1).run()
    at.slider(key="w_lines_from").set_value(200).run()
    page_ok(at)
    window = selection.token_window(512, 200, viewing.LINES_WINDOW)
    lines = chart(at, "long_lines")
    assert "rows 200–239 × keys 200–239" in lines["layout"]["title"]["text"]
    assert lines["layout"]["meta"]["view"] == "lines"
    words = [trace for trace in lines["data"] if trace.get("name") == "tokens"]
    assert [len(trace["text"]) for trace in words] == [window[1] - window[0]] * 2  # a window of tokens, not 512
    outside = 1 - weights[3, 1, 200:240, 200:240].sum(axis=-1).mean()
    assert f"{outside:.0%} of these tokens' weight goes to tokens outside it" in said(at)

    at.toggle(key="w_truncate").set_value(False).run()  # the choice is the person's: off, the text is refused
    assert any("accepts at most 512" in e.value for e in at.error)
    at.toggle(key="w_truncate").set_value(True).run()
    at.toggle(key="w_long_model").set_value(True).run()  # the longest reader of English reads all of it
    page_ok(at)
    assert "It is shown with demo-decoder, which reads up to 4,096" in said(at) and "Kept" not in said(at)


def long_reader(tmp_path, monkeypatch) -> str:
    """A random long-context decoder (4,096 positions) standing in for the catalogue's demo-decoder; its folder."""
    from tests.support.tiny import save_long_llama

    folder = save_long_llama(tmp_path / "decoder", positions=4096)
    shipped = catalogue.catalogue_folders()
    others = [entry for entry in shipped if entry[0] != "demo-decoder"]  # the stand-in replaces it
    monkeypatch.setattr(catalogue, "catalogue_folders", lambda: [*others, ("demo-decoder", folder, "decoder")])
    monkeypatch.setattr(caches, "catalogue_entries", catalogue.catalogue)
    st.cache_resource.clear()  # an earlier test may hold the shipped demo-decoder under the same name
    st.cache_data.clear()
    return folder


def test_a_long_text_opens_on_the_longest_reader_when_one_lands(tmp_path, monkeypatch):
    from attnviz.attention.ondemand import capture_lazy

    folder = long_reader(tmp_path, monkeypatch)
    text = english_text(800)  # more than demo-zh-en's 128 tokens and MiniLM's 512, within the stand-in's 4,096
    at = open_page("page_scripts/self_attention.py")
    at.text_input(key="w_text").input(text).run()
    page_ok(at)
    assert "It is shown with demo-decoder, which reads up to 4,096" in said(at)
    assert "Kept" not in said(at)  # it reads the whole text
    handle = load_model(folder, "cpu")
    tokens = len(handle.tokenizer(text)["input_ids"])
    assert chart(at, "long_pooled")["layout"]["meta"]["query_count"] == tokens
    head = capture_lazy(handle, text).head("self", 1, 3, rows=(0, 128), keys=(0, 128))
    at.selectbox(key="w_layer").set_value(1).run()
    at.selectbox(key="w_head").set_value(3).run()
    page_ok(at)
    drawn = array(chart(at, "long_block")["data"][0]["z"])
    masked = np.triu(np.ones((128, 128), dtype=bool), 1)  # a causal map's cells after each query: drawn as masked
    assert np.isnan(drawn[masked]).all() and not np.isnan(drawn[~masked]).any()
    np.testing.assert_allclose(np.where(masked, 0.0, drawn), head, atol=1e-5)
    whole = capture(handle, text)["self"].weights[1, 3, :128, :128]  # the full capture, equal to eager attention
    np.testing.assert_allclose(np.where(masked, 0.0, drawn), whole, atol=1e-5)


def statistic_grid(at: AppTest) -> np.ndarray:
    """The Heads page's layer × head grid of the chosen statistic."""
    specs = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    return array(next(spec for spec in specs if spec["layout"]["meta"]["view"] == "statistic")["data"][0]["z"])


def test_heads_reads_a_long_text_with_the_longest_reader_or_truncated(tmp_path, monkeypatch, tiny_folder):
    """The Heads page reads a long text as Self-attention does, and shows that model's statistics."""
    reader = long_reader(tmp_path, monkeypatch)
    chosen = tiny_folder("bert")  # reads 512 positions
    text = english_text(150)  # a byte-level tokenizer: about 900 tokens, within the stand-in's 4,096
    at = open_page("page_scripts/heads.py", model=chosen, text=text, kind="self")
    page_ok(at)
    assert "It is shown with demo-decoder, which reads up to 4,096" in said(at) and "Kept" not in said(at)
    whole = capture(load_model(reader, "cpu"), text)["self"]  # every token read, equal to eager attention
    np.testing.assert_allclose(statistic_grid(at), head_stats.head_statistics(whole)["entropy"], atol=1e-5)

    at.toggle(key="w_long_model").set_value(False).run()  # keep the chosen model: the text is cut to its limit
    page_ok(at)
    bert = load_model(chosen, "cpu")
    total, limit = len(bert.tokenizer(text)["input_ids"]), bert.max_positions
    assert total > limit and f"Kept {limit} of {total:,} tokens; cut from" in said(at)
    assert at.toggle(key="w_truncate").value
    cut = capture(bert, text, truncate=True)["self"]
    np.testing.assert_allclose(statistic_grid(at), head_stats.head_statistics(cut)["entropy"], atol=1e-5)


def test_translate_offers_truncation_and_says_what_it_cut():
    text = english_text(200)
    at = open_page("page_scripts/translate.py", model="demo-en-zh")
    at.text_input(key="w_text").input(text).run()
    page_ok(at)
    assert at.toggle(key="w_truncate").value
    assert "Kept 128 of" in said(at)
    line = next(m.value for m in at.markdown if " → " in m.value)  # source → translation, above the controls
    assert len(line) < 1000 and "characters)" in line  # quoted, with the count of what is left out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_walk_through_reads_a_window_of_a_long_text_and_says_so(lang):
    text = english_text(700)  # ~1,000 tokens for the demo decoder
    at = open_page("page_scripts/how_attention_works.py", model="demo-decoder", text=text, lang=lang, kind="self")
    page_ok(at)
    window = sentence.WINDOW_TOKENS
    assert len(at.selectbox(key="w_ex_token").options) <= window + 2  # the window's tokens (and special ones)
    info = " ".join(i.value for i in at.info)
    assert f"{window}" in info and ("first" in info if lang == "en" else "前" in info)
    assert len(said(at)) < 20_000  # the text is quoted, not repeated whole
    assert any(s.value for s in at.success)  # the window's rows equal its own capture's weights
