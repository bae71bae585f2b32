"""The explainer on your sentence: one head's q, k and v from the model's real pass (attnviz.attention.vectors), and
the softmax row rebuilt from them equal to the weights `capture` records (itself equal to eager attention)."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from attnviz.attention.capture import capture
from attnviz.attention.ondemand import capture_lazy
from attnviz.attention.vectors import capture_with_values, head_vectors, row_terms
from attnviz.attention.walkthrough import sentence_walkthrough
from attnviz.errors import InputError
from attnviz.model.load import load_model
from tests.support.tiny import SEQ2SEQ

TEXT = "早上好！Good morning, I like studying."
TARGET = "Good morning! 我喜欢"
# the module each family's head outputs enter, concatenated (batch, queries, heads · d): the output projection
OUTPUT_PROJECTION = {"bert": "attention.output.dense", "gpt2": "attn.c_proj", "llama": "self_attn.o_proj"}


def _run(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    target = TARGET if family in SEQ2SEQ else None
    return handle, capture(handle, TEXT, target), capture_with_values(handle, TEXT, target)


@pytest.mark.parametrize("family", ["bert", "gpt2", "llama", "t5", "bart"])
def test_the_rebuilt_row_equals_the_captured_weights(tiny_folder, family):
    _, full, captured = _run(tiny_folder, family)
    worst = 0.0
    for kind, amap in full.maps.items():
        layers, heads, queries, _ = amap.weights.shape
        assert captured.lazy.shape(kind) == amap.weights.shape
        for layer in range(layers):
            for head in range(heads):
                vectors = captured.head(kind, layer, head)
                for row in range(queries):
                    mask, bias = row_terms(captured.lazy, kind, layer, head, row)
                    walk = sentence_walkthrough(vectors, row, mask, bias, amap.weights[layer, head, row])
                    worst = max(worst, walk.difference)
                    assert walk.steps.weights[0].sum() == pytest.approx(1.0)
                    assert (walk.steps.weights[0][~walk.allowed] == 0).all()
    assert worst <= 1e-6
    if family in ("gpt2", "llama"):  # causal: the first token sees only itself
        walk = sentence_walkthrough(captured.head("self", 0, 0), 0, *row_terms(captured.lazy, "self", 0, 0, 0))
        assert walk.allowed.sum() == 1 and walk.steps.weights[0, 0] == pytest.approx(1.0)


@pytest.mark.parametrize("family", ["bert", "gpt2", "llama"])
def test_the_weighted_sum_is_what_the_head_hands_the_output_projection(tiny_folder, family):
    """Values come from the model's own pass: weights · v equals the head's slice of the output projection's input
    in an ordinary forward pass of the model."""
    handle, _, captured = _run(tiny_folder, family)
    model = handle.model
    seen = {}
    hooks = [
        module.register_forward_pre_hook(lambda m, args, name=name: seen.__setitem__(name, args[0].detach()))
        for name, module in model.named_modules()
        if name.endswith(OUTPUT_PROJECTION[family])
    ]
    try:
        with torch.no_grad():
            model(**handle.tokenizer(TEXT, return_tensors="pt"))
    finally:
        for hook in hooks:
            hook.remove()
    inputs = [seen[name] for name in sorted(seen, key=lambda n: [int(p) for p in n.split(".") if p.isdigit()])]
    layers, heads, queries, _ = captured.lazy.shape("self")
    assert len(inputs) == layers and inputs[0].shape[1] == queries
    for layer in range(layers):
        for head in (0, heads - 1):
            vectors = captured.head("self", layer, head)
            d = vectors.head_dim
            for row in (0, queries - 1):
                walk = sentence_walkthrough(vectors, row, *row_terms(captured.lazy, "self", layer, head, row))
                expected = inputs[layer][0, row, head * d : (head + 1) * d].numpy()
                np.testing.assert_allclose(walk.steps.context[0], expected, atol=1e-5)


def test_grouped_query_heads_read_their_shared_key_head(tiny_folder):
    _, _, captured = _run(tiny_folder, "llama")  # 4 query heads, 2 key/value heads
    pairs = [captured.head("self", 0, head) for head in range(4)]
    assert [v.key_head for v in pairs] == [0, 0, 1, 1]
    np.testing.assert_array_equal(pairs[0].keys, pairs[1].keys)
    np.testing.assert_array_equal(pairs[0].values, pairs[1].values)
    assert not np.array_equal(pairs[1].keys, pairs[2].keys)
    assert not np.array_equal(pairs[0].queries, pairs[1].queries)


def test_queries_and_keys_alone_come_from_an_ordinary_on_demand_capture(tiny_folder):
    handle = load_model(tiny_folder("t5"), "cpu")
    lazy = capture_lazy(handle, TEXT, TARGET)
    vectors = head_vectors(lazy, "cross", 1, 2)
    assert vectors.values is None
    assert vectors.queries.shape[0] == len(lazy.tokens("cross")[0])
    assert vectors.keys.shape[0] == len(lazy.tokens("cross")[1])
    walk = sentence_walkthrough(vectors, 0)
    assert walk.steps.context is None and walk.difference is None
    with pytest.raises(InputError, match="layer"):
        head_vectors(lazy, "cross", 7, 0)


def test_a_soft_capped_head_is_refused_with_a_sentence(tiny_folder):
    _, _, captured = _run(tiny_folder, "gpt2")
    capped = replace(captured.head("self", 0, 0), softcap=50.0)
    with pytest.raises(InputError, match="soft-caps"):
        sentence_walkthrough(capped, 0)
