"""attnviz.attention.layer and its maths: the seed's multi-head split/merge, the step-by-step attention, and the
module against torch's own."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attnviz.attention.layer import MultiHeadAttention
from attnviz.attention.math import attention_steps, multi_head_merge, multi_head_split
from attnviz.errors import InputError

TOLERANCE = dict(atol=1e-5, rtol=1e-5)


def _seeded(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


# ----------------------------------------------------------------------------------------- split and merge


def test_split_matches_the_seed_pseudo_code_and_merge_undoes_it():
    x = _seeded(2, 5, 12)
    heads = multi_head_split(x, 3)
    assert heads.shape == (2, 3, 5, 4)
    # head h holds features h·4 … h·4 + 3 of every position, exactly the seed's reshape + transpose
    torch.testing.assert_close(heads[:, 1], x[:, :, 4:8], atol=0, rtol=0)
    torch.testing.assert_close(multi_head_merge(heads), x, atol=0, rtol=0)


def test_split_refuses_a_hidden_size_that_does_not_divide():
    with pytest.raises(InputError, match="cannot be split into 5 heads"):
        multi_head_split(torch.zeros(1, 2, 12), 5)
    with pytest.raises(InputError, match=r"\(batch, length, hidden\)"):
        multi_head_split(torch.zeros(2, 12), 3)
    with pytest.raises(InputError, match=r"\(batch, heads, length, head_dim\)"):
        multi_head_merge(torch.zeros(2, 12, 3))


# ----------------------------------------------------------------------------------------- the steps function


def test_steps_on_the_seeds_three_by_four_walkthrough():
    # Q has 3 elements, K and V have 4, each of dimension 2; the first example uses the raw inner product.
    q = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    k = torch.tensor([[1.0, 2.0], [0.0, 1.0], [2.0, 0.0], [1.0, 1.0]])
    v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])
    steps = attention_steps(q, k, v, scale=1.0)
    assert [name for name, _ in steps.shapes()] == [
        "query",
        "key",
        "value",
        "scores",
        "scaled_scores",
        "masked_scores",
        "weights",
        "context",
    ]
    assert dict(steps.shapes())["weights"] == (3, 4) and dict(steps.shapes())["context"] == (3, 2)
    torch.testing.assert_close(steps.scores, q @ k.T, atol=0, rtol=0)
    torch.testing.assert_close(steps.weights, torch.softmax(q @ k.T, dim=-1))
    torch.testing.assert_close(steps.context, steps.weights @ v)
    torch.testing.assert_close(steps.weights.sum(-1), torch.ones(3))


def test_steps_default_to_the_square_root_scale():
    q, k, v = _seeded(3, 2), _seeded(4, 2, seed=1), _seeded(4, 2, seed=2)
    steps = attention_steps(q, k, v)
    assert steps.scale == pytest.approx(1 / math.sqrt(2))
    torch.testing.assert_close(steps.scaled_scores, steps.scores / math.sqrt(2))
    torch.testing.assert_close(steps.context, F.scaled_dot_product_attention(q[None], k[None], v[None])[0], **TOLERANCE)


def test_steps_reproduce_the_seeds_si_bu_xiang_weights_with_a_masked_frog():
    # 四不像 looks at 鹿, 牛, 羊, 驴, 青蛙 with weights 1/3, 1/6, 1/4, 1/4, 0.
    expected = torch.tensor([1 / 3, 1 / 6, 1 / 4, 1 / 4, 0.0])
    q = torch.ones(1, 1)
    k = torch.log(expected.clamp_min(1e-9)).unsqueeze(1)  # q·kᵀ = log weight, so softmax gives the weight back
    v = torch.eye(5)
    keep = torch.tensor([[True, True, True, True, False]])
    steps = attention_steps(q, k, v, keep, scale=1.0)
    torch.testing.assert_close(steps.weights[0], expected)
    assert steps.weights[0, 4] == 0 and torch.isneginf(steps.masked_scores[0, 4])
    torch.testing.assert_close(steps.context[0], expected)  # the answer is 1/3 鹿 + 1/6 牛 + 1/4 羊 + 1/4 驴


def test_steps_refuse_mismatched_inputs():
    with pytest.raises(InputError, match="same feature size"):
        attention_steps(torch.zeros(3, 2), torch.zeros(4, 3), torch.zeros(4, 2))
    with pytest.raises(InputError, match="same number of dimensions"):
        attention_steps(torch.zeros(3, 2), torch.zeros(1, 4, 2), torch.zeros(4, 2))


# ------------------------------------------------------------------------- the module against torch's modules


def _shared_weights(ours: MultiHeadAttention, theirs: nn.MultiheadAttention) -> None:
    """Copy torch's packed in-projection (or its separate q/k/v projections) and out-projection into ours."""
    with torch.no_grad():
        if theirs._qkv_same_embed_dim:
            q_weight, k_weight, v_weight = theirs.in_proj_weight.chunk(3)
        else:
            q_weight, k_weight, v_weight = theirs.q_proj_weight, theirs.k_proj_weight, theirs.v_proj_weight
        q_bias, k_bias, v_bias = theirs.in_proj_bias.chunk(3)
        for layer, weight, bias in (
            (ours.q_proj, q_weight, q_bias),
            (ours.k_proj, k_weight, k_bias),
            (ours.v_proj, v_weight, v_bias),
        ):
            layer.weight.copy_(weight)
            layer.bias.copy_(bias)
        ours.out_proj.weight.copy_(theirs.out_proj.weight)
        ours.out_proj.bias.copy_(theirs.out_proj.bias)


