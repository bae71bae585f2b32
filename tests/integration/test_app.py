"""The Streamlit app through AppTest: every page renders, widgets change the figures' data, the language switch
changes strings, links restore a view, and errors are sentences on the page."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from app_pages.how_attention_works import steps as explainer_steps
from attnviz import figures, i18n
from attnviz.attention.capture import capture
from attnviz.attention.math import softmax_rows
from attnviz.errors import Phrase, SettingError
from attnviz.maps import analysis, head_stats, word_merge
from attnviz.model.load import catalogue, load_model
from attnviz.run import RunRequest
from attnviz.view import viewing
from attnviz.view.looking import seed_looking_using
from tests.support.app import APP, PAGES, assert_page_ok, charts, open_app
from tests.support.figure_reading import plotly_array as array


def z_of(spec: dict) -> np.ndarray:
    """A heatmap's cell values, masked cells as NaN."""
    return array(spec["data"][0]["z"])


def axis_labels(spec: dict, axis: str) -> list[str]:
    """Tick labels as text (figures escape them for plotly's HTML labels)."""
    return [html.unescape(label) for label in spec["layout"][axis]["ticktext"]]


def title(spec: dict) -> str:
    return spec["layout"]["title"]["text"]


@pytest.fixture(scope="module")
def tiny(tiny_folder) -> str:
    return tiny_folder("marian")


@pytest.fixture(scope="module")
def tiny_handle(tiny):
    return load_model(tiny, "cpu")


PAIR = {"text": "早上好！", "target": "Good morning!", "mode": "pair", "words": 0, "hide": 0}


# ----------------------------------------------------------------------------------------------------------------------
# Translate & align


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_target_typed_for_a_model_without_a_target_side_is_said_not_read(tiny_folder, lang):
    encoder = tiny_folder("bert")
    link = {"model": encoder, "text": "hello", "target": "hallo", "mode": "pair", "lang": lang}
    at = open_app(**link)
    said = i18n.t("target_not_read", lang, model=encoder)
    assert said in [warning.value for warning in at.warning]  # the typed target: never dropped without a word
    assert not at.exception and not at.error
    self_page = open_app(
        "self_attention", **link
    )  # a page without a target field reads the text alone, and says nothing
    assert_page_ok(self_page)
    assert said not in [warning.value for warning in self_page.warning]


def test_default_view_is_the_demo_alignment_of_good_morning():
    at = open_app()
    assert_page_ok(at)
    shown = charts(at)
    assert {"alignment", "heatmap"} <= set(shown)
    assert "".join(axis_labels(shown["heatmap"], "xaxis")) == "早上好！"
    assert "good morning" in " ".join(m.value for m in at.markdown).lower()
    assert at.query_params["model"] == "demo-zh-en"


def test_heatmap_shows_the_captured_weights_of_the_chosen_head(tiny, tiny_handle):
    at = open_app(model=tiny, view="head", layer=1, head=2, **PAIR)
    assert_page_ok(at)
    expected = capture(tiny_handle, PAIR["text"], PAIR["target"])["cross"]
    heatmap = charts(at)["heatmap"]
    np.testing.assert_allclose(z_of(heatmap), expected.weights[1, 2], atol=1e-6)
    assert axis_labels(heatmap, "xaxis") == [t.text for t in expected.key_tokens]
    assert "layer 1 · head 2" in title(heatmap)

    at.selectbox(key="w_layer").set_value(0)
    at.selectbox(key="w_head").set_value(3)
    at.run()
    assert_page_ok(at)
    np.testing.assert_allclose(z_of(charts(at)["heatmap"]), expected.weights[0, 3], atol=1e-6)
    assert at.query_params["layer"] == "0" and at.query_params["head"] == "3"


