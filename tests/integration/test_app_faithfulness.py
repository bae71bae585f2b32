"""The faithfulness scoreboard in the app (AppTest): on Translate & align, Self-attention, Heads and at the end of How
attention works, the toggle beside the Measure choice scores every measure on the page's own input — the verdict and
the margins `faithfulness()` gives when called directly — in English and 中文; a translation gets the
detached-translation flag's line and definition."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz import i18n
from attnviz import run as runs
from attnviz.attention.batching import prepare_batch
from attnviz.maps.detachment import detachment_lines
from attnviz.maps.faithfulness_verdict import verdict, verdict_sentence
from attnviz.measures.detached import detachment
from attnviz.measures.faithfulness import faithfulness
from attnviz.model.load import load_model
from tests.support.app import assert_page_ok, charts, one_torch_thread, open_app  # noqa: F401 (an autouse fixture)
from tests.support.figure_reading import plotly_array

PAIR = {"text": "早上好！Good morning!", "target": "Good morning, 我喜欢学习。", "mode": "pair"}


def _said(at) -> str:
    return " ".join(str(element.value) for element in [*at.markdown, *at.caption, *at.info, *at.warning])


def _switched_on(at, key: str):
    at.toggle(key=f"{key}_faithfulness_on").set_value(True).run()
    assert_page_ok(at)
    return at


def _margins(at, found, baseline_index: int = 0) -> None:
    bars = charts(at)["faithfulness"]["data"][baseline_index]
    baseline = list(next(iter(found.margins.values())))[baseline_index]
    np.testing.assert_allclose(plotly_array(bars["x"]), [found.margins[m][baseline] for m in found.ranking], atol=1e-9)


def test_translate_scores_the_newest_target_token_then_the_whole_target(tiny_folder):
    folder = tiny_folder("marian")
    at = _switched_on(open_app("translate", model=folder, **PAIR), "translate_faithfulness")
    handle = load_model(folder, "cpu")
    board = faithfulness(handle, PAIR["text"], PAIR["target"], row=len(board_rows(handle)) - 2)
    found = verdict(board)
    assert verdict_sentence(found) in _said(at)
    _margins(at, found)
    assert "faithfulness-deletion" in charts(at)
    at.selectbox(key="translate_faithfulness_faithfulness_row").set_value(-1).run()
    assert_page_ok(at)
    whole = verdict(faithfulness(handle, PAIR["text"], PAIR["target"]))
    assert verdict_sentence(whole) in _said(at)
    _margins(at, whole, 1)
    line, definition = detachment_lines(detachment(handle, PAIR["text"], PAIR["target"]))
    assert line in _said(at) and definition in _said(at)  # a random model: its numbers, and no threshold to flag


def board_rows(handle) -> list:
    """The target tokens of PAIR as the model reads them (the last is </s>: the newest word is the one before)."""

    return prepare_batch(handle, [PAIR["text"]], [PAIR["target"]]).decoded[0].tokens


def test_self_attention_scores_a_decoders_next_token_in_chinese(tiny_folder):
    folder = tiny_folder("gpt2")
    text = "the cat sat on the mat"
    at = _switched_on(open_app("self_attention", model=folder, lang="zh", text=text, mode="pair"), "self_faithfulness")
    handle = load_model(folder, "cpu")
    read = runs.run(handle, runs.RunRequest(text)).source_text  # the text the page's capture read
    found = verdict(faithfulness(handle, read))
    assert verdict_sentence(found, "zh") in _said(at)
    _margins(at, found)
    assert i18n.t("faithfulness_title", "zh") in [expander.label for expander in at.expander]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_heads_page_scores_an_encoder_and_says_why_saliency_is_missing(tiny_folder, lang):
    folder = tiny_folder("bert")
    at = _switched_on(open_app("heads", model=folder, lang=lang, text="the cat saw the dog"), "heads_faithfulness")
    found = verdict(faithfulness(load_model(folder, "cpu"), "the cat saw the dog"))
    assert verdict_sentence(found, lang) in _said(at)
    assert i18n.t("faithfulness_measure.saliency", lang) in _said(at)  # not scored here, and why
    assert "saliency" not in found.ranking


def test_how_attention_works_ends_with_the_scoreboard(tiny_folder):
    folder = tiny_folder("bert")
    at = open_app("how_attention_works", model=folder, text="the cat saw the dog")
    assert_page_ok(at)
    assert i18n.t("faithfulness_explainer", "en") in _said(at)
    _switched_on(at, "explainer_faithfulness")
    assert verdict_sentence(verdict(faithfulness(load_model(folder, "cpu"), "the cat saw the dog"))) in _said(at)
