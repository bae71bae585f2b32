"""Live generation (`attention.live.write_live`): what it yields as the model writes, step by step, and the capture it
finishes with, against `generate` run separately (tiny Marian, BART, T5, GPT-2 and Llama, and the embedded
demo-zh-en and demo-decoder).

Equality is bit for bit: both runs are the same computation on the CPU (the live one only adds a streamer, a forward
hook that copies the logits and a logits processor that returns its scores unchanged), so any difference would be a
difference in what is computed, not rounding."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnviz.attention.generation import generate
from attnviz.attention.live import write_live
from attnviz.attention.live_items import LiveBeams, LiveFinished, LiveStep
from attnviz.attention.recorder import state_of
from attnviz.figures.live import step_row
from attnviz.figures.style import FigureStyle
from attnviz.model.load import load_model
from attnviz.run import RunRequest, run_live, run_recorded

TEXT = "早上好！Good morning"  # the tiny random models write otherwise with 3 beams than greedily


def _live(handle, text, **options):
    items = list(write_live(handle, text, **options))
    assert isinstance(items[-1], LiveFinished) and not any(isinstance(i, LiveFinished) for i in items[:-1])
    return items


def _assert_same_capture(live, expected):
    assert live.target_text == expected.target_text and live.source_text == expected.source_text
    assert live.maps.keys() == expected.maps.keys()
    for kind, amap in expected.maps.items():
        assert np.array_equal(live.maps[kind].weights, amap.weights), kind
        assert live.maps[kind].query_tokens == amap.query_tokens and live.maps[kind].key_tokens == amap.key_tokens
    assert len(live.steps) == len(expected.steps)
    for got, want in zip(live.steps, expected.steps):
        assert got.token == want.token
        assert got.probability == want.probability and got.alternatives == want.alternatives
        assert np.array_equal(got.self_weights, want.self_weights)
        assert (got.cross_weights is None) == (want.cross_weights is None)
        if want.cross_weights is not None:
            assert np.array_equal(got.cross_weights, want.cross_weights)


def _assert_steps_are_the_captures(items, whole_pieces: bool):
    """Each yielded step is the finished capture's step: its rows, its probability and alternatives; the last one's
    token and text are the capture's. `whole_pieces`: the tokenizer's pieces are whole characters, so every step's
    token is already the capture's (a byte-level piece may be half a character until the next one comes)."""
    capture = items[-1].capture
    steps = [item for item in items if isinstance(item, LiveStep)]
    assert [step.index for step in steps] == list(range(len(capture.steps)))
    for live, final in zip(steps, capture.steps):
        assert live.step.probability == final.probability and live.step.alternatives == final.alternatives
        assert np.array_equal(live.step.self_weights, final.self_weights)
        if final.cross_weights is not None:
            assert np.array_equal(live.step.cross_weights, final.cross_weights)  # (layers, heads, source keys)
        if whole_pieces:
            assert live.step.token == final.token
    assert steps[-1].step.token == capture.steps[-1].token and steps[-1].text == capture.target_text
    if whole_pieces:
        assert all(steps[i].text.startswith(steps[i - 1].text) for i in range(1, len(steps)))


@pytest.mark.parametrize("family", ["marian", "bart", "t5", "gpt2", "llama"])
@pytest.mark.parametrize("beams", [1, 3])
def test_live_writing_finishes_with_generates_capture(tiny_folder, family, beams):
    handle = load_model(tiny_folder(family), "cpu")
    items = _live(handle, TEXT, max_new_tokens=6, num_beams=beams)
    _assert_same_capture(items[-1].capture, generate(handle, TEXT, max_new_tokens=6, num_beams=beams))
    _assert_steps_are_the_captures(items, whole_pieces=False)
    assert any(isinstance(item, LiveBeams) for item in items) == (beams > 1)


def test_demo_translator_live_equals_generate():
    handle = load_model("demo-zh-en", "cpu")
    items = _live(handle, "早上好！")
    _assert_same_capture(items[-1].capture, generate(handle, "早上好！"))
    _assert_steps_are_the_captures(items, whole_pieces=True)
    assert [i.text for i in items if isinstance(i, LiveStep)][:2] == ["Good", "Good morning"]


def _assert_drawn_rows_are_the_captures(items, whole_pieces: bool):
    """The row each step draws (`LiveStep.row`): a translator's cross row over the source it read; a decoder's self
    row over its prompt and the tokens written before, which are the finished capture's keys of that row (with
    `whole_pieces`, see `_assert_steps_are_the_captures`: a byte-level piece's offsets move once its character is
    whole)."""
    capture = items[-1].capture
    steps = [item for item in items if isinstance(item, LiveStep)]
    for live in steps:
        weights, keys = live.row()  # (layers, heads, keys)
        assert weights.shape[-1] == len(keys)
        if "cross" in capture.maps:
            assert live.kind == "cross" and weights is live.step.cross_weights
            assert keys == tuple(capture.maps["cross"].key_tokens)
        else:
            assert live.kind == "self" and weights is live.step.self_weights
            assert len(keys) == len(live.source) + live.index
            assert keys[: len(live.source)] == tuple(capture.maps["self"].key_tokens[: len(live.source)])
            if whole_pieces:
                assert keys == tuple(capture.maps["self"].key_tokens[: len(keys)])