def test_alignment_view_is_the_mean_of_the_alignment_heads(tiny, tiny_handle):
    at = open_app(model=tiny, **PAIR)
    assert_page_ok(at)
    weights = capture(tiny_handle, PAIR["text"], PAIR["target"])["cross"].weights
    # The tiny model has no trained alignment heads: the view falls back to every head of the second-to-last layer.
    np.testing.assert_allclose(z_of(charts(at)["heatmap"]), weights[0].mean(axis=0), atol=1e-6)
    assert "alignment heads" in title(charts(at)["heatmap"])


def test_changing_text_and_target_changes_the_figures(tiny, tiny_handle):
    at = open_app(model=tiny, **PAIR)
    at.text_input(key="w_text").input("晚安").run()
    assert_page_ok(at)
    expected = capture(tiny_handle, "晚安", PAIR["target"])["cross"]
    np.testing.assert_allclose(z_of(charts(at)["heatmap"]), expected.weights[0].mean(axis=0), atol=1e-6)
    assert axis_labels(charts(at)["heatmap"], "xaxis") == [t.text for t in expected.key_tokens]

    at.text_input(key="w_target").input("Good night").run()
    assert_page_ok(at)
    expected = capture(tiny_handle, "晚安", "Good night")["cross"]
    np.testing.assert_allclose(z_of(charts(at)["heatmap"]), expected.weights[0].mean(axis=0), atol=1e-6)
    assert len(axis_labels(charts(at)["heatmap"], "yaxis")) == len(expected.query_tokens)
    assert at.query_params["text"] == "晚安" and at.query_params["target"] == "Good night"


def test_generate_mode_replays_one_target_token_at_a_time(tiny):
    at = open_app(model=tiny, text="早上好！", words=0, hide=0)  # generate is the default mode
    assert_page_ok(at)
    full = z_of(charts(at)["heatmap"])
    steps = at.slider(key="w_step")
    assert steps.value == full.shape[0] >= 2
    steps.set_value(2).run()
    assert_page_ok(at)
    np.testing.assert_allclose(z_of(charts(at)["heatmap"]), full[:2], atol=1e-6)
    assert any("Token 2 of" in m.value for m in at.markdown)  # tokens view: the replay counts tokens
    assert any(" it wrote: " in m.value and " of " in m.value for m in at.markdown)  # the token line says of how many


def test_word_view_and_hidden_special_tokens(tiny, tiny_handle):
    at = open_app(model=tiny, **{**PAIR, "words": 1, "hide": 1})
    assert_page_ok(at)
    result = capture(tiny_handle, PAIR["text"], PAIR["target"])
    words = word_merge.merge_words(analysis.hide_tokens(result["cross"]), PAIR["target"], PAIR["text"])
    heatmap = charts(at)["heatmap"]
    assert axis_labels(heatmap, "xaxis") == [t.text for t in words.key_tokens]
    assert "".join(axis_labels(heatmap, "xaxis")) == "早上好！"
    np.testing.assert_allclose(z_of(heatmap), words.weights[0].mean(axis=0), atol=1e-6)


def test_language_switch_changes_every_string(tiny):
    at = open_app(model=tiny, **PAIR)
    assert at.title[0].value == "Translate & align"
    at.button_group(key="w_lang").set_value("zh").run()
    assert_page_ok(at)
    assert at.title[0].value == "翻译与对齐"
    assert at.text_input(key="w_text").label == "文本"
    shown = charts(at)
    assert "交叉注意力" in title(shown["heatmap"]) and "对齐头" in title(shown["heatmap"])
    assert shown["heatmap"]["layout"]["xaxis"]["title"]["text"] == figures.LABELS["zh"]["key"]
    assert "权重" in shown["heatmap"]["data"][0]["colorbar"]["title"]["text"]
    assert at.query_params["lang"] == "zh"


