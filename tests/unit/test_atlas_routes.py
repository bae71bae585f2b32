"""The atlas's routes and block pass on random tensors, against float64 written out here: every route's (output, LSE)
(the CUDA and NPU ones through stand-ins of their kernels' documented contracts), the check that refuses a wrong
LSE, masks in compact form, and block masses / windows under every kind of mask."""

from __future__ import annotations

import math

import pytest
import torch

from attnviz.atlas import routes
from attnviz.atlas.blocks import block_masses, sink_shares, window
from attnviz.atlas.checked import RouteBook, attention_call
from attnviz.atlas.visibility import Visibility, visibility_of
from attnviz.attention import npu
from tests.support.attention_cases import qkv
from tests.support.npu_reference import npu_fusion_attention_reference


def _keep(queries: int, keys: int, causal: bool, hidden: tuple[int, ...] = (), band: int | None = None):
    """bool (queries, keys): True where query i sees key j."""
    keep = torch.ones(queries, keys, dtype=torch.bool)
    if causal:
        keep &= torch.ones(queries, keys, dtype=torch.bool).tril()
    keep[:, list(hidden)] = False
    if band is not None:
        keep &= (torch.arange(queries)[:, None] - torch.arange(keys)[None, :]) < band
    return keep


def _truth(query, key, value, keep, scale):
    """float64 (weights (b, heads, q, k), lse (b, heads, q), output): the definition, with 0 for a closed row."""
    group = query.shape[1] // key.shape[1]
    key, value = key.double().repeat_interleave(group, 1), value.double().repeat_interleave(group, 1)
    scores = (query.double() @ key.transpose(-1, -2) * scale).masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(scores, -1)
    weights = torch.exp(scores - lse.nan_to_num(neginf=0.0)[..., None])
    return weights, lse, weights @ value


def _additive(keep: torch.Tensor) -> torch.Tensor:
    return torch.zeros(keep.shape).masked_fill(~keep, float("-inf"))[None, None]


MASKS = {
    "causal": dict(causal=True),
    "causal with hidden keys": dict(causal=True, hidden=(1, 5)),
    "padding": dict(causal=False, hidden=(0, 6, 7)),
    "sliding window": dict(causal=True, band=3),
    "none": dict(causal=False),
}


@pytest.mark.parametrize("route", [routes.CPU_FLASH, routes.CHUNKED_EAGER], ids=lambda r: r.name)
@pytest.mark.parametrize("case", MASKS)
def test_routes_give_the_float64_output_and_lse(route, case):
    query, key, value = qkv(batch=2, heads=4, kv_heads=2, q_len=9, k_len=9, dim=8)
    keep = _keep(9, 9, **MASKS[case])
    keep[4] = False  # a row that sees no key
    scale = 8**-0.5
    output, lse = route.attend(query, key, value, _additive(keep), False, scale)
    _, true_lse, true_output = _truth(query, key, value, keep, scale)
    seen = torch.isfinite(true_lse)
    torch.testing.assert_close(lse.double()[seen], true_lse[seen], atol=2e-6, rtol=0)
    torch.testing.assert_close(output.double(), true_output.nan_to_num(0.0), atol=2e-6, rtol=0)


def test_the_check_refuses_an_lse_off_by_ln_2():
    query, key, value = qkv(batch=1, heads=4, kv_heads=2, q_len=33, k_len=33, dim=8)
    output, lse = routes.cpu_flash(query, key, value, None, True, 0.3)
    right = routes.check_rows(query, key, value, None, True, 0.3, output, lse)
    wrong = routes.check_rows(query, key, value, None, True, 0.3, output, lse + math.log(2))
    assert right.agrees and right.lse_error < 1e-6 and len(right.rows) == routes.CHECK_ROWS
    assert not wrong.agrees and wrong.lse_error == pytest.approx(math.log(2), abs=1e-5)
    nan = routes.check_rows(query, key, value, None, True, 0.3, output * float("nan"), lse)
    assert not nan.agrees and nan.output_error == float("inf")


# ----------------------------------------------------------------------------------------------------------------------
# The CUDA and NPU routes, through stand-ins of their kernels (the real ones need the hardware)


