"""attnviz.attention.math, the one eager definition: the formula, masks (boolean, additive, causal), GQA, one NaN
policy and float32 weights. Its output against SDPA and its log-sum-exp rebuild are checked beside the fused paths,
in test_npu.py."""

from __future__ import annotations

import pytest
import torch

from attnviz.attention.compact import CompactMask, LayerInputs
from attnviz.attention.math import attention_probabilities, attention_steps, causal_keep, softmax_rows
from attnviz.errors import InputError
from tests.support.attention_cases import TOLERANCE, explicit_probabilities, padding_keep, qkv

# ---------------------------------------------------------------------------------------- exact probabilities


def test_probabilities_match_the_formula_and_rows_sum_to_one():
    q, k, _ = qkv()
    keep = padding_keep(2, 5, [5, 3])
    probabilities = attention_probabilities(q, k, keep)
    assert probabilities.dtype is torch.float32 and probabilities.shape == (2, 4, 5, 5)
    torch.testing.assert_close(probabilities, explicit_probabilities(q, k, keep), **TOLERANCE)
    torch.testing.assert_close(probabilities.sum(-1), torch.ones(2, 4, 5))
    assert torch.all(probabilities[1, :, :, 3:] == 0)  # padded keys: exactly zero, not merely small


def test_steps_are_float32_from_half_inputs():
    q, k, v = qkv(dtype=torch.bfloat16)
    weights = attention_steps(q, k, v, is_causal=True).weights
    assert weights.dtype is torch.float32
    # computed from the bf16 values themselves, exactly as in float32
    expected = attention_steps(q.float(), k.float(), v.float(), is_causal=True).weights
    torch.testing.assert_close(weights, expected, atol=0, rtol=0)
    assert torch.all(weights.triu(diagonal=1) == 0)


def test_probabilities_for_chosen_heads_equal_the_same_heads_of_all():
    q, k, _ = qkv(heads=6, kv_heads=2)  # GQA: query heads 0-2 read kv head 0, 3-5 kv head 1
    mask = torch.randn(1, 6, 5, 5)  # a per-head additive bias, as T5's position bias is
    every_head = attention_probabilities(q, k, mask)
    kept = LayerInputs(q, k, None, mask, None)  # what on-demand capture recomputes one head from
    for row in range(2):
        chosen = kept.probabilities([5, 0, 3], 0, 5, batch=row)
        torch.testing.assert_close(chosen, every_head[row, [5, 0, 3]], atol=0, rtol=0)
    torch.testing.assert_close(every_head, explicit_probabilities(q, k, bias=mask), **TOLERANCE)


def test_finfo_min_masks_are_masked_and_rows_closed_with_minus_infinity_are_zero():
    q, k, _ = qkv(batch=1, heads=2, kv_heads=2, q_len=3, k_len=3)
    additive = torch.zeros(1, 1, 3, 3)
    additive[..., 2] = torch.finfo(torch.float32).min  # what Transformers builds instead of -inf
    additive[..., 1, :] = float("-inf")  # a query row that may look at nothing
    probabilities = attention_probabilities(q, k, additive)
    assert torch.all(probabilities[..., 2] == 0)
    assert torch.all(probabilities[..., 1, :] == 0)
    torch.testing.assert_close(probabilities[..., [0, 2], :].sum(-1), torch.ones(1, 2, 2))


def test_the_nan_policy_zeroes_closed_rows_only_and_leaves_other_nans_to_be_refused():
    scores = torch.tensor([[[1.0, float("nan"), 0.0], [0.0, 1.0, 2.0], [3.0, 1.0, 0.0]]])
    closing = torch.tensor([[[True, True, True], [False, False, False], [True, False, True]]])
    weights = softmax_rows(scores, closing)
    assert torch.isnan(weights[0, 0]).all()  # a NaN score: not a closed row, so it stays for the finite check
    assert torch.all(weights[0, 1] == 0)  # closed by the mask: exactly 0, never NaN
    assert torch.isfinite(weights[0, 2]).all()


def test_a_mask_made_in_inference_mode_closes_its_rows_too():
    # Recorded passes run in inference mode, whose tensors keep no version count: the mask is still read right.
    q, k, _ = qkv(batch=1, heads=2, kv_heads=2, q_len=3, k_len=3)
    with torch.inference_mode():
        additive = torch.zeros(1, 1, 3, 3)
        additive[..., 1, :] = float("-inf")  # a query row that may look at nothing
        first, again = attention_probabilities(q, k, additive), attention_probabilities(q, k, additive)
    assert additive.is_inference()
    for probabilities in (first, again):  # the second call reads the mask from what the first learnt
        assert torch.all(probabilities[..., 1, :] == 0)
        torch.testing.assert_close(probabilities[..., [0, 2], :].sum(-1), torch.ones(1, 2, 2))


def test_bad_heads_and_masks_are_refused_with_a_sentence():
    q, k, _ = qkv()
    with pytest.raises(InputError, match="multiple"):
        attention_probabilities(q, k[:, :3])
    with pytest.raises(InputError, match="must end in"):
        attention_probabilities(q, k, torch.ones(5, 4, dtype=torch.bool))
    with pytest.raises(InputError, match="bool mask"):
        attention_probabilities(q, k, torch.ones(5, 5, dtype=torch.int64))


def test_causal_masks_are_built_one_way_whole_or_by_rows():
    for alignment, offset in (("top_left", 0), ("bottom_right", 3)):
        whole = causal_keep(4, 7, alignment)
        assert torch.equal(whole, torch.ones(4, 7, dtype=torch.bool).tril(offset))
        assert torch.equal(causal_keep(4, 7, alignment, rows=(1, 3)), whole[1:3])
    fill = torch.finfo(torch.float32).min
    compact = CompactMask(torch.ones(1, 7, dtype=torch.bool), True, 4, fill, torch.float32)
    assert torch.equal(compact.rows(0, 0, 4)[0, 0] == 0, causal_keep(4, 7, "bottom_right"))
    with pytest.raises(InputError, match="Unknown causal alignment"):
        causal_keep(2, 2, "middle")


def test_a_mask_is_read_once_per_pass_but_again_once_changed():
    q, k, _ = qkv(batch=1, heads=2, kv_heads=2, q_len=3, k_len=3)
    mask = torch.zeros(1, 1, 3, 3)
    assert torch.isfinite(attention_probabilities(q, k, mask)).all()
    mask[..., 1, :] = float("-inf")  # changed in place after a first read: the closed row is seen
    assert torch.all(attention_probabilities(q, k, mask)[..., 1, :] == 0)
    assert torch.isfinite(attention_probabilities(q, k, torch.zeros(1, 1, 3, 3))).all()