def test_link_restores_the_view(tiny):
    at = open_app(
        model=tiny,
        text="晚安",
        target="Good night",
        mode="pair",
        view="head",
        layer=1,
        head=3,
        lang="zh",
        words=0,
        hide=0,
        threshold=0.3,
    )
    assert_page_ok(at)
    assert at.text_input(key="w_text").value == "晚安"
    assert at.text_input(key="w_target").value == "Good night"
    assert at.selectbox(key="w_cross_aggregation").value == "head"
    assert (at.selectbox(key="w_layer").value, at.selectbox(key="w_head").value) == (1, 3)
    assert at.slider(key="w_threshold").value == pytest.approx(0.3)
    heatmap = charts(at)["heatmap"]
    assert "第 1 层 · 第 3 头" in title(heatmap)
    assert charts(at)["alignment"]["layout"]["meta"]["threshold"] == pytest.approx(0.3)


def test_unreadable_link_parameters_are_named_and_ignored(tiny):
    at = open_app(model=tiny, layer="two", view="sideways", **PAIR)
    assert not at.exception
    assert any("layer" in w.value and "view" in w.value for w in at.warning)
    assert {"alignment", "heatmap"} <= set(charts(at))


# ----------------------------------------------------------------------------------------------------------------------
# Errors are sentences, and the rest of the page stays usable


@pytest.mark.parametrize(
    "params, sentence",
    [
        ({"model": "/no/such/model/folder"}, "No model folder"),
        ({"text": "   "}, "empty"),
        ({"device": "cuda"}, "not available"),
        ({"text": "早上好！" * 200, "truncate": 0}, "accepts at most"),  # truncation, on by default, switched off
    ],
    ids=["unknown model", "empty text", "unavailable device", "text too long"],
)
def test_errors_render_as_sentences(tiny, params, sentence):
    at = open_app(**{"model": tiny, **PAIR, **params})
    assert not at.exception
    assert any(sentence in e.value for e in at.error), [e.value for e in at.error]
    assert at.title[0].value == "Translate & align"
    assert at.text_input(key="w_text") is not None  # the input is still there to fix the problem
    assert at.selectbox(key="w_device") is not None
    assert not at.get("plotly_chart")  # nor is the empty chart shown while a model loads left behind


def test_custom_models_can_be_switched_off(tiny, monkeypatch):
    monkeypatch.setenv("ATTNVIZ_ALLOW_CUSTOM_MODELS", "0")
    at = open_app(model=tiny, **PAIR)
    assert not at.exception
    assert any("only offers the models listed" in e.value for e in at.error)


CJK = re.compile(r"[\u4e00-\u9fff]")
EMPTY_TARGET = {**PAIR, "target": " "}  # pair mode with nothing to force-decode: an error of the app's own


def test_an_error_in_the_chinese_ui_is_chinese_end_to_end(tiny):
    at = open_app(model=tiny, **EMPTY_TARGET, lang="zh")
    assert not at.exception
    assert [e.value for e in at.error] == [
        "**此输入无法使用**。译文是空的；请输入要强制解码的译文，或者让模型自己翻译。"
    ]
    assert not re.search(r"[A-Za-z]", at.error[0].value)  # heading and body: not a word of English
    assert at.title[0].value == "翻译与对齐"


def test_an_error_in_the_english_ui_is_english_end_to_end(tiny):
    at = open_app(model=tiny, **EMPTY_TARGET)
    assert not at.exception
    assert [e.value for e in at.error] == [
        "**This input cannot be used.** The target is empty; type the translation to force-decode, or let the model "
        "generate it."
    ]
    assert not CJK.search(at.error[0].value)


def test_a_setting_that_cannot_be_read_is_said_in_the_page_language(tiny, monkeypatch):
    monkeypatch.setenv("ATTNVIZ_ALLOW_CUSTOM_MODELS", "maybe")
    flag = Phrase("setting_accepts.flag")
    error = SettingError("setting_in_environment", variable="ATTNVIZ_ALLOW_CUSTOM_MODELS", value="maybe", accepts=flag)
    for lang, heading in (
        ("en", "**A setting is not valid.** The environment variable"),
        ("zh", "**设置有误**。环境变量"),
    ):
        at = open_app(model=tiny, **PAIR, lang=lang)
        assert not at.exception
        said = [e.value for e in at.error]
        assert said and set(said) == {i18n.error_sentence(error, lang)}  # the sidebar's picker and the page
        assert said[0].startswith(heading) and bool(CJK.search(said[0])) is (lang == "zh")
        assert at.text_input(key="w_text") is not None  # the page goes on


