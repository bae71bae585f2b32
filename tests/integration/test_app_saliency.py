"""Saliency in the app (AppTest): with the Measure choice on "saliency", Translate & align and Self-attention draw,
under the attention weights, one bar per input token for one output token — the numbers `saliency()` gives when
called directly — with the token chosen in a selectbox (the newest written one first), in English and 中文; an
encoder-only model gets the library's sentence instead."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz import i18n
from attnviz import run as runs
from attnviz.attention.capture import capture
from attnviz.errors import InputError
from attnviz.measures.saliency import saliency
from attnviz.model.load import load_model
from attnviz.view import selection
from tests.support.app import assert_page_ok, charts, open_app
from tests.support.figure_reading import plotly_array

PAIR = {"text": "早上好！", "target": "Good morning!", "mode": "pair", "words": 0, "hide": 0}  # pieces, as read
DECODER = {"text": "the cat sat", "target": " on the mat", "mode": "pair", "words": 0, "hide": 0}
WORDS = {"text": "爷爷和奶奶身体都很好。", "target": "Grandpa and grandma are both healthy.", "mode": "pair"}


def _bars(at) -> list[np.ndarray]:
    return [plotly_array(trace["y"]) for trace in charts(at)["saliency"]["data"]]


def _said(at) -> str:
    return " ".join(str(element.value) for element in [*at.markdown, *at.caption, *at.info])


def _newest(scores) -> int:
    return max(i for i, token in enumerate(scores.explained) if not token.special)


def test_translate_draws_the_saliency_of_the_newest_target_token_and_of_the_one_chosen(tiny_folder):
    folder = tiny_folder("marian")
    at = open_app("translate", model=folder, measure="saliency", **PAIR)
    assert_page_ok(at)
    direct = saliency(load_model(folder, "cpu"), PAIR["text"], PAIR["target"])
    row = _newest(direct)
    source, prefix = _bars(at)
    np.testing.assert_allclose(source, direct.source[row], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(prefix, direct.prefix[row], rtol=1e-5, atol=1e-7)
    title = charts(at)["saliency"]["layout"]["title"]["text"]
    assert f"output token {direct.rows[row]}" in title and "gradient × input, L2 per token" in title
    assert "one output token, not a layer's map" in _said(at)
    assert "alignment heads" in charts(at)["heatmap"]["layout"]["title"]["text"]  # the maps above: weights, by head
    assert not np.allclose(direct.source[0], direct.source[row])  # another token: other bars
    at.selectbox(key="saliency_token").set_value(0).run()
    assert_page_ok(at)
    np.testing.assert_allclose(_bars(at)[0], direct.source[0], rtol=1e-5, atol=1e-7)
    assert at.query_params["measure"] == "saliency"


def test_self_attention_draws_a_decoders_saliency_in_chinese(tiny_folder):
    folder = tiny_folder("gpt2")
    at = open_app("self_attention", model=folder, measure="saliency", lang="zh", **DECODER)
    assert_page_ok(at)
    handle = load_model(folder, "cpu")
    read = runs.run(handle, runs.RunRequest(DECODER["text"], "", "pair")).source_text  # the target: not read
    direct = saliency(handle, read)  # the text the page's capture read, explained without the page
    (bars,) = _bars(at)
    np.testing.assert_allclose(bars, direct.source[_newest(direct)], rtol=1e-5, atol=1e-7)
    assert "梯度 × 输入，每个词元取 L2 范数" in charts(at)["saliency"]["layout"]["title"]["text"]
    assert i18n.t("saliency_intro", "zh") in _said(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_encoder_only_model_says_it_writes_no_token_to_explain(tiny_folder, lang):
    folder = tiny_folder("bert")
    at = open_app("self_attention", model=folder, measure="saliency", lang=lang, text="the cat saw the dog")
    assert_page_ok(at)
    assert "saliency" not in charts(at)
    with pytest.raises(InputError) as refused:
        saliency(load_model(folder, "cpu"), "the cat saw the dog")
    assert refused.value.message(lang) in [info.value for info in at.info]


def _word_norms(tokens, scores, words) -> list[float]:
    """Each word's L2 norm over the scores of the pieces inside its span (special pieces belong to no word)."""
    inside = [
        [j for j, token in enumerate(tokens) if not token.special and word.start <= token.start < token.end <= word.end]
        for word in words
    ]
    return [float(np.sqrt(np.sum(np.square(scores[pieces])))) for pieces in inside]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_saliency_bars_follow_the_word_view_and_hide_special_tokens(lang):

    at = open_app("translate", model="demo-zh-en", measure="saliency", lang=lang, **WORDS)  # words and hide: on
    assert_page_ok(at)
    handle = load_model("demo-zh-en", "cpu")
    direct = saliency(handle, WORDS["text"], WORDS["target"])
    captured = capture(handle, WORDS["text"], WORDS["target"])
    source_words = selection.prepare_map(captured, "cross", hide=True, words=True).key_tokens  # as the maps draw
    target_words = selection.prepare_map(captured, "decoder", hide=True, words=True).key_tokens
    assert [w.text for w in source_words][:3] == ["爷爷", "和", "奶奶"] and "Grandpa" in [w.text for w in target_words]
    row = _newest(direct)
    spec = charts(at)["saliency"]
    (source, prefix) = spec["data"]
    labels = [label.split(" ", 1)[1] for label in [*source["x"], *prefix["x"]]]  # "3: 奶奶" → "奶奶"
    assert labels == [w.text for w in [*source_words, *target_words]]  # words, the heatmap's, no <pad> or </s>
    np.testing.assert_allclose(
        plotly_array(source["y"]), _word_norms(direct.source_tokens, direct.source[row], source_words), rtol=1e-5
    )
    np.testing.assert_allclose(
        plotly_array(prefix["y"]), _word_norms(direct.prefix_tokens, direct.prefix[row], target_words), rtol=1e-5
    )
    assert list(spec["layout"]["xaxis"]["tickvals"]) == [*source["x"], *prefix["x"]]  # every label written
    per_word = i18n.t("saliency_figure_title_words", lang, token="", row="").split("·")[1].strip()  # "… per word …"
    assert per_word in spec["layout"]["title"]["text"]
    offered = at.selectbox(key="saliency_token").options  # no </s> to explain while special tokens are hidden
    assert not any("</s>" in option for option in offered)
