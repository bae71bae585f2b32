"""The replay's sentence without a model (attnviz.view.focus): the newest token and where it looked, and where the weight
went when it sits on hidden tokens."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from attnviz.maps import replay
from attnviz.types import AttentionCapture, AttentionMap
from attnviz.view import focus, head_choice, selection, viewing
from tests.support.maps import seq2seq_capture, tokens_from


def test_newest_focus_is_the_last_written_token_and_where_it_looked_most():
    result = seq2seq_capture()
    amap = replay.replay(result["cross"], 2)
    chosen = head_choice.head_selection(amap, "head", 1, 0)
    token, looked = focus.newest_focus(chosen, top=2, floor=0.0)
    row = amap.weights[1, 0, -1]
    assert token.text == "morn"
    assert [w for _, w in looked] == pytest.approx(sorted(row, reverse=True)[:2])
    assert looked[0][0] == amap.key_tokens[int(row.argmax())]
    one_hot = replace(amap, weights=np.eye(4, dtype=np.float32)[[0, 3]][None, None].repeat(2, 0).repeat(2, 1))
    _, looked = focus.newest_focus(head_choice.head_selection(one_hot, "head", 0, 0))
    assert [(k.text, w) for k, w in looked] == [("</s>", 1.0)]  # near-zero weights are not named


# ----------------------------------------------------------------------------------------------------------------------
# The replay sentence says where the weight went


def _cross_capture(last_row: list[float]) -> AttentionCapture:
    source = tokens_from(["我", "喜欢", "学习", "</s>"], "我喜欢学习", specials=("</s>",))
    target = tokens_from(["I", "like", "studying"], "I like studying")
    weights = np.tile(np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], last_row], np.float32), (1, 1, 1, 1))
    amap = AttentionMap("cross", weights, target, source, ["l0"])
    return AttentionCapture("m", "cpu", {"cross": amap}, source_text="我喜欢学习", target_text="I like studying")


def _sentence(result: AttentionCapture, lang: str = "en") -> str:
    options = viewing.ViewOptions(kind="cross", aggregation="head", lang=lang)
    shown = selection.show(result, options)
    hidden = focus.hidden_focus(result, options, shown.selection)
    return focus.focus_sentence(shown.selection, 3, 3, lang, hidden)


def test_the_replay_sentence_says_the_weight_went_to_a_hidden_token():
    sentence = _sentence(_cross_capture([0.005, 0.005, 0.0, 0.99]))
    assert "(0.99) went to </s>, which is hidden" in sentence and "(0.00)" not in sentence
    assert "looked at" not in sentence
    mixed = _sentence(_cross_capture([0.02, 0.1, 0.05, 0.83]))
    assert "(0.83) went to </s>" in mixed and "喜欢 (0.10)" in mixed
    assert "已被隐藏" in _sentence(_cross_capture([0.0, 0.0, 0.01, 0.99]), "zh")


def test_the_replay_sentence_names_shown_tokens_when_they_hold_the_weight():
    sentence = _sentence(_cross_capture([0.1, 0.1, 0.7, 0.1]))
    assert "looked at 学习 (0.70)" in sentence and "hidden" not in sentence


def test_the_replay_sentence_lists_tokens_as_the_language_writes_lists_and_names_a_space():
    assert "学习（0.40）、喜欢（0.30）" in _sentence(_cross_capture([0.2, 0.3, 0.4, 0.1]), "zh")
    result = _cross_capture([0.2, 0.3, 0.4, 0.1])
    source = result["cross"].key_tokens
    spaced = replace(source[2], text=" ")  # a lone word boundary (▁), which the figures draw ␣
    amap = replace(result["cross"], key_tokens=[*source[:2], spaced, source[3]])
    sentence = _sentence(replace(result, maps={"cross": amap}))
    assert "looked at ␣ (0.40), 喜欢 (0.30)" in sentence