def test_the_sidebar_speaks_the_page_language():
    at = open_app(lang="zh")
    assert_page_ok(at)
    report = at.sidebar.expander[0]
    assert report.label.startswith("设备：")
    assert "始终可用" in report.markdown[0].value and "always available" not in report.markdown[0].value
    description = next(entry.description for entry in catalogue("zh") if entry.name == "demo-zh-en")
    assert at.selectbox(key="w_model_pick").help == description and CJK.search(description)
    at.button_group(key="w_lang").set_value("en").run()
    assert "always available" in at.sidebar.expander[0].markdown[0].value
    assert at.selectbox(key="w_model_pick").help == catalogue("en")[0].description


def test_unexpected_failures_are_a_generic_sentence(tiny, monkeypatch):
    from attnviz import run

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(run, "run", broken)
    at = open_app(model=tiny, **{**PAIR, "text": "这句话只在这个测试里出现"})  # not in the result cache
    assert not at.exception
    assert any("Something went wrong" in e.value for e in at.error)
    assert not any("boom" in e.value for e in at.error)


# ----------------------------------------------------------------------------------------------------------------------
# Self-attention


def test_self_attention_page_shows_heatmap_lines_and_grid(tiny, tiny_handle):
    at = open_app("self_attention", model=tiny, **PAIR, self_view="head", layer=1, head=1)
    assert_page_ok(at)
    shown = charts(at)
    assert {"heatmap", "lines", "grid"} <= set(shown)
    encoder = capture(tiny_handle, PAIR["text"], PAIR["target"])["encoder"]
    np.testing.assert_allclose(z_of(shown["heatmap"]), encoder.weights[1, 1], atol=1e-6)
    grid = shown["grid"]
    assert (
        len([trace for trace in grid["data"] if trace["type"] == "heatmap"]) == encoder.num_layers * encoder.num_heads
    )


def test_decoder_self_attention_shows_the_causal_mask(tiny):
    at = open_app("self_attention", model=tiny, **PAIR, stack="decoder")
    assert_page_ok(at)
    heatmap = charts(at)["heatmap"]
    z = z_of(heatmap)
    upper = np.triu(np.ones_like(z, dtype=bool), k=1)
    assert np.isnan(z[upper]).all() and np.isfinite(z[~upper]).all()
    assert any("masked" in c.value for c in at.caption)
    assert axis_labels(heatmap, "xaxis") == axis_labels(heatmap, "yaxis")  # rows and columns: the decoder's input
    at.toggle(key="w_hide_special").set_value(True).run()
    labels = axis_labels(charts(at)["heatmap"], "yaxis")
    assert "<pad>" not in labels and "</s>" not in labels and labels[0] == "G"


def test_hiding_special_tokens_removes_them(tiny):
    at = open_app("self_attention", model=tiny, **PAIR)
    assert "</s>" in axis_labels(charts(at)["heatmap"], "xaxis")
    at.toggle(key="w_hide_special").set_value(True).run()
    assert_page_ok(at)
    assert "</s>" not in axis_labels(charts(at)["heatmap"], "xaxis")


# ----------------------------------------------------------------------------------------------------------------------
# How attention works