def test_self_attention_equals_torch_multihead_attention_with_padding_and_causal_masks():
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    ours = MultiHeadAttention(16, 4, mask_type="causal", device="cpu")
    _shared_weights(ours, theirs)
    x = _seeded(2, 6, 16)
    real = torch.ones(2, 6, dtype=torch.bool)
    real[1, 4:] = False  # the second sentence is two tokens shorter
    causal_forbidden = torch.ones(6, 6, dtype=torch.bool).triu(1)  # torch: True = may NOT attend
    expected, expected_weights = theirs(
        x, x, x, key_padding_mask=~real, attn_mask=causal_forbidden, average_attn_weights=False
    )
    output, weights, steps = ours(x, padding_mask=real)
    assert steps is None and weights.dtype is torch.float32
    torch.testing.assert_close(output, expected, **TOLERANCE)
    torch.testing.assert_close(weights, expected_weights, **TOLERANCE)
    assert torch.all(weights.triu(diagonal=1) == 0)  # causal: the future is exactly 0
    assert torch.all(weights[1, :, :, 4:] == 0)  # padding: exactly 0


def test_cross_attention_equals_torch_multihead_attention_with_a_different_source_size():
    torch.manual_seed(1)
    theirs = nn.MultiheadAttention(12, 3, kdim=20, vdim=20, batch_first=True).eval()
    ours = MultiHeadAttention(12, 3, kv_hidden_size=20, mask_type="padding", device="cpu")
    _shared_weights(ours, theirs)
    target, source = _seeded(2, 3, 12), _seeded(2, 7, 20, seed=1)
    real = torch.ones(2, 7, dtype=torch.bool)
    real[0, 5:] = False
    expected, expected_weights = theirs(target, source, source, key_padding_mask=~real, average_attn_weights=False)
    output, weights, _ = ours(target, source, padding_mask=real)
    assert weights.shape == (2, 3, 3, 7)
    torch.testing.assert_close(output, expected, **TOLERANCE)
    torch.testing.assert_close(weights, expected_weights, **TOLERANCE)


