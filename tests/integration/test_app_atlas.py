"""The Atlas page through AppTest: a long text's atlas is built on a click, its poster, table and zoom drawn, its
exact window equal to the library's, the pattern filter greys the heads it leaves out, both languages."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attnviz.atlas import capture_atlas
from attnviz.model.load import load_model
from tests.support.app import assert_page_ok, open_by_link
from tests.support.figure_reading import plotly_array
from tests.support.long_texts import english_text
from tests.support.tiny import save_long_llama

PAGE = "page_scripts/atlas.py"
TEXT = english_text(60)


def _chart(at, key: str) -> dict:
    return next(json.loads(e.proto.spec) for e in at.get("plotly_chart") if e.proto.id.endswith(f"-chart_{key}"))


@pytest.fixture(scope="module")
def long_llama(tmp_path_factory) -> str:
    return save_long_llama(tmp_path_factory.mktemp("long"), positions=2048)


@pytest.fixture(scope="module")
def built(long_llama):
    folder = long_llama
    at = open_by_link(PAGE, timeout=600, model=folder, text=TEXT)
    assert_page_ok(at)
    at.select_slider(key="w_atlas_block").set_value(16)
    at.button(key="atlas_run").click().run()
    assert_page_ok(at)
    return at, folder


def test_the_atlas_is_built_and_drawn(built):
    at, folder = built
    expected = capture_atlas(load_model(folder, "cpu"), TEXT, block=16)
    tokens = len(expected["self"].query_tokens)
    assert any(f"{tokens:,} tokens, blocks of 16" in s.value for s in at.success)
    poster = _chart(at, "atlas_poster")
    assert poster["layout"]["meta"]["view"] == "atlas"
    assert _chart(at, "atlas_head")["layout"]["meta"]["view"] == "atlas-head"
    window = plotly_array(_chart(at, "atlas_window")["data"][0]["z"])
    rows = min(128, tokens)
    exact = expected.window("self", 0, 0, (0, rows), (0, rows))
    drawn = np.isfinite(window)  # the heatmap leaves the causal mask's cells empty
    np.testing.assert_array_equal(~drawn, np.triu(np.ones((rows, rows), dtype=bool), 1))
    np.testing.assert_allclose(window[drawn], exact[drawn], atol=1e-6, rtol=0)
    assert (exact[~drawn] == 0).all()
    assert len(at.dataframe) == 1


def test_the_filter_greys_the_heads_it_leaves_out(built):
    at, _ = built
    options = at.multiselect(key="w_atlas_filter").value
    assert options  # the labels the heads have
    at.multiselect(key="w_atlas_filter").set_value([]).run()
    assert_page_ok(at)
    z = plotly_array(_chart(at, "atlas_poster")["data"][0]["z"])
    assert np.isnan(z).all()
    at.multiselect(key="w_atlas_filter").set_value(options).run()
    assert not np.isnan(plotly_array(_chart(at, "atlas_poster")["data"][0]["z"])).all()


def test_before_a_run_the_page_says_what_to_do_in_chinese(tiny_folder):
    at = open_by_link(PAGE, timeout=600, model=tiny_folder("gpt2"), text=TEXT, lang="zh")
    assert_page_ok(at)
    assert any("生成它的图谱" in info.value for info in at.info)


def test_a_text_longer_than_the_model_reads_is_refused_or_truncated(tiny_folder):
    at = open_by_link(PAGE, timeout=600, model=tiny_folder("gpt2"), text=TEXT)
    at.button(key="atlas_run").click().run()
    assert any("accepts at most 128" in error.value for error in at.error)
    at.toggle(key="w_atlas_truncate").set_value(True)
    at.button(key="atlas_run").click().run()
    assert_page_ok(at)
    assert any("128 tokens" in s.value for s in at.success)
