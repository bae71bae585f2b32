"""The lenses' view state and choice: the toggles round-trip through a page's link (Translate carries both, Self-
attention the logit lens only; off is the default and leaves the link), so does DecoderLens's reading (the last by
default, out of the link; a reading a lens lacks falls to the last), which lens applies to which kind of model
(`attnviz.view.lenses.lenses_for`), and the last layer's choices the logit lens's page states."""

from __future__ import annotations

import numpy as np
import pytest

from app_pages.shared import state as app_state
from attnviz.measures.lens_results import DecoderLens, LogitLens, last_layer_choices, logit_lens_rows
from attnviz.text.tokens import shown
from attnviz.types import Token
from attnviz.view.lenses import DECODER_LENS, LAST_READING, LOGIT_LENS, lenses_for, reading_choice, reading_choices


@pytest.mark.parametrize(
    ("page", "carried"), [("translate", {"logit_lens", "decoder_lens"}), ("self_attention", {"logit_lens"})]
)
def test_a_link_with_the_lens_toggles_reopens_them(page, carried):
    shown = app_state.ViewState(logit_lens=True, decoder_lens=True)
    link = app_state.to_query_params(shown, page)
    assert {name for name in ("logit_lens", "decoder_lens") if name in link} == carried
    assert all(link[name] == "1" for name in carried)
    restored, unreadable = app_state.from_query_params(link)
    assert unreadable == []
    assert {name: getattr(restored, name) for name in carried} == dict.fromkeys(carried, True)


def test_the_lenses_are_off_by_default_and_stay_out_of_the_link():
    default = app_state.ViewState()
    assert (default.logit_lens, default.decoder_lens) == (False, False)
    link = app_state.to_query_params(default, "translate")
    assert "logit_lens" not in link and "decoder_lens" not in link
    restored, unreadable = app_state.from_query_params({"logit_lens": "maybe"})
    assert unreadable == ["logit_lens"] and restored.logit_lens is False


def test_a_link_reopens_the_decoder_lens_reading_chosen_and_leaves_the_last_out():
    assert app_state.ViewState().decoder_lens_layer == LAST_READING
    assert "decoder_lens_layer" not in app_state.to_query_params(app_state.ViewState(decoder_lens=True), "translate")
    link = app_state.to_query_params(app_state.ViewState(decoder_lens=True, decoder_lens_layer=2), "translate")
    assert link["decoder_lens_layer"] == "2"
    restored, unreadable = app_state.from_query_params(link)
    assert unreadable == [] and restored.decoder_lens_layer == 2
    assert "decoder_lens_layer" not in app_state.to_query_params(
        app_state.ViewState(decoder_lens_layer=2), "self_attention"
    )


def test_a_reading_the_lens_lacks_falls_to_the_last():
    lens = DecoderLens("m", [0, 1, 2, 3], ["embeddings", "l.0", "l.1", "l.2"], [None] * 4)
    assert reading_choices(lens) == {0: 0, 1: 1, 2: 2, LAST_READING: 3}  # a choice → its reading's index
    chosen = [reading_choice(lens, layer) for layer in (0, 2, 3, 9, LAST_READING)]
    assert chosen == [0, 2, LAST_READING, LAST_READING, LAST_READING]  # the last, or past it (a deeper model's link)
    some = DecoderLens("m", [0, 2, 5], ["embeddings", "l.1", "l.4"], [None] * 3)  # the API may read a few layers
    assert reading_choices(some) == {0: 0, 2: 1, LAST_READING: 2}
    assert [reading_choice(some, layer) for layer in (1, 2, 5)] == [LAST_READING, 2, LAST_READING]


def test_each_kind_of_model_gets_the_lenses_it_can_show():
    assert lenses_for("decoder") == (LOGIT_LENS,)
    assert lenses_for("encoder-decoder") == (LOGIT_LENS, DECODER_LENS)
    assert lenses_for("encoder") == ()  # no output embedding: no next-token prediction


def test_the_last_layers_choices_are_its_rows_first_tokens():
    vocabulary = {i: Token(text, -1, -1) for i, text in enumerate(["早上", "好", "！", "<unk>"])}
    top_ids = np.array([[[3, 0], [1, 2]], [[0, 1], [2, 3]], [[1, 0], [2, 1]]], dtype=np.int64)  # (rows, positions, k)
    top_probabilities = np.array([[[0.3, 0.2], [0.5, 0.1]], [[0.4, 0.3], [0.6, 0.2]], [[0.7, 0.1], [0.8, 0.1]]])
    lens = LogitLens(
        model="m",
        kind="self",
        layer_names=["embeddings", "layers.0", "layers.1"],
        tokens=[Token("早上", 0, 2), Token("好", 2, 3)],
        top_ids=top_ids,
        top_probabilities=top_probabilities.astype(np.float32),
        final_ids=top_ids[-1, :, 0],
        final_probabilities=np.zeros((3, 2), dtype=np.float32),
        final_ranks=np.ones((3, 2), dtype=np.int64),
        vocabulary=vocabulary,
    )
    last = [
        row for row in logit_lens_rows(lens) if row["after_layer"] == 1
    ]  # the table's way: every row, then the last
    assert [(shown(token), probability) for token, probability in last_layer_choices(lens)] == [
        (row["top1_token"], row["top1_probability"]) for row in last
    ]