def test_grouped_query_attention_equals_sdpa_with_shared_key_value_heads():
    torch.manual_seed(2)
    ours = MultiHeadAttention(16, 4, num_kv_heads=2, mask_type="causal", device="cpu")
    assert ours.k_proj.out_features == 8  # two key/value heads of 4 features
    x = _seeded(1, 5, 16)
    output, weights, steps = ours(x, return_steps=True)
    assert steps.key.shape == (1, 2, 5, 4) and steps.query.shape == (1, 4, 5, 4)
    expected_context = F.scaled_dot_product_attention(
        steps.query, steps.key, steps.value, is_causal=True, enable_gqa=True
    )
    torch.testing.assert_close(steps.context, expected_context, **TOLERANCE)
    torch.testing.assert_close(output, ours.out_proj(multi_head_merge(expected_context)), **TOLERANCE)
    # query heads 0 and 1 share key head 0: same keys, different queries
    k0 = steps.key[:, 0].transpose(-1, -2)
    torch.testing.assert_close(steps.scores[:, 1], steps.query[:, 1] @ k0, **TOLERANCE)


def test_return_steps_exposes_every_shape_for_the_explainer():
    ours = MultiHeadAttention(8, 2, device="cpu")
    output, weights, steps = ours(_seeded(1, 3, 8), return_steps=True)
    assert steps.shapes() == [
        ("query", (1, 2, 3, 4)),
        ("key", (1, 2, 3, 4)),
        ("value", (1, 2, 3, 4)),
        ("scores", (1, 2, 3, 3)),
        ("scaled_scores", (1, 2, 3, 3)),
        ("masked_scores", (1, 2, 3, 3)),
        ("weights", (1, 2, 3, 3)),
        ("context", (1, 2, 3, 4)),
        ("merged", (1, 3, 8)),
        ("output", (1, 3, 8)),
    ]
    assert steps.output is output and steps.weights is weights
    torch.testing.assert_close(steps.merged, multi_head_merge(steps.context), atol=0, rtol=0)


def test_atb_knobs_q_scale_times_scale_and_kv_head_zero():
    ours = MultiHeadAttention(8, 2, num_kv_heads=0, scale=0.5, q_scale=3.0, device="cpu")
    assert ours.num_kv_heads == 2  # ATB: kvHeadNum 0 means as many as headNum
    assert ours.scale == pytest.approx(1.5)  # qScale · qkScale
    _, _, steps = ours(_seeded(1, 3, 8), return_steps=True)
    torch.testing.assert_close(steps.scaled_scores, steps.scores * 1.5)


def test_module_is_built_on_the_resolved_device_and_weights_stay_float32_in_bfloat16():
    ours = MultiHeadAttention(8, 2, device="auto", dtype=torch.bfloat16)
    from attnviz.model.devices import resolve_device

    assert ours.q_proj.weight.device == resolve_device("auto")
    x = _seeded(1, 4, 8).to(device=ours.q_proj.weight.device, dtype=torch.bfloat16)
    output, weights, _ = ours(x)
    assert output.dtype is torch.bfloat16 and weights.dtype is torch.float32
    torch.testing.assert_close(weights.sum(-1).cpu(), torch.ones(1, 2, 4))


def test_bad_configurations_and_inputs_say_how_to_fix_them():
    with pytest.raises(InputError, match="multiple of num_heads"):
        MultiHeadAttention(10, 4, device="cpu")
    with pytest.raises(InputError, match="multiple of num_kv_heads"):
        MultiHeadAttention(12, 4, num_kv_heads=3, device="cpu")
    with pytest.raises(InputError, match="Unknown mask_type"):
        MultiHeadAttention(8, 2, mask_type="alibi", device="cpu")
    padded = MultiHeadAttention(8, 2, mask_type="padding", device="cpu")
    with pytest.raises(InputError, match="needs padding_mask"):
        padded(_seeded(1, 3, 8))
    with pytest.raises(InputError, match=r"\(batch, keys\) = \(1, 3\)"):
        padded(_seeded(1, 3, 8), padding_mask=torch.ones(1, 4, dtype=torch.bool))
    causal = MultiHeadAttention(8, 2, mask_type="causal", device="cpu")
    with pytest.raises(InputError, match="self-attention"):
        causal(_seeded(1, 3, 8), _seeded(1, 5, 8))