def test_explainer_walks_through_the_seed_example():
    at = open_app("how_attention_works")
    assert_page_ok(at)
    assert {"alignment", "explainer", "mixture", "grid"} <= set(charts(at))
    editors_and_tables = [frame.value for frame in at.dataframe]  # the Q, K, V editors, then one table per step
    np.testing.assert_allclose(editors_and_tables[0].to_numpy(), figures.SEED_Q)
    scores = figures.SEED_Q @ figures.SEED_K.T
    np.testing.assert_allclose(editors_and_tables[3].to_numpy(), scores, atol=1e-3)  # step 1: Q·Kᵀ
    softmax = editors_and_tables[5].to_numpy()
    np.testing.assert_allclose(softmax[:, :-1], softmax_rows(torch.from_numpy(scores / np.sqrt(2))).numpy(), atol=1e-3)
    np.testing.assert_allclose(softmax[:, -1], 1.0, atol=1e-3)  # each row a probability distribution
    assert charts(at)["mixture"]["layout"]["meta"]["weights"] == pytest.approx([1 / 3, 1 / 6, 1 / 4, 1 / 4, 0])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_explainer_words_weights_as_looking_and_draws_use_beside_them(lang):

    at = open_app("how_attention_works", lang=lang)
    assert_page_ok(at)
    mixture = charts(at)["mixture"]
    assert mixture["layout"]["meta"]["contributions"] == pytest.approx(list(seed_looking_using().contributions))
    said = [m.value for m in at.markdown]
    what, mixed = i18n.t("explainer_what_text", lang), i18n.t("explainer_mixture_text", lang)
    assert what in said and mixed in said
    assert ("depends on" not in what) if lang == "en" else ("关联" not in what)  # section 1: looking, not using
    not_using = "Looking is not using" if lang == "en" else "看见不等于用到"
    assert not_using in mixed  # said where the mixture is drawn, before section 5 uses it
    headers = [h.value for h in at.header]
    assert headers.index(i18n.t("explainer_mixture", lang)) < headers.index(i18n.t("looking_title", lang))


def test_explainer_edits_live_in_the_link_and_survive_a_page_switch():
    at = open_app("how_attention_works", q="2,0;0,2;1,1")
    assert_page_ok(at)
    q = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    np.testing.assert_array_equal(at.data_editor[0].value.to_numpy(), q)  # the link's Q
    np.testing.assert_allclose(at.dataframe[3].value.to_numpy(), q @ figures.SEED_K.T, atol=1e-3)

    at.session_state["w_matrix_k"] = {"edited_rows": {3: {"d₂": 5}}, "added_rows": [], "deleted_rows": []}
    at.run()
    k = figures.SEED_K.copy()
    k[3, 1] = 5
    assert at.query_params["k"] == explainer_steps.matrix_text(k) and at.query_params["q"] == "2,0;0,2;1,1"
    np.testing.assert_allclose(at.dataframe[3].value.to_numpy(), q @ k.T, atol=1e-3)

    at.switch_page(PAGES["translate"]).run()
    at.switch_page(PAGES["how_attention_works"]).run()  # Streamlit forgot the editors; the view did not
    np.testing.assert_array_equal(at.data_editor[1].value.to_numpy(), k)
    np.testing.assert_allclose(at.dataframe[3].value.to_numpy(), q @ k.T, atol=1e-3)

    at.button(key="w_explainer_reset").click().run()
    assert_page_ok(at)
    assert "q" not in at.query_params and "k" not in at.query_params
    np.testing.assert_array_equal(at.data_editor[0].value.to_numpy(), figures.SEED_Q)
    np.testing.assert_allclose(at.dataframe[3].value.to_numpy(), figures.SEED_Q @ figures.SEED_K.T, atol=1e-3)


def test_explainer_multi_head_shapes_follow_the_seed_pseudo_code():
    at = open_app("how_attention_works")
    at.number_input(key="w_mh_hidden").set_value(12)
    at.run()
    at.selectbox(key="w_mh_heads").set_value(3).run()
    assert_page_ok(at)
    shapes = {row["step"]: row["shape"] for row in at.dataframe[-1].value.to_dict("records")}
    assert shapes["x"] == "(1, 4, 12)"
    assert shapes["query"] == "(1, 3, 4, 4)"  # (b, heads, l, head_dim)
    assert shapes["weights"] == "(1, 3, 4, 4)"
    assert shapes["merged"] == "(1, 4, 12)"


# ----------------------------------------------------------------------------------------------------------------------
# Heads


