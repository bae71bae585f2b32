"""Comparing captures of tiny random models: two sentences to one model (self-attention of BERT and GPT-2, BART's
cross-attention), checked against token pairs found by offset arithmetic and scipy's Jensen–Shannon distance; two
models with one tokenizer, their head pairing checked against every permutation; one text read by two tokenizers;
one input captured twice (parity)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import transformers
from scipy.spatial.distance import jensenshannon

from attnviz.attention.capture import capture
from attnviz.compare import BOTH, compare_captures, parity
from attnviz.model.load import load_model
from tests.support import tiny

TEXT_A = "the cat sat on the mat"
TEXT_B = "the big cat sat on the mat"  # " big" inserted at character 3
INSERTED_AT, SHIFT = 3, len(" big")


def shifted_pairs(tokens_a, tokens_b) -> list[tuple[int, int]]:
    """(A token, B token) of the same piece: B's offsets are A's, moved by the insertion when after it; special
    tokens pair by their place from the end. The independent path: no diff, only arithmetic on offsets."""
    by_span = {(t.start, t.end, t.text): i for i, t in enumerate(tokens_b) if t.start >= 0}
    found = []
    for index, token in enumerate(tokens_a):
        if token.start < 0:
            found.append((index, len(tokens_b) - (len(tokens_a) - index)))
            continue
        move = SHIFT if token.start >= INSERTED_AT else 0
        found.append((index, by_span[(token.start + move, token.end + move, token.text)]))
    return found


def js_by_hand(weights_a, weights_b, rows, keys) -> np.ndarray:
    """(layers, heads): the mean over paired rows of scipy's JS distance² (bits) over the paired keys."""
    layers, heads = weights_a.shape[:2]
    out = np.zeros((layers, heads))
    for layer, head in itertools.product(range(layers), range(heads)):
        values = []
        for ra, rb in rows:
            p = weights_a[layer, head, ra, [a for a, _ in keys]].astype(np.float64)
            q = weights_b[layer, head, rb, [b for _, b in keys]].astype(np.float64)
            if p.sum() > 0 and q.sum() > 0:
                values.append(jensenshannon(p / p.sum(), q / q.sum(), base=2) ** 2)
        out[layer, head] = np.mean(values)
    return out


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_two_sentences_to_one_model_give_the_js_of_hand_paired_tokens(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    a, b = capture(handle, TEXT_A), capture(handle, TEXT_B)
    compared = compare_captures(a, b, "self")
    tokens_a, tokens_b = a["self"].query_tokens, b["self"].query_tokens
    pairs = shifted_pairs(tokens_a, tokens_b)
    assert sum(len(s.a) for s in compared.rows.segments if s.status == BOTH) == len(tokens_a)  # every A token kept
    expected = js_by_hand(a["self"].weights, b["self"].weights, pairs, pairs)
    np.testing.assert_allclose(compared.divergence, expected, atol=1e-6)
    assert [s.text for s in compared.rows.segments if s.status != BOTH] == ["big"]


def test_cross_attention_of_two_sources_to_one_target(tiny_folder):
    handle = load_model(tiny_folder("bart"), "cpu")
    a, b = capture(handle, TEXT_A, "Good morning!"), capture(handle, TEXT_B, "Good morning!")
    compared = compare_captures(a, b, "cross")
    rows = [(i, i) for i in range(len(a["cross"].query_tokens))]  # the same target: row i is row i
    keys = shifted_pairs(a["cross"].key_tokens, b["cross"].key_tokens)
    expected = js_by_hand(a["cross"].weights, b["cross"].weights, rows, keys)
    np.testing.assert_allclose(compared.divergence, expected, atol=1e-6)
    assert compared.kind == "cross" and compared.diff.shape[2:] == (len(compared.rows.segments), len(keys) + 1)


@pytest.mark.parametrize("family", ["bert", "bart"])
def test_a_capture_compared_with_itself_is_zero_for_weights_and_value_norms(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    result = capture(handle, "早上好！我喜欢学习。", "Good morning!" if family == "bart" else None)
    for weighting in ("weights", "value-norm"):
        compared = compare_captures(result, result, weighting=weighting)
        assert np.all(compared.divergence == 0) and np.all(compared.diff == 0)
        assert set(compared.rows.statuses) == {BOTH}


def test_two_models_with_one_tokenizer_are_paired_head_by_head_at_least_cost(tiny_folder, tmp_path):
    first = load_model(tiny_folder("bert"), "cpu")
    second = load_model(tiny.save_tiny("bert", tmp_path / "other", seed=1), "cpu")
    a, b = capture(first, TEXT_A), capture(second, TEXT_A)
    paired = compare_captures(a, b, pair_heads=True)
    same = [(i, i) for i in range(len(a["self"].query_tokens))]
    for layer in range(a["self"].num_layers):
        heads = a["self"].num_heads
        costs = np.array(
            [
                [
                    js_by_hand(a["self"].weights[[layer]][:, [i]], b["self"].weights[[layer]][:, [j]], same, same)[0, 0]
                    for j in range(heads)
                ]
                for i in range(heads)
            ]
        )
        best = min(itertools.permutations(range(heads)), key=lambda order: costs[range(heads), order].sum())
        assert costs[range(heads), paired.heads_b[layer]].sum() == pytest.approx(costs[range(heads), best].sum())
        np.testing.assert_allclose(paired.divergence[layer], costs[range(heads), paired.heads_b[layer]], atol=1e-6)
    swapped = compare_captures(b, a, pair_heads=True)
    forward = {(c.layer, c.head, c.head_b) for c in paired.ranking()}
    assert forward == {(c.layer, c.head_b, c.head) for c in swapped.ranking()}


def test_two_models_with_different_numbers_of_layers_compare_by_relative_depth(tiny_folder, tmp_path):
    """A 2-layer and a 3-layer model: A's layer 0 beside B's layer 0 and A's layer 1 beside B's layer 2 (first with
    first, last with last), each pair of layers' heads paired at least cost over every permutation; and back."""
    first = load_model(tiny_folder("bert"), "cpu")
    torch.manual_seed(2)
    deeper = transformers.BertModel(replace_config(tiny.config("bert"), num_hidden_layers=3))
    deeper.save_pretrained(tmp_path / "deeper")
    tiny.byte_level_tokenizer().save_pretrained(tmp_path / "deeper")
    a, b = capture(first, TEXT_A), capture(load_model(str(tmp_path / "deeper"), "cpu"), TEXT_A)
    paired = compare_captures(a, b, pair_heads=True)
    assert paired.layers_b.tolist() == [0, 2]
    same = [(i, i) for i in range(len(a["self"].query_tokens))]
    heads = a["self"].num_heads
    for layer, layer_b in ((0, 0), (1, 2)):
        costs = np.array(
            [
                [
                    js_by_hand(a["self"].weights[[layer]][:, [i]], b["self"].weights[[layer_b]][:, [j]], same, same)
                    for j in range(heads)
                ]
                for i in range(heads)
            ]
        )[..., 0, 0]
        best = min(itertools.permutations(range(heads)), key=lambda order: costs[range(heads), order].sum())
        assert costs[range(heads), paired.heads_b[layer]].sum() == pytest.approx(costs[range(heads), best].sum())
        np.testing.assert_allclose(paired.divergence[layer], costs[range(heads), paired.heads_b[layer]], atol=1e-6)
    back = compare_captures(b, a, pair_heads=True)
    assert back.layers_b.tolist() == [0, 1, 1] and len(back.ranking()) == 3 * heads


def replace_config(config, **values):
    for name, value in values.items():
        setattr(config, name, value)
    return config


def test_one_text_read_by_two_tokenizers_matches_by_characters(tiny_folder, tmp_path):
    first = load_model(tiny_folder("bert"), "cpu")
    folder = tiny.save_tiny("bert", tmp_path / "coarse", seed=1)
    tiny.byte_level_tokenizer(vocab_size=262).save_pretrained(folder)  # hardly any merges: many more pieces
    second = load_model(folder, "cpu")
    text = "早上好！the cat sat."
    a, b = capture(first, text), capture(second, text)
    assert len(a["self"].query_tokens) != len(b["self"].query_tokens)
    compared = compare_captures(a, b, pair_heads=True)
    assert set(compared.rows.statuses) == {BOTH}  # every piece of either side stands for the same characters
    for segment in compared.rows.segments:
        chars = [
            {c for i in side for c in range(tokens[i].start, tokens[i].end) if not text[c].isspace()}
            for side, tokens in ((segment.a, a["self"].query_tokens), (segment.b, b["self"].query_tokens))
        ]
        assert chars[0] == chars[1]  # the same letters (a space may go with the word before or after it)
    assert np.isfinite(compared.divergence).all()


def test_one_input_captured_twice_is_at_parity(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    report = parity(capture(handle, TEXT_A)["self"], capture(handle, TEXT_A)["self"])
    assert report.max_difference == 0 and report.row_sum_error < 1e-5
