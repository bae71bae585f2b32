"""The fused-attention adapter, checked on CPU against SDPA and a reference of npu_fusion_attention's documented
contract.

The "npu" backend's glue (mask inversion, explicit scale, causal sparse modes, GQA, pse, LSE from softmax_max/sum) is
exercised with `npu_fusion_attention_reference` injected as the kernel. Tests at the bottom use the real kernel and
are skipped on machines without torch_npu and an Ascend NPU.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.errors import DeviceUnavailableError, InputError
from attnviz.fused_attention import (
    NPU_COMPRESSED_MASK_SIZE,
    dtype_policy,
    fused_attention,
    lse_from_softmax_stats,
    lse_probabilities,
    npu_fusion_attention_reference,
    probabilities_exact,
)

TOLERANCE = dict(atol=1e-5, rtol=1e-5)


def _qkv(batch=2, heads=4, kv_heads=4, q_len=5, k_len=5, dim=8, seed=0, dtype=torch.float32):
    generator = torch.Generator().manual_seed(seed)
    q = torch.randn(batch, heads, q_len, dim, generator=generator).to(dtype)
    k = torch.randn(batch, kv_heads, k_len, dim, generator=generator).to(dtype)
    v = torch.randn(batch, kv_heads, k_len, dim, generator=generator).to(dtype)
    return q, k, v


def _padding_keep(batch, k_len, lengths):
    keep = torch.zeros(batch, 1, 1, k_len, dtype=torch.bool)  # (B, 1, 1, Skv), HF-style key padding
    for row, length in enumerate(lengths):
        keep[row, ..., :length] = True
    return keep


def _sdpa_truth(q, k, v, mask=None, is_causal=False, scale=None):
    """torch's own SDPA, with GQA expanded by hand so it does not depend on enable_gqa."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal, scale=scale)