def test_heads_page_table_and_statistic_heatmap(tiny, tiny_handle):
    at = open_app("heads", model=tiny, **PAIR)
    assert_page_ok(at)
    table = at.dataframe[0].value
    cross = capture(tiny_handle, PAIR["text"], PAIR["target"])["cross"]
    assert len(table) == cross.num_layers * cross.num_heads
    entropy = head_stats.head_statistics(cross)["entropy"]
    np.testing.assert_allclose(z_of(charts(at)["statistic"]), entropy, atol=1e-5)
    at.selectbox(key="w_stat").set_value("sink").run()
    assert_page_ok(at)
    np.testing.assert_allclose(z_of(charts(at)["statistic"]), head_stats.head_statistics(cross)["sink"], atol=1e-5)


def test_choosing_a_head_opens_it_on_the_translate_page(tiny):
    at = open_app("heads", model=tiny, **PAIR)
    at.selectbox(key="w_layer").set_value(1)
    at.selectbox(key="w_head").set_value(2)
    at.run()
    at.button(key="open_head").click().run()
    assert_page_ok(at)
    assert at.title[0].value == "Translate & align"
    assert at.selectbox(key="w_cross_aggregation").value == "head"
    assert "layer 1 · head 2" in title(charts(at)["heatmap"])


# ----------------------------------------------------------------------------------------------------------------------
# Long texts: one head at a time, pooled, with an exact block; statistics streamed

LONG_TEXT = "早上好！Good morning, my friend! 晚安。"


def keyed_chart(at: AppTest, key: str) -> dict:
    """The plotly JSON of the chart drawn with key `key`."""
    return next(json.loads(e.proto.spec) for e in at.get("plotly_chart") if e.proto.id.endswith(f"-chart_{key}"))


