"""The NPU adapter, checked on CPU against SDPA and a reference of npu_fusion_attention's documented contract, and
the fused paths of on-demand capture (SDPA off an NPU, the adapter on one).

The adapter's glue (mask inversion, explicit scale, causal sparse modes, GQA, pse, LSE from softmax_max/sum) is
exercised with `npu_fusion_attention_reference` injected as the kernel (on-demand capture's NPU path, on every tiny
model family, is in tests/integration/test_npu_models.py). Tests at the bottom use the real kernel and are skipped on
machines without torch_npu and an Ascend NPU.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.attention import npu
from attnviz.attention.math import (
    attention_probabilities,
    attention_scores,
    attention_steps,
    eager_attention,
    probabilities_from_lse,
    with_causal,
)
from attnviz.attention.npu import NPU_COMPRESSED_MASK_SIZE, lse_from_softmax_stats, npu_attention
from attnviz.attention.recorder import QueryKeyRecorder, state_of
from attnviz.errors import DeviceUnavailableError, InputError
from attnviz.model.devices import device_statuses
from tests.support.attention_cases import MASK_CASES, TOLERANCE, case, lengths, padding_keep, qkv, sdpa_truth
from tests.support.npu_reference import SpyKernel, npu_fusion_attention_reference


def _full_mask(mask, causal, alignment, q_len, k_len):
    return with_causal(mask, q_len, k_len, alignment) if causal else mask


def _sdpa_path(q, k, v, mask=None):
    """On-demand capture's output off an NPU: its recorder's SDPA call, (B, N, Sq, D)."""
    holder = torch.nn.Module()
    holder.attn = module = torch.nn.Module().eval()
    output, weights = QueryKeyRecorder(state_of(holder)).forward(module, q, k, v, mask)
    assert weights is None
    return output.transpose(1, 2)  # (B, N, Sq, D)


def _fused(path, q, k, v, mask=None, causal=False, alignment="top_left", scale=None, kernel=None):
    """(output, lse or None) of one fused path: "npu" (the adapter), "sdpa" (on-demand capture off an NPU), or
    "eager" (the one definition, with the LSE of its scores)."""
    if path == "npu":
        return npu_attention(
            q,
            k,
            v,
            mask,
            scaling=scale,
            is_causal=causal,
            causal_alignment=alignment,
            kernel=kernel or npu_fusion_attention_reference,
        )
    full = _full_mask(mask, causal, alignment, q.shape[-2], k.shape[-2])
    if path == "sdpa":
        return _sdpa_path(q, k, v, full), None
    output, _ = eager_attention(q, k, v, full, scale)
    return output.transpose(1, 2), torch.logsumexp(attention_scores(q, k, full, scale).float(), dim=-1)


# ------------------------------------------------------------------------------- every fused path agrees with SDPA


@pytest.mark.parametrize("path", ["sdpa", "eager", "npu"])
@pytest.mark.parametrize("case_name", MASK_CASES)
@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_every_path_equals_torch_sdpa(path, case_name, kv_heads):
    q_len, k_len = lengths(case_name)
    q, k, v = qkv(heads=4, kv_heads=kv_heads, q_len=q_len, k_len=k_len)
    mask, causal, alignment, sdpa_mask, sdpa_causal = case(case_name, 2, 4, q_len, k_len)
    output, _ = _fused(path, q, k, v, mask, causal, alignment)
    torch.testing.assert_close(output, sdpa_truth(q, k, v, sdpa_mask, sdpa_causal), **TOLERANCE)


@pytest.mark.parametrize("path", ["eager", "npu"])
@pytest.mark.parametrize("case_name", MASK_CASES)
def test_lse_rebuilds_the_exact_probabilities(path, case_name):
    q_len, k_len = lengths(case_name)
    q, k, v = qkv(heads=4, kv_heads=2, q_len=q_len, k_len=k_len)
    mask, causal, alignment, _, _ = case(case_name, 2, 4, q_len, k_len)
    _, lse = _fused(path, q, k, v, mask, causal, alignment)
    assert lse.shape == (2, 4, q_len) and lse.dtype is torch.float32
    full = _full_mask(mask, causal, alignment, q_len, k_len)
    rebuilt = probabilities_from_lse(attention_scores(q, k, full), lse)
    exact = attention_probabilities(q, k, mask, is_causal=causal, causal_alignment=alignment)
    torch.testing.assert_close(rebuilt, exact, **TOLERANCE)


def test_lse_from_the_kernels_softmax_max_and_sum():
    q, k, v = qkv(heads=4, kv_heads=2)
    scale = 0.3
    _, softmax_max, softmax_sum, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD", scale=scale)
    assert softmax_max.shape == softmax_sum.shape == (2, 4, 5, 8)
    assert softmax_max.dtype is softmax_sum.dtype is torch.float32
    rebuilt = probabilities_from_lse(
        attention_scores(q, k, scaling=scale), lse_from_softmax_stats(softmax_max, softmax_sum)
    )
    torch.testing.assert_close(rebuilt, attention_probabilities(q, k, scaling=scale), **TOLERANCE)
    expected_lse = torch.logsumexp((q @ k.repeat_interleave(2, dim=1).transpose(-1, -2)) * scale, dim=-1)
    torch.testing.assert_close(lse_from_softmax_stats(softmax_max, softmax_sum), expected_lse, **TOLERANCE)


def test_rows_with_nothing_to_attend_to_give_zero_output_everywhere():
    q, k, v = qkv(batch=1, heads=2, kv_heads=2, q_len=3, k_len=3)
    keep = torch.ones(3, 3, dtype=torch.bool)
    keep[1] = False
    for path in ("sdpa", "eager", "npu"):
        output, lse = _fused(path, q, k, v, keep)
        assert torch.all(output[:, :, 1] == 0), path
        assert torch.isfinite(output).all(), path
        if lse is not None:
            assert torch.all(torch.isneginf(lse[:, :, 1])), path
            assert torch.all(probabilities_from_lse(attention_scores(q, k, keep), lse)[:, :, 1] == 0), path


@settings(max_examples=30, deadline=None)
@given(
    batch=st.integers(1, 2),
    kv_heads=st.integers(1, 3),
    group=st.integers(1, 3),
    q_len=st.integers(1, 6),
    k_len=st.integers(1, 6),
    dim=st.sampled_from([1, 2, 4, 8]),
    causal=st.booleans(),
    padded=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_npu_glue_equals_sdpa_for_random_shapes(batch, kv_heads, group, q_len, k_len, dim, causal, padded, seed):
    heads = kv_heads * group
    q, k, v = qkv(batch, heads, kv_heads, q_len, k_len, dim, seed)
    keep = padding_keep(batch, k_len, [max(1, k_len - row) for row in range(batch)]) if padded else None
    sdpa, _ = _fused("sdpa", q, k, v, keep, causal)
    output, _ = _fused("npu", q, k, v, keep, causal)
    torch.testing.assert_close(output, sdpa, **TOLERANCE)


def test_half_precision_inputs_keep_their_dtype():
    q, k, v = qkv(dtype=torch.bfloat16)
    for path in ("sdpa", "eager", "npu"):
        output, _ = _fused(path, q, k, v)
        assert output.dtype is torch.bfloat16
        torch.testing.assert_close(output.float(), sdpa_truth(q.float(), k.float(), v.float()), atol=2e-2, rtol=2e-2)


# ----------------------------------------------------------------------- what the glue hands the npu kernel


def test_npu_glue_passes_scale_explicitly_layout_bnsd_and_kv_heads_unexpanded():
    q, k, v = qkv(heads=4, kv_heads=2, dim=16)
    spy = SpyKernel()
    npu_attention(q, k, v, kernel=spy)
    call = spy.calls[0]
    assert call["scale"] == pytest.approx(1 / 4)  # 1/sqrt(16), never the kernel's default 1.0
    assert call["input_layout"] == "BNSD" and call["head_num"] == 4
    assert call["key"].shape[1] == 2 and call["value"].shape[1] == 2  # GQA handed to the kernel natively
    assert "atten_mask" not in call and call["sparse_mode"] == 0


def test_npu_glue_inverts_boolean_masks_and_uses_a_kernel_layout():
    q, k, v = qkv()
    keep = padding_keep(2, 5, [5, 2])  # (B, 1, 1, Skv): not a layout the kernel accepts as is
    spy = SpyKernel()
    npu_attention(q, k, v, keep, kernel=spy)
    atten_mask = spy.calls[0]["atten_mask"]
    assert atten_mask.dtype is torch.bool and atten_mask.shape == (2, 1, 5, 5)  # B1SS
    assert torch.equal(atten_mask, ~keep.expand(2, 1, 5, 5))  # True = masked out
    assert spy.calls[0]["sparse_mode"] == 0


@pytest.mark.parametrize("alignment, sparse_mode", [("top_left", 2), ("bottom_right", 3)])
def test_npu_glue_uses_the_causal_sparse_modes_with_the_compressed_mask(alignment, sparse_mode):
    q, k, v = qkv(q_len=3, k_len=7)
    spy = SpyKernel()
    output, _ = npu_attention(q, k, v, is_causal=True, causal_alignment=alignment, kernel=spy)
    call = spy.calls[0]
    assert call["sparse_mode"] == sparse_mode
    size = NPU_COMPRESSED_MASK_SIZE
    assert torch.equal(call["atten_mask"], torch.ones(size, size, dtype=torch.bool).triu(1))
    triangle = torch.ones(3, 7, dtype=torch.bool).tril(0 if alignment == "top_left" else 4)
    torch.testing.assert_close(output, sdpa_truth(q, k, v, triangle), **TOLERANCE)


def test_npu_glue_folds_causal_and_padding_into_one_full_mask():
    q, k, v = qkv()
    keep = padding_keep(2, 5, [5, 3])
    spy = SpyKernel()
    npu_attention(q, k, v, keep, is_causal=True, kernel=spy)
    call = spy.calls[0]
    triangle = torch.ones(5, 5, dtype=torch.bool).tril()
    assert call["sparse_mode"] == 0
    assert torch.equal(call["atten_mask"], ~(keep & triangle).expand(2, 1, 5, 5))


def test_npu_glue_passes_a_float_bias_as_pse_divided_by_scale():
    q, k, v = qkv(heads=2, kv_heads=2)
    bias = torch.randn(1, 2, 5, 5)
    spy = SpyKernel()
    output, _ = npu_attention(q, k, v, bias, scaling=0.5, kernel=spy)
    call = spy.calls[0]
    torch.testing.assert_close(call["pse"], (bias / 0.5).expand(1, 2, 5, 5))  # kernel: scale·(QKᵀ + pse)
    assert "atten_mask" not in call
    torch.testing.assert_close(output, sdpa_truth(q, k, v, bias, scale=0.5), **TOLERANCE)


def test_npu_backend_without_torch_npu_says_why():
    q, k, v = qkv()
    try:
        import torch_npu  # noqa: F401

        pytest.skip("torch_npu is importable here; this checks the machines without it")
    except Exception:
        pass
    with pytest.raises(DeviceUnavailableError, match="needs torch_npu and an Ascend NPU"):
        npu_attention(q, k, v)


def test_bad_shapes_are_refused():
    q, k, v = qkv()
    with pytest.raises(InputError, match="share batch, heads and length"):
        npu_attention(q, k, v[:, :, :3], kernel=npu_fusion_attention_reference)
    with pytest.raises(InputError, match="bool mask"):
        npu_attention(q, k, v, torch.ones(5, 5, dtype=torch.int64), kernel=npu_fusion_attention_reference)
    with pytest.raises(InputError, match="must end in"):
        npu_attention(q, k, v, torch.ones(5, 4, dtype=torch.bool), kernel=npu_fusion_attention_reference)
    with pytest.raises(InputError, match="4-d"):
        npu_attention(q[0], k[0], v[0], kernel=npu_fusion_attention_reference)


def test_sdpa_is_the_fused_kernel_off_an_npu():
    q, k, v = qkv()
    assert npu.kernel_for(torch.device("cpu")) is None
    torch.testing.assert_close(_sdpa_path(q, k, v), sdpa_truth(q, k, v), **TOLERANCE)


# -------------------------------------------------------------- the reference follows the documented contract


def test_reference_scale_defaults_to_one_like_the_kernel():
    q, k, v = qkv()
    output, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD")
    torch.testing.assert_close(output, sdpa_truth(q, k, v, scale=1.0), **TOLERANCE)


@pytest.mark.parametrize("layout", ["BSND", "BSH", "SBH"])
def test_reference_layouts_agree_with_bnsd(layout):
    q, k, v = qkv(heads=4, kv_heads=2, q_len=3, k_len=6)

    def to_layout(x):
        if layout == "BSND":
            return x.transpose(1, 2)
        merged = x.transpose(1, 2).reshape(x.shape[0], x.shape[2], -1)  # (B, S, N·D)
        return merged if layout == "BSH" else merged.transpose(0, 1)

    bnsd, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD", scale=0.35)
    other, softmax_max, *_ = npu_fusion_attention_reference(
        to_layout(q), to_layout(k), to_layout(v), 4, layout, scale=0.35
    )
    torch.testing.assert_close(other, to_layout(bnsd), **TOLERANCE)
    assert softmax_max.shape == (2, 4, 3, 8)


def test_reference_masks_where_atten_mask_is_true():
    q, k, v = qkv(batch=1)
    masked_out = torch.zeros(5, 5, dtype=torch.bool)
    masked_out[:, 3:] = True
    output, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD", atten_mask=masked_out, scale=0.5)
    torch.testing.assert_close(output, sdpa_truth(q, k, v, ~masked_out, scale=0.5), **TOLERANCE)
    uint8_output, *_ = npu_fusion_attention_reference(
        q, k, v, 4, "BNSD", atten_mask=masked_out.to(torch.uint8), scale=0.5
    )
    torch.testing.assert_close(uint8_output, output, atol=0, rtol=0)


def test_reference_rejects_what_the_kernel_rejects():
    q, k, v = qkv()
    with pytest.raises(ValueError, match="bool or uint8"):
        npu_fusion_attention_reference(q, k, v, 4, "BNSD", atten_mask=torch.zeros(5, 5))
    with pytest.raises(ValueError, match="BNSS, B1SS, 11SS or SS"):
        npu_fusion_attention_reference(q, k, v, 4, "BNSD", atten_mask=torch.zeros(1, 4, 5, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="compressed 2048x2048"):
        npu_fusion_attention_reference(
            q, k, v, 4, "BNSD", atten_mask=torch.ones(5, 5, dtype=torch.bool).triu(1), sparse_mode=2
        )
    with pytest.raises(ValueError, match="head_num=3"):
        npu_fusion_attention_reference(q, k, v, 3, "BNSD")
    with pytest.raises(ValueError, match="multiple of the key/value head count"):
        npu_fusion_attention_reference(q, k[:, :3], v[:, :3], 4, "BNSD")
    with pytest.raises(ValueError, match="share one of"):
        npu_fusion_attention_reference(q.double(), k.double(), v.double(), 4, "BNSD")
    with pytest.raises(ValueError, match="pse shape"):
        npu_fusion_attention_reference(q, k, v, 4, "BNSD", pse=torch.zeros(2, 1, 5, 5))
    with pytest.raises(ValueError, match="not modelled"):
        npu_fusion_attention_reference(q, k, v, 4, "TND")


def test_reference_default_sparse_mode_applies_the_token_band():
    q, k, v = qkv(batch=1)
    no_mask = torch.zeros(5, 5, dtype=torch.bool)
    output, *_ = npu_fusion_attention_reference(
        q, k, v, 4, "BNSD", atten_mask=no_mask, scale=0.5, pre_tockens=1, next_tockens=0
    )
    band = torch.ones(5, 5, dtype=torch.bool).tril() & torch.ones(5, 5, dtype=torch.bool).triu(-1)
    torch.testing.assert_close(output, sdpa_truth(q, k, v, band, scale=0.5), **TOLERANCE)


# ------------------------------------------------------------------------------------ on a real Ascend NPU


def _npu_ready() -> bool:
    return next(status for status in device_statuses() if status.name == "npu").available


_NO_NPU = "needs torch_npu, CANN and an Ascend NPU; none on this machine, so the real kernel is untested here"


def requires_npu(test):
    """Mark a test as needing a real NPU (pytest -m npu selects them) and skip it, saying so, where there is none."""
    return pytest.mark.npu(pytest.mark.skipif(not _npu_ready(), reason=_NO_NPU)(test))


@requires_npu
@pytest.mark.parametrize("dtype, tolerance", [(torch.float32, 1e-4), (torch.float16, 5e-3), (torch.bfloat16, 3e-2)])
@pytest.mark.parametrize("case_name", MASK_CASES)
def test_real_npu_kernel_matches_the_reference(dtype, tolerance, case_name):
    q_len, k_len = lengths(case_name)
    q, k, v = qkv(heads=4, kv_heads=2, q_len=q_len, k_len=k_len, dim=64, dtype=dtype)
    mask, causal, alignment, _, _ = case(case_name, 2, 4, q_len, k_len)
    expected, expected_lse = _fused("eager", q, k, v, mask, causal, alignment)
    device = torch.device("npu", 0)
    on_npu = [t.to(device) for t in (q, k, v)]
    npu_mask = None if mask is None else mask.to(device)
    output, lse = npu_attention(*on_npu, npu_mask, is_causal=causal, causal_alignment=alignment)
    torch.testing.assert_close(output.cpu().float(), expected.float(), atol=tolerance, rtol=tolerance)
    finite = torch.isfinite(expected_lse)
    torch.testing.assert_close(lse.cpu()[finite], expected_lse[finite], atol=tolerance * 10, rtol=tolerance)


@requires_npu
def test_exact_weights_on_npu_match_cpu():
    q, k, v = qkv(heads=4, kv_heads=2, dtype=torch.float16)
    keep = padding_keep(2, 5, [5, 3])
    expected = attention_steps(q, k, v, keep, is_causal=True).weights
    device = torch.device("npu", 0)
    on_npu = attention_steps(q.to(device), k.to(device), v.to(device), keep.to(device), is_causal=True).weights
    assert on_npu.device.type == "npu" and on_npu.dtype is torch.float32
    torch.testing.assert_close(on_npu.cpu(), expected, atol=1e-5, rtol=1e-5)