def _explicit_probabilities(q, k, keep=None, bias=None, scale=None):
    """softmax(q·kᵀ·scale + bias) with masked cells forced to 0, written out independently of the module."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = (q.double() @ k.double().transpose(-1, -2)) * scale
    if bias is not None:
        scores = scores + bias.double()
    if keep is not None:
        scores = scores.masked_fill(~keep, float("-inf"))
    return torch.softmax(scores, dim=-1).nan_to_num(0.0).float()


class SpyKernel:
    """The reference kernel, recording the keyword arguments the glue passed."""

    def __init__(self):
        self.calls = []

    def __call__(self, query, key, value, **kwargs):
        self.calls.append({"query": query, "key": key, "value": value, **kwargs})
        return npu_fusion_attention_reference(query, key, value, **kwargs)


# ----------------------------------------------------------------------------------------------- dtype policy


def test_dtype_policy_is_float32_by_default_everywhere():
    for device in ("cpu", "cuda", "cuda:1", "mps", "npu", "npu:3", torch.device("cpu")):
        assert dtype_policy(device) is torch.float32


@pytest.mark.parametrize("device", ["npu", "npu:0", "cuda"])
@pytest.mark.parametrize(
    "name, dtype", [("fp16", torch.float16), ("bfloat16", torch.bfloat16), (torch.float16, torch.float16)]
)
def test_dtype_policy_allows_half_precision_on_npu_and_cuda(device, name, dtype):
    assert dtype_policy(device, name) is dtype


@pytest.mark.parametrize("requested", ["float16", "bf16", torch.bfloat16])
def test_dtype_policy_refuses_half_precision_on_cpu_with_a_sentence(requested):
    with pytest.raises(InputError, match="not allowed on cpu"):
        dtype_policy("cpu", requested)


def test_dtype_policy_rejects_unknown_names():
    with pytest.raises(InputError, match="Unknown dtype"):
        dtype_policy("npu", "int8")
    with pytest.raises(InputError, match="No dtype policy"):
        dtype_policy("tpu")


# ---------------------------------------------------------------------------------------- exact probabilities


def test_probabilities_exact_match_the_formula_and_rows_sum_to_one():
    q, k, _ = _qkv()
    keep = _padding_keep(2, 5, [5, 3])
    probabilities = probabilities_exact(q, k, keep)
    assert probabilities.dtype is torch.float32 and probabilities.shape == (2, 4, 5, 5)
    torch.testing.assert_close(probabilities, _explicit_probabilities(q, k, keep), **TOLERANCE)
    torch.testing.assert_close(probabilities.sum(-1), torch.ones(2, 4, 5))
    assert torch.all(probabilities[1, :, :, 3:] == 0)  # padded keys: exactly zero, not merely small


def test_probabilities_exact_are_float32_from_half_inputs():
    q, k, _ = _qkv(dtype=torch.bfloat16)
    probabilities = probabilities_exact(q, k, is_causal=True)
    assert probabilities.dtype is torch.float32
    # computed from the bf16 values themselves, exactly as in float32
    torch.testing.assert_close(probabilities, probabilities_exact(q.float(), k.float(), is_causal=True), atol=0, rtol=0)
    assert torch.all(probabilities.triu(diagonal=1) == 0)


def test_probabilities_exact_for_chosen_heads_equal_the_same_heads_of_all():
    q, k, _ = _qkv(heads=6, kv_heads=2)  # GQA: query heads 0-2 read kv head 0, 3-5 kv head 1
    mask = torch.randn(1, 6, 5, 5)  # a per-head additive bias, as T5's position bias is
    every_head = probabilities_exact(q, k, mask)
    chosen = probabilities_exact(q, k, mask, heads=[5, 0, 3])
    torch.testing.assert_close(chosen, every_head[:, [5, 0, 3]], atol=0, rtol=0)
    torch.testing.assert_close(every_head, _explicit_probabilities(q, k, bias=mask), **TOLERANCE)


def test_probabilities_exact_treat_finfo_min_masks_as_masked_and_empty_rows_as_zero():
    q, k, _ = _qkv(batch=1, heads=2, kv_heads=2, q_len=3, k_len=3)
    additive = torch.zeros(1, 1, 3, 3)
    additive[..., 2] = torch.finfo(torch.float32).min  # what Transformers builds instead of -inf
    additive[..., 1, :] = float("-inf")  # a query row that may look at nothing
    probabilities = probabilities_exact(q, k, additive)
    assert torch.all(probabilities[..., 2] == 0)
    assert torch.all(probabilities[..., 1, :] == 0)
    torch.testing.assert_close(probabilities[..., [0, 2], :].sum(-1), torch.ones(1, 2, 2))


def test_probabilities_exact_refuse_bad_heads_and_shapes():
    q, k, _ = _qkv()
    with pytest.raises(InputError, match="do not exist"):
        probabilities_exact(q, k, heads=[4])
    with pytest.raises(InputError, match="multiple"):
        probabilities_exact(q, k[:, :3])
    with pytest.raises(InputError, match="must end in"):
        probabilities_exact(q, k, torch.ones(5, 4, dtype=torch.bool))
    with pytest.raises(InputError, match="4-d"):
        probabilities_exact(q[0], k[0])


# ------------------------------------------------------------------------------- backends agree with SDPA

MASK_CASES = ["none", "padding", "square_bool", "bias_with_inf", "causal", "causal_padding", "causal_bottom_right"]


def _case(name, batch, heads, q_len, k_len):
    """(attention_mask, is_causal, alignment, sdpa_mask, sdpa_is_causal) for one scenario."""
    generator = torch.Generator().manual_seed(7)
    if name == "none":
        return None, False, "top_left", None, False
    if name == "padding":
        keep = _padding_keep(batch, k_len, [k_len, k_len - 2])
        return keep, False, "top_left", keep, False
    if name == "square_bool":
        keep = torch.rand(q_len, k_len, generator=generator) > 0.3
        keep[:, 0] = True
        return keep, False, "top_left", keep, False
    if name == "bias_with_inf":
        bias = torch.randn(batch, heads, q_len, k_len, generator=generator)
        bias[..., -1] = float("-inf")
        return bias, False, "top_left", bias, False
    triangle = torch.ones(q_len, k_len, dtype=torch.bool).tril(k_len - q_len if name.endswith("bottom_right") else 0)
    if name == "causal":
        return None, True, "top_left", None, True
    if name == "causal_padding":
        keep = _padding_keep(batch, k_len, [k_len, k_len - 1])
        return keep, True, "top_left", keep & triangle, False
    return None, True, "bottom_right", triangle, False


@pytest.mark.parametrize("backend", ["sdpa", "reference", "npu"])
@pytest.mark.parametrize("case", MASK_CASES)
@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_every_backend_equals_torch_sdpa(backend, case, kv_heads):
    q_len, k_len = (4, 6) if case == "causal_bottom_right" else (5, 5)
    q, k, v = _qkv(heads=4, kv_heads=kv_heads, q_len=q_len, k_len=k_len)
    mask, causal, alignment, sdpa_mask, sdpa_causal = _case(case, 2, 4, q_len, k_len)
    kernel = npu_fusion_attention_reference if backend == "npu" else None
    output = fused_attention(
        q, k, v, attention_mask=mask, is_causal=causal, causal_alignment=alignment, backend=backend, npu_kernel=kernel
    )
    torch.testing.assert_close(output, _sdpa_truth(q, k, v, sdpa_mask, sdpa_causal), **TOLERANCE)


@pytest.mark.parametrize("backend", ["sdpa", "reference", "npu"])
@pytest.mark.parametrize("case", MASK_CASES)
def test_lse_rebuilds_the_exact_probabilities(backend, case):
    q_len, k_len = (4, 6) if case == "causal_bottom_right" else (5, 5)
    q, k, v = _qkv(heads=4, kv_heads=2, q_len=q_len, k_len=k_len)
    mask, causal, alignment, _, _ = _case(case, 2, 4, q_len, k_len)
    kernel = npu_fusion_attention_reference if backend == "npu" else None
    _, lse = fused_attention(
        q, k, v, attention_mask=mask, is_causal=causal, causal_alignment=alignment, backend=backend,
        return_lse=True, npu_kernel=kernel,
    )
    assert lse.shape == (2, 4, q_len) and lse.dtype is torch.float32
    rebuilt = lse_probabilities(q, k, lse, attention_mask=mask, is_causal=causal, causal_alignment=alignment)
    exact = probabilities_exact(q, k, mask, is_causal=causal, causal_alignment=alignment)
    torch.testing.assert_close(rebuilt, exact, **TOLERANCE)


def test_lse_from_the_kernels_softmax_max_and_sum():
    q, k, v = _qkv(heads=4, kv_heads=2)
    scale = 0.3
    _, softmax_max, softmax_sum, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD", scale=scale)
    assert softmax_max.shape == softmax_sum.shape == (2, 4, 5, 8)
    assert softmax_max.dtype is softmax_sum.dtype is torch.float32
    rebuilt = lse_probabilities(q, k, (softmax_max, softmax_sum), scale=scale)
    torch.testing.assert_close(rebuilt, probabilities_exact(q, k, scale=scale), **TOLERANCE)
    expected_lse = torch.logsumexp((q @ k.repeat_interleave(2, dim=1).transpose(-1, -2)) * scale, dim=-1)
    torch.testing.assert_close(lse_from_softmax_stats(softmax_max, softmax_sum), expected_lse, **TOLERANCE)


def test_rows_with_nothing_to_attend_to_give_zero_output_everywhere():
    q, k, v = _qkv(batch=1, heads=2, kv_heads=2, q_len=3, k_len=3)
    keep = torch.ones(3, 3, dtype=torch.bool)
    keep[1] = False
    for backend in ("sdpa", "reference", "npu"):
        output, lse = fused_attention(
            q, k, v, attention_mask=keep, backend=backend, return_lse=True, npu_kernel=npu_fusion_attention_reference
        )
        assert torch.all(output[:, :, 1] == 0), backend
        assert torch.all(torch.isneginf(lse[:, :, 1])), backend
        assert torch.isfinite(output).all(), backend
        assert torch.all(lse_probabilities(q, k, lse, attention_mask=keep)[:, :, 1] == 0), backend


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
    q, k, v = _qkv(batch, heads, kv_heads, q_len, k_len, dim, seed)
    keep = _padding_keep(batch, k_len, [max(1, k_len - row) for row in range(batch)]) if padded else None
    sdpa = fused_attention(q, k, v, attention_mask=keep, is_causal=causal, backend="sdpa")
    npu = fused_attention(
        q, k, v, attention_mask=keep, is_causal=causal, backend="npu", npu_kernel=npu_fusion_attention_reference
    )
    torch.testing.assert_close(npu, sdpa, **TOLERANCE)


# ----------------------------------------------------------------------- what the glue hands the npu kernel


def test_npu_glue_passes_scale_explicitly_layout_bnsd_and_kv_heads_unexpanded():
    q, k, v = _qkv(heads=4, kv_heads=2, dim=16)
    spy = SpyKernel()
    fused_attention(q, k, v, backend="npu", npu_kernel=spy)
    call = spy.calls[0]
    assert call["scale"] == pytest.approx(1 / 4)  # 1/sqrt(16), never the kernel's default 1.0
    assert call["input_layout"] == "BNSD" and call["head_num"] == 4
    assert call["key"].shape[1] == 2 and call["value"].shape[1] == 2  # GQA handed to the kernel natively
    assert "atten_mask" not in call and call["sparse_mode"] == 0


def test_npu_glue_inverts_boolean_masks_and_uses_a_kernel_layout():
    q, k, v = _qkv()
    keep = _padding_keep(2, 5, [5, 2])  # (B, 1, 1, Skv): not a layout the kernel accepts as is
    spy = SpyKernel()
    fused_attention(q, k, v, attention_mask=keep, backend="npu", npu_kernel=spy)
    atten_mask = spy.calls[0]["atten_mask"]
    assert atten_mask.dtype is torch.bool and atten_mask.shape == (2, 1, 5, 5)  # B1SS
    assert torch.equal(atten_mask, ~keep.expand(2, 1, 5, 5))  # True = masked out
    assert spy.calls[0]["sparse_mode"] == 0


@pytest.mark.parametrize("alignment, sparse_mode", [("top_left", 2), ("bottom_right", 3)])
def test_npu_glue_uses_the_causal_sparse_modes_with_the_compressed_mask(alignment, sparse_mode):
    q, k, v = _qkv(q_len=3, k_len=7)
    spy = SpyKernel()
    output = fused_attention(q, k, v, is_causal=True, causal_alignment=alignment, backend="npu", npu_kernel=spy)
    call = spy.calls[0]
    assert call["sparse_mode"] == sparse_mode
    size = NPU_COMPRESSED_MASK_SIZE
    assert torch.equal(call["atten_mask"], torch.ones(size, size, dtype=torch.bool).triu(1))
    triangle = torch.ones(3, 7, dtype=torch.bool).tril(0 if alignment == "top_left" else 4)
    torch.testing.assert_close(output, _sdpa_truth(q, k, v, triangle), **TOLERANCE)


def test_npu_glue_folds_causal_and_padding_into_one_full_mask():
    q, k, v = _qkv()
    keep = _padding_keep(2, 5, [5, 3])
    spy = SpyKernel()
    fused_attention(q, k, v, attention_mask=keep, is_causal=True, backend="npu", npu_kernel=spy)
    call = spy.calls[0]
    triangle = torch.ones(5, 5, dtype=torch.bool).tril()
    assert call["sparse_mode"] == 0
    assert torch.equal(call["atten_mask"], ~(keep & triangle).expand(2, 1, 5, 5))


def test_npu_glue_passes_a_float_bias_as_pse_divided_by_scale():
    q, k, v = _qkv(heads=2, kv_heads=2)
    bias = torch.randn(1, 2, 5, 5)
    spy = SpyKernel()
    output = fused_attention(q, k, v, attention_mask=bias, scale=0.5, backend="npu", npu_kernel=spy)
    call = spy.calls[0]
    torch.testing.assert_close(call["pse"], (bias / 0.5).expand(1, 2, 5, 5))  # kernel: scale·(QKᵀ + pse)
    assert "atten_mask" not in call
    torch.testing.assert_close(output, _sdpa_truth(q, k, v, bias, scale=0.5), **TOLERANCE)


def test_npu_backend_without_torch_npu_says_why():
    q, k, v = _qkv()
    try:
        import torch_npu  # noqa: F401

        pytest.skip("torch_npu is importable here; this checks the machines without it")
    except Exception:
        pass
    with pytest.raises(DeviceUnavailableError, match="needs torch_npu and an Ascend NPU"):
        fused_attention(q, k, v, backend="npu")


def test_unknown_backend_and_bad_shapes_are_refused():
    q, k, v = _qkv()
    with pytest.raises(InputError, match="Unknown attention backend"):
        fused_attention(q, k, v, backend="flash")
    with pytest.raises(InputError, match="share batch, heads and length"):
        fused_attention(q, k, v[:, :, :3])
    with pytest.raises(InputError, match="bool mask"):
        fused_attention(q, k, v, attention_mask=torch.ones(5, 5, dtype=torch.int64))


def test_auto_uses_sdpa_off_npu():
    q, k, v = _qkv()
    torch.testing.assert_close(fused_attention(q, k, v), _sdpa_truth(q, k, v), **TOLERANCE)


def test_half_precision_inputs_keep_their_dtype():
    q, k, v = _qkv(dtype=torch.bfloat16)
    for backend in ("sdpa", "reference", "npu"):
        output = fused_attention(q, k, v, backend=backend, npu_kernel=npu_fusion_attention_reference)
        assert output.dtype is torch.bfloat16
        torch.testing.assert_close(output.float(), _sdpa_truth(q.float(), k.float(), v.float()), atol=2e-2, rtol=2e-2)


# -------------------------------------------------------------- the reference follows the documented contract


def test_reference_scale_defaults_to_one_like_the_kernel():
    q, k, v = _qkv()
    output, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD")
    torch.testing.assert_close(output, _sdpa_truth(q, k, v, scale=1.0), **TOLERANCE)


@pytest.mark.parametrize("layout", ["BSND", "BSH", "SBH"])
def test_reference_layouts_agree_with_bnsd(layout):
    q, k, v = _qkv(heads=4, kv_heads=2, q_len=3, k_len=6)

    def to_layout(x):
        if layout == "BSND":
            return x.transpose(1, 2)
        merged = x.transpose(1, 2).reshape(x.shape[0], x.shape[2], -1)  # (B, S, N·D)
        return merged if layout == "BSH" else merged.transpose(0, 1)

    bnsd, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD", scale=0.35)
    other, softmax_max, *_ = npu_fusion_attention_reference(to_layout(q), to_layout(k), to_layout(v), 4, layout,
                                                             scale=0.35)
    torch.testing.assert_close(other, to_layout(bnsd), **TOLERANCE)
    assert softmax_max.shape == (2, 4, 3, 8)


def test_reference_masks_where_atten_mask_is_true():
    q, k, v = _qkv(batch=1)
    masked_out = torch.zeros(5, 5, dtype=torch.bool)
    masked_out[:, 3:] = True
    output, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD", atten_mask=masked_out, scale=0.5)
    torch.testing.assert_close(output, _sdpa_truth(q, k, v, ~masked_out, scale=0.5), **TOLERANCE)
    uint8_output, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD", atten_mask=masked_out.to(torch.uint8),
                                                      scale=0.5)
    torch.testing.assert_close(uint8_output, output, atol=0, rtol=0)


def test_reference_rejects_what_the_kernel_rejects():
    q, k, v = _qkv()
    with pytest.raises(ValueError, match="bool or uint8"):
        npu_fusion_attention_reference(q, k, v, 4, "BNSD", atten_mask=torch.zeros(5, 5))
    with pytest.raises(ValueError, match="BNSS, B1SS, 11SS or SS"):
        npu_fusion_attention_reference(q, k, v, 4, "BNSD", atten_mask=torch.zeros(1, 4, 5, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="compressed 2048x2048"):
        npu_fusion_attention_reference(q, k, v, 4, "BNSD", atten_mask=torch.ones(5, 5, dtype=torch.bool).triu(1),
                                       sparse_mode=2)
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
    q, k, v = _qkv(batch=1)
    no_mask = torch.zeros(5, 5, dtype=torch.bool)
    output, *_ = npu_fusion_attention_reference(q, k, v, 4, "BNSD", atten_mask=no_mask, scale=0.5,
                                                pre_tockens=1, next_tockens=0)
    band = torch.ones(5, 5, dtype=torch.bool).tril() & torch.ones(5, 5, dtype=torch.bool).triu(-1)
    torch.testing.assert_close(output, _sdpa_truth(q, k, v, band, scale=0.5), **TOLERANCE)


# ------------------------------------------------------------------------------------ on a real Ascend NPU


def _npu_ready() -> bool:
    from attnviz.devices import device_statuses

    return next(status for status in device_statuses() if status.name == "npu").available


_NO_NPU = "needs torch_npu, CANN and an Ascend NPU; none on this machine, so the real kernel is untested here"


def requires_npu(test):
    """Mark a test as needing a real NPU (pytest -m npu selects them) and skip it, saying so, where there is none."""
    return pytest.mark.npu(pytest.mark.skipif(not _npu_ready(), reason=_NO_NPU)(test))


@requires_npu
@pytest.mark.parametrize("dtype, tolerance", [(torch.float32, 1e-4), (torch.float16, 5e-3), (torch.bfloat16, 3e-2)])
@pytest.mark.parametrize("case", MASK_CASES)
def test_real_npu_kernel_matches_the_reference(dtype, tolerance, case):
    q_len, k_len = (4, 6) if case == "causal_bottom_right" else (5, 5)
    q, k, v = _qkv(heads=4, kv_heads=2, q_len=q_len, k_len=k_len, dim=64, dtype=dtype)
    mask, causal, alignment, _, _ = _case(case, 2, 4, q_len, k_len)
    expected, expected_lse = fused_attention(
        q, k, v, attention_mask=mask, is_causal=causal, causal_alignment=alignment, backend="reference",
        return_lse=True,
    )
    device = torch.device("npu", 0)
    on_npu = [t.to(device) for t in (q, k, v)]
    npu_mask = None if mask is None else mask.to(device)
    output, lse = fused_attention(
        *on_npu, attention_mask=npu_mask, is_causal=causal, causal_alignment=alignment, backend="npu",
        return_lse=True,
    )
    torch.testing.assert_close(output.cpu().float(), expected.float(), atol=tolerance, rtol=tolerance)
    finite = torch.isfinite(expected_lse)
    torch.testing.assert_close(lse.cpu()[finite], expected_lse[finite], atol=tolerance * 10, rtol=tolerance)


@requires_npu
def test_probabilities_exact_on_npu_match_cpu():
    q, k, _ = _qkv(heads=4, kv_heads=2, dtype=torch.float16)
    keep = _padding_keep(2, 5, [5, 3])
    expected = probabilities_exact(q, k, keep, is_causal=True)
    device = torch.device("npu", 0)
    on_npu = probabilities_exact(q.to(device), k.to(device), keep.to(device), is_causal=True)
    assert on_npu.device.type == "npu" and on_npu.dtype is torch.float32
    torch.testing.assert_close(on_npu.cpu(), expected, atol=1e-5, rtol=1e-5)