def test_a_long_text_shows_one_head_pooled_and_an_exact_block(tiny, tiny_handle, monkeypatch):
    monkeypatch.setenv("ATTNVIZ_LAZY_FROM_TOKENS", "8")
    monkeypatch.setattr(viewing, "LONG_WINDOW", 8)
    monkeypatch.setattr(viewing, "LONG_BINS", 16)
    at = open_app("self_attention", model=tiny, **{**PAIR, "text": LONG_TEXT}, layer=1, head=2)
    assert_page_ok(at)
    assert any("long text" in info.value for info in at.info)
    encoder = capture(tiny_handle, LONG_TEXT)["encoder"].weights[1, 2]  # (n, n), what the full capture holds
    n = encoder.shape[0]
    pooled = z_of(keyed_chart(at, "long_pooled"))
    factor = -(-n // 16)
    np.testing.assert_allclose(pooled, analysis.downsample(encoder, factor, factor, "max"), atol=1e-5)
    np.testing.assert_allclose(z_of(keyed_chart(at, "long_block")), encoder[:8, :8], atol=1e-5)

    at.number_input(key="w_long_row").set_value(n - 3)
    at.number_input(key="w_long_key").set_value(4)
    at.run()
    assert_page_ok(at)
    block = keyed_chart(at, "long_block")
    np.testing.assert_allclose(z_of(block), encoder[n - 8 :, 4:12], atol=1e-5)  # the window slid back to fit
    assert f"rows {n - 8}–{n - 1} × keys 4–11" in title(block)


def test_a_long_text_still_has_every_heads_statistics_and_its_alignment(tiny, tiny_handle, monkeypatch):
    short = open_app(model=tiny, **{**PAIR, "text": LONG_TEXT}, view="head", layer=1, head=1)
    monkeypatch.setenv("ATTNVIZ_LAZY_FROM_TOKENS", "8")
    at = open_app(model=tiny, **{**PAIR, "text": LONG_TEXT}, view="head", layer=1, head=1)
    assert_page_ok(at)
    # the cross map of a long source is computed whole, from the kept queries and keys: the same figures
    np.testing.assert_allclose(z_of(charts(at)["heatmap"]), z_of(charts(short)["heatmap"]), atol=1e-5)
    assert "alignment" in charts(at)

    at.switch_page(PAGES["heads"]).run()
    assert_page_ok(at)
    cross = capture(tiny_handle, LONG_TEXT, PAIR["target"])["cross"]
    table = at.dataframe(key="w_head_table").value
    np.testing.assert_allclose(table["entropy"], head_stats.head_statistics(cross)["entropy"].ravel(), atol=1e-5)
    np.testing.assert_allclose(z_of(charts(at)["statistic"]), head_stats.head_statistics(cross)["entropy"], atol=1e-5)


def test_a_long_prompt_for_a_decoder_is_read_and_shown_without_generating(tiny_folder, monkeypatch):
    monkeypatch.setenv("ATTNVIZ_LAZY_FROM_TOKENS", "8")
    at = open_app("self_attention", model=tiny_folder("gpt2"), text=LONG_TEXT)
    assert_page_ok(at)
    assert any("does not continue it" in caption.value for caption in at.caption)
    assert keyed_chart(at, "long_block")["layout"]["meta"]["view"] == "heatmap"


@pytest.mark.parametrize(("lang", "said"), [("en", "this decoder-only model"), ("zh", "这个仅解码器模型")])
def test_a_model_with_one_stack_is_named_by_its_kind(tiny_folder, lang, said):
    at = open_app("self_attention", model=tiny_folder("gpt2"), text="the cat sat", lang=lang)
    assert_page_ok(at)
    assert any(said in text.value for text in at.markdown)  # was "this decoder self-attention model"


def select_table_row(at: AppTest, key: str, row: int) -> None:
    """Run the app as a click on row `row` of table `key` makes the browser run it (AppTest has no call for it).

    The row is the index in the data the page gave the table, which is what Streamlit reports even after the person
    sorted the table.
    """
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    table = next(frame for frame in at.dataframe if frame.key == key)
    states = at._tree.get_widget_states()
    selection = {"selection": {"rows": [row], "columns": [], "cells": []}}
    states.widgets.append(WidgetState(id=table.proto.id, string_value=json.dumps(selection)))
    at._run(widget_state=states)


def test_selecting_a_row_of_the_head_table_chooses_that_head(tiny):
    at = open_app("heads", model=tiny, **PAIR)
    table = at.dataframe(key="w_head_table").value
    row = len(table) - 2  # not the first head of any layer
    layer, head = int(table.iloc[row]["layer"]), int(table.iloc[row]["head"])
    assert (layer, head) != (0, 0)
    select_table_row(at, "w_head_table", row)
    assert_page_ok(at)
    assert (at.selectbox(key="w_layer").value, at.selectbox(key="w_head").value) == (layer, head)
    at.button(key="open_head").click().run()
    assert at.title[0].value == "Translate & align"
    assert f"layer {layer} · head {head}" in title(charts(at)["heatmap"])


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_one_stack_models_work_on_every_page(tiny_folder, family):
    folder = tiny_folder(family)
    at = open_app(model=folder, text="Good morning!", words=0, hide=0)
    assert not at.exception and not at.error
    assert any("no cross-attention" in i.value for i in at.info)  # Translate & align explains, nothing breaks
    for page in ("self_attention", "heads"):
        at.switch_page(PAGES[page]).run()
        assert_page_ok(at)
        assert charts(at)
    at.switch_page(PAGES["self_attention"]).run()
    z = z_of(charts(at)["heatmap"])
    if family == "gpt2":  # a decoder: the causal mask shows
        assert np.isnan(z[np.triu_indices_from(z, k=1)]).all()
    else:
        assert np.isfinite(z).all()


def test_the_sidebar_picks_catalogue_models_and_any_folder(tiny, tiny_folder):
    at = open_app(model=tiny, **PAIR)
    assert at.selectbox(key="w_model_pick").value == "__custom__"
    assert at.text_input(key="w_model_custom").value == tiny
    at.text_input(key="w_model_custom").input(tiny_folder("bert")).run()
    assert not at.exception and not at.error
    assert any("no cross-attention" in i.value for i in at.info)
    assert at.query_params["model"] == tiny_folder("bert")
    names = [entry.name for entry in catalogue()]
    if names:
        at.selectbox(key="w_model_pick").set_value(names[-1]).run()
        assert not at.exception
        assert at.query_params["model"] == names[-1]
    at.button_group(key="w_lang").set_value("zh").run()
    assert at.selectbox(key="w_model_pick").label == "模型"


# ----------------------------------------------------------------------------------------------------------------------
# Start-up


def test_streamlit_run_finds_the_app_and_its_script():
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(Path(APP).parent.parent / "app.py")
    assert found.is_asgi_app and found.app_name == "app"


def test_the_start_up_warm_up_fills_the_model_cache_or_logs_why_not(monkeypatch, caplog):
    import gc

    from app_pages.shared import caches, startup

    loaded = []
    monkeypatch.setattr(caches, "cached_model", lambda key: loaded.append((key, gc.isenabled())))
    startup.warm_up()
    # the key the pages load with (one device unless the sidebar places it); the collector waits while it loads
    assert loaded == [(caches.ModelKey("demo-zh-en", "auto", caches.ONE_DEVICE), False)]
    assert gc.isenabled()

    def broken(key):
        raise RuntimeError("no weights")

    monkeypatch.setattr(caches, "cached_model", broken)
    with caplog.at_level("WARNING", logger="attnviz.app"):
        startup.warm_up()  # never raises: the page says what went wrong when it needs the model
    assert "could not load the default model" in caplog.text
    assert gc.isenabled()  # even when the load failed


def test_the_warm_up_computes_the_default_view_into_the_pages_cache(monkeypatch):
    from app_pages.shared import caches, startup
    from app_pages.shared.state import ViewState

    default = ViewState()
    handle = load_model(default.model, "cpu")
    computed = []
    real = caches.cached_analysis

    def counted(*arguments):
        computed.append(arguments)
        return real(*arguments)

    monkeypatch.setattr(caches, "cached_analysis", counted)
    startup.default_figures(handle, default)
    target = caches.forced_target(default, handle.is_seq2seq)
    request = RunRequest(default.text, target, default.mode, capture="full", truncate=default.truncate)
    page = (caches.ModelKey(default.model, default.device, caches.ONE_DEVICE), request)
    assert computed == [page]  # the very call the Translate & align page makes for the default view


def _chart_rows(at: AppTest) -> list[list[str]]:
    """The views of the charts each row of columns draws side by side (a row: one horizontal block)."""
    rows = []

    def walk(node, row: list | None) -> None:
        if getattr(node, "type", None) == "flex_container":
            row = []
            rows.append(row)
        if getattr(node, "type", None) == "plotly_chart" and row is not None:
            row.append(json.loads(node.proto.spec)["layout"].get("meta", {}).get("view"))
        for child in getattr(node, "children", {}).values():
            walk(child, row)

    walk(at._tree, None)
    return [row for row in rows if row]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_long_pairs_alignment_takes_a_row_of_its_own_on_translate(lang):
    long_pair = {
        "model": "demo-en-zh",
        "mode": "pair",
        "text": "My grandfather and my grandmother walk in the park every morning after breakfast together.",
        "target": "我的爷爷和奶奶每天早上吃完早饭后一起在公园里散步。",
        "lang": lang,
    }
    at = open_app("translate", **long_pair)
    assert_page_ok(at)
    rows = _chart_rows(at)
    assert ["alignment"] in rows and ["heatmap"] in rows  # one above the other, each a whole column
    labels = charts(at)["alignment"]["layout"]["meta"]["labels"]
    assert min(plan["size"] for plan in labels.values()) >= figures.layout.SCREEN_LABEL_FLOOR
    short = open_app("translate", lang=lang)  # 早上好！ → Good morning!: beside the heatmap, as before
    assert ["alignment", "heatmap"] in _chart_rows(short)