def _float64_kernel(query, key, value, bias, is_causal, scale):
    if key.shape[1] != query.shape[1]:
        raise RuntimeError("this kernel wants as many key heads as query heads")
    keep = _keep(query.shape[2], key.shape[2], is_causal)
    scores = query.double() @ key.double().transpose(-1, -2) * scale
    if bias is not None:
        scores = scores + bias.double()
    scores = scores.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(scores, -1)
    return (torch.softmax(scores, -1) @ value.double()).to(query.dtype), lse


def efficient_stand_in(query, key, value, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, *, scale):
    """The memory-efficient kernel's contract: a bias of the query's dtype whose rows are 16-aligned in memory, an LSE
    padded to a multiple of 32 rows."""
    assert compute_log_sumexp and dropout_p == 0.0
    if attn_bias is not None:
        assert attn_bias.dtype == query.dtype and attn_bias.stride(-2) % 16 == 0
        assert attn_bias.shape == (query.shape[0], query.shape[1], query.shape[2], key.shape[2])
    output, lse = _float64_kernel(query, key, value, attn_bias, is_causal, scale)
    padded = torch.full((*lse.shape[:-1], -(-lse.shape[-1] // 32) * 32), 123.0)
    padded[..., : lse.shape[-1]] = lse
    return output, padded.float(), torch.tensor(0), torch.tensor(0)


def flash_stand_in(query, key, value, dropout_p=0.0, is_causal=False, return_debug_mask=False, *, scale):
    output, lse = _float64_kernel(query, key, value, None, is_causal, scale)
    return (output, lse.float(), *([None] * 7))


@pytest.mark.parametrize(
    ("route", "op", "stand_in"),
    [
        (routes.CUDA_EFFICIENT, "_scaled_dot_product_efficient_attention", efficient_stand_in),
        (routes.CUDA_FLASH, "_scaled_dot_product_flash_attention", flash_stand_in),
    ],
    ids=["cuda-efficient", "cuda-flash"],
)
def test_the_cuda_routes_repeat_keys_align_the_mask_and_cut_the_lse(monkeypatch, route, op, stand_in):
    monkeypatch.setattr(torch.ops.aten, op, stand_in)
    query, key, value = qkv(batch=2, heads=4, kv_heads=2, q_len=37, k_len=37, dim=8)
    masked = route is routes.CUDA_EFFICIENT
    keep = _keep(37, 37, causal=True, hidden=(3,) if masked else ())
    mask = _additive(keep) if masked else None
    output, lse = route.attend(query, key, value, mask, not masked, 0.25)
    _, true_lse, true_output = _truth(query, key, value, keep, 0.25)
    assert lse.shape == (2, 4, 37)
    torch.testing.assert_close(lse.double(), true_lse, atol=1e-5, rtol=0)
    torch.testing.assert_close(output.double(), true_output, atol=1e-5, rtol=0)


def test_the_npu_route_reads_the_lse_from_softmax_max_and_sum(monkeypatch):
    monkeypatch.setattr(npu, "npu_kernel", lambda: npu_fusion_attention_reference)
    query, key, value = qkv(batch=1, heads=4, kv_heads=2, q_len=20, k_len=20, dim=8)
    keep = _keep(20, 20, causal=True, hidden=(2,))
    output, lse = routes.NPU_FUSION.attend(query, key, value, _additive(keep), False, 0.3)
    _, true_lse, true_output = _truth(query, key, value, keep, 0.3)
    torch.testing.assert_close(lse.double(), true_lse, atol=1e-5, rtol=0)
    torch.testing.assert_close(output.double(), true_output, atol=1e-5, rtol=0)


def test_routes_are_chosen_by_device_dtype_and_mask():
    cpu = torch.zeros(1, 1, 2, 8)
    assert routes.route_for(cpu, masked=True) is routes.CPU_FLASH
    meta = torch.zeros(1, 1, 2, 8, device="meta")
    assert routes.route_for(meta, masked=False) is routes.CHUNKED_EAGER


# ----------------------------------------------------------------------------------------------------------------------
# Masks in compact form


@pytest.mark.parametrize("case", MASKS)
def test_masks_are_kept_compact_when_they_can_be(case):
    keep = _keep(10, 10, **MASKS[case])
    batch_mask = torch.zeros(2, 1, 12, 12, dtype=torch.bool)
    batch_mask[1, 0, 2:, 2:] = keep  # example 1, left-padded by two tokens
    seen = visibility_of(batch_mask, False, (2, 12), (2, 12), example=1)
    compact = case != "sliding window"
    assert (seen.dense is None) == compact
    if compact:
        assert seen.causal == MASKS[case]["causal"]
        assert (seen.key_keep is None) == (not MASKS[case].get("hidden"))
    got = seen.mask((0, 10), (0, 10), torch.float32)  # (1, 1, rows or 1, keys)
    assert torch.equal(
        torch.ones(10, 10, dtype=torch.bool) if got is None else torch.isfinite(got[0, 0]).expand(10, 10), keep
    )


@pytest.mark.parametrize("case", MASKS)
def test_the_block_pass_pieces_cover_what_is_seen_once(case):
    keep = _keep(23, 23, **MASKS[case])
    seen = visibility_of(_bool4(keep), False, (0, 23), (0, 23), 0)
    for k0, k1 in [(0, 8), (8, 16), (16, 23)]:
        covered = torch.zeros(23, k1 - k0, dtype=torch.int64)
        for r0, r1, mask, causal in seen.pieces(23, (k0, k1), torch.float32):
            part = torch.ones(r1 - r0, k1 - k0, dtype=torch.bool) if mask is None else torch.isfinite(mask[0, 0])
            part = part.expand(r1 - r0, k1 - k0)
            if causal:
                part = part & torch.ones(r1 - r0, k1 - k0, dtype=torch.bool).tril()
            covered[r0:r1] += part
        assert torch.equal(covered, keep[:, k0:k1].long())


def _bool4(keep: torch.Tensor) -> torch.Tensor:
    return keep[None, None]


# ----------------------------------------------------------------------------------------------------------------------
# Block masses, sinks and windows


@pytest.mark.parametrize("case", MASKS)
@pytest.mark.parametrize("block", [1, 3, 4])
def test_block_masses_sinks_and_windows_equal_float64(case, block):
    queries = 29
    query, key, value = qkv(batch=1, heads=4, kv_heads=2, q_len=queries, k_len=queries, dim=4, seed=block)
    keep = _keep(queries, queries, **MASKS[case])
    weights, lse, _ = _truth(query, key, value, keep, 0.5)  # float64 (1, heads, q, k)
    seen = visibility_of(_bool4(keep), False, (0, queries), (0, queries), 0)
    book = RouteBook()
    got = block_masses(attention_call(book, "blocks"), query, key, lse.float(), seen, 0.5, block)
    blocks = -(-queries // block)
    padded = torch.zeros(4, blocks * block, blocks * block, dtype=torch.float64)
    padded[:, :queries, :queries] = weights[0]
    sums = padded.reshape(4, blocks, block, blocks, block).sum((2, 4))
    rows = torch.tensor([min(block, queries - block * i) for i in range(blocks)], dtype=torch.float64)
    torch.testing.assert_close(got.double(), sums / rows[:, None], atol=1e-6, rtol=0)
    assert {entry["used"] for entry in book.record} == {"cpu-flash"}
    sinks = sink_shares(query, key, lse.float(), seen, 0.5, 4)
    torch.testing.assert_close(sinks.double(), weights[0, :, :, :4].sum(-1), atol=1e-6, rtol=0)
    part = window(query, key, lse.float(), seen, 0.5, [3, 0], (5, 17), (2, 11))
    torch.testing.assert_close(part.double(), weights[0, [3, 0], 5:17, 2:11], atol=1e-6, rtol=0)


def test_a_dense_mask_with_a_head_axis_opens_each_heads_own_window():
    query, key, value = qkv(batch=1, heads=2, kv_heads=2, q_len=6, k_len=6, dim=4)
    bias = torch.randn(1, 2, 6, 6)
    keep = _keep(6, 6, causal=True)
    seen = Visibility(False, None, bias.masked_fill(~keep, float("-inf")))
    scores = (query.double() @ key.double().transpose(-1, -2)) * 0.5 + seen.dense.double()
    lse = torch.logsumexp(scores, -1)
    part = window(query, key, lse.float(), seen, 0.5, [1], (0, 6), (0, 6))
    torch.testing.assert_close(part.double(), torch.softmax(scores, -1)[0, [1]], atol=1e-6, rtol=0)