@pytest.mark.parametrize("family", ["marian", "gpt2", "llama"])
def test_each_step_draws_its_row_over_the_tokens_read(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    _assert_drawn_rows_are_the_captures(_live(handle, "Hello world", max_new_tokens=6, num_beams=1), False)


def test_demo_decoder_live_equals_generate():
    """The embedded decoder writes live what `generate` writes: equal steps, weights and probabilities, and each
    step's self row over the prompt and the tokens before it."""
    handle = load_model("demo-decoder", "cpu")
    text = "The cat"
    items = _live(handle, text, max_new_tokens=12)
    _assert_same_capture(items[-1].capture, generate(handle, text, max_new_tokens=12))
    _assert_steps_are_the_captures(items, whole_pieces=True)
    _assert_drawn_rows_are_the_captures(items, whole_pieces=True)


@pytest.mark.parametrize("family", ["marian", "gpt2"])
def test_beam_scores_and_winner_match_the_models_own_beam_search(tiny_folder, family):
    """The winning beam's running score at each step equals the cumulative transition scores that transformers'
    own beam search reports for the sequence it returned (`compute_transition_scores` with its beam indices)."""
    handle = load_model(tiny_folder(family), "cpu")
    items = _live(handle, TEXT, max_new_tokens=6, num_beams=3)
    beam_steps = [item for item in items if isinstance(item, LiveBeams)]
    winners = items[-1].winners
    assert len(winners) == len(beam_steps) and winners[0] is not None

    model, ids = handle.model, handle.tokenizer(TEXT, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        out = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            num_beams=3,
            max_new_tokens=6,
            do_sample=False,
            return_dict_in_generate=True,
            output_scores=True,
            pad_token_id=handle.tokenizer.pad_token_id,
        )
    transitions = model.compute_transition_scores(out.sequences, out.scores, out.beam_indices, normalize_logits=False)
    running = np.cumsum(transitions[0].numpy())  # the winner's score after each of its tokens
    first = 1 if handle.is_seq2seq else ids.shape[-1]
    written = out.sequences[0, first:].tolist()
    checked = 0
    for step, winner in zip(beam_steps, winners):
        if winner is None:  # the winner had finished: it left the running beams
            continue
        beam = step.beams[winner]
        assert list(beam.ids) == written[: step.step]
        assert beam.score == pytest.approx(float(running[step.step - 1]), abs=1e-4)
        assert [b.score for b in step.beams] == sorted((b.score for b in step.beams), reverse=True)
        checked += 1
    assert checked >= 2


def test_leaving_early_stops_the_model_and_restores_it(tiny_folder):
    handle = load_model(tiny_folder("marian"), "cpu")
    before = handle.model.config._attn_implementation
    live = write_live(handle, TEXT, max_new_tokens=8)
    first = next(live)
    assert isinstance(first, LiveStep) and first.index == 0
    live.close()  # what a stop button does: the worker stops at its next step
    assert handle.model.config._attn_implementation == before
    assert state_of(handle.model) is not None
    again = generate(handle, TEXT, max_new_tokens=8)  # the model writes as before
    _assert_same_capture(_live(handle, TEXT, max_new_tokens=8)[-1].capture, again)


def test_errors_reach_the_caller(tiny_folder):
    handle = load_model(tiny_folder("marian"), "cpu")
    with pytest.raises(ValueError):
        list(write_live(handle, TEXT, max_new_tokens=0))


def test_run_live_finishes_with_run_recorded_and_draws_each_step(tiny_folder):
    """The faces' entry (`run.run_live`): its capture is `run_recorded`'s, provenance options included, and each
    step's figure draws the step's cross row over the source tokens, bars summing to 1."""
    handle = load_model(tiny_folder("marian"), "cpu")
    request = RunRequest(TEXT, None, "generate", max_new_tokens=5)
    items = list(run_live(handle, request))
    expected = run_recorded(handle, request)
    _assert_same_capture(items[-1].capture, expected)
    assert items[-1].capture.provenance["options"] == expected.provenance["options"]
    for item in items[:-1]:
        assert item.source == tuple(expected.maps["cross"].key_tokens)
        figure = step_row(item.step.cross_weights, item.source, item.step.token, style=FigureStyle(lang="zh"))
        bars = np.asarray(figure.data[0].y)
        np.testing.assert_allclose(bars, item.step.cross_weights.mean(axis=(0, 1)), rtol=0, atol=0)
        assert bars.sum() == pytest.approx(1.0, abs=1e-5) and "写" in figure.layout.title.text
