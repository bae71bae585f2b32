"""A long text on the Heads page, through AppTest: it is read as on Self-attention — by the catalogue model that reads
the most of it (`long_texts.reading_model`), or by the chosen model, truncated, with the page saying what was cut —
and the statistics shown are that model's, computed from its exact weights."""

from __future__ import annotations

import base64
import json
import math

import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest

from app_pages import caches
from attnviz import analysis, models
from attnviz.attention.capture import capture
from attnviz.models import load_model
from tests.support.app import open_by_link
from tests.support.long_texts import english_text


def array(value) -> np.ndarray:
    """A plotly JSON array: a nested list (null = NaN) or a typed array {"dtype", "bdata", "shape"}."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        shape = [int(n) for n in shape.split(",")] if isinstance(shape, str) else shape
        return flat.reshape(shape).astype(float) if shape else flat.astype(float)
    return np.array([[math.nan if v is None else v for v in row] for row in value], dtype=float)


def statistic_grid(at: AppTest) -> np.ndarray:
    """The Heads page's layer × head grid of the chosen statistic."""
    specs = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    return array(next(spec for spec in specs if spec["layout"]["meta"]["view"] == "statistic")["data"][0]["z"])


def said(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.caption, *at.warning, *at.info, *at.markdown])


def page_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_heads_reads_a_long_text_with_the_longest_reader_or_truncated(tmp_path, monkeypatch, tiny_folder):
    from tests.support.tiny import save_long_llama

    reader = save_long_llama(tmp_path / "decoder", positions=4096)
    shipped = models.catalogue

    def catalogue(lang: str = "en"):
        others = [entry for entry in shipped(lang) if entry.name != "demo-decoder"]  # the stand-in replaces it
        return [*others, models.catalogue_entry("demo-decoder", reader, "decoder", lang)]

    monkeypatch.setattr(models, "catalogue", catalogue)
    monkeypatch.setattr(caches, "catalogue_entries", catalogue)
    st.cache_resource.clear()  # an earlier test may hold the shipped demo-decoder under the same name
    st.cache_data.clear()
    chosen = tiny_folder("bert")  # reads 512 positions
    text = english_text(150)  # a byte-level tokenizer: about 900 tokens, within the stand-in's 4,096
    at = open_by_link("heads.py", timeout=600, model=chosen, text=text, kind="self")
    page_ok(at)
    assert "It is shown with demo-decoder, which reads up to 4,096" in said(at) and "Kept" not in said(at)
    whole = capture(load_model(reader, "cpu"), text)["self"]  # every token read, equal to eager attention
    np.testing.assert_allclose(statistic_grid(at), analysis.head_statistics(whole)["entropy"], atol=1e-5)

    at.toggle(key="w_long_model").set_value(False).run()  # keep the chosen model: the text is cut to its limit
    page_ok(at)
    bert = load_model(chosen, "cpu")
    total, limit = len(bert.tokenizer(text)["input_ids"]), bert.max_positions
    assert total > limit and f"Kept {limit} of {total:,} tokens; cut from" in said(at)
    assert at.toggle(key="w_truncate").value
    cut = capture(bert, text, truncate=True)["self"]
    np.testing.assert_allclose(statistic_grid(at), analysis.head_statistics(cut)["entropy"], atol=1e-5)
