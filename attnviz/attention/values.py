"""Value norms (Kobayashi et al., 2020, "Attention is Not Only a Weight"): how much each key can move.

Head h of an attention layer adds Σ_j α_ij · f_h(x_j) to query i's output, where

    f_h(x_j) = (x_j W_V + b_V)^h · W_O^h      token j's value vector (bias included) through the head's slice of
                                               the output projection: its input columns h·d … (h+1)·d

so a weight on a key whose ‖f_h(x_j)‖ is tiny moves almost nothing. The attention call already holds the value
vectors (x W_V + b_V, split into heads); what it lacks is the output projection, which lives beside it in the module
tree under a name that differs per architecture. `output_projection` finds it, in one place; `value_norms` computes
‖f_h(x_j)‖ per (batch, head, key) in fp32, for all layers of a pass at once. The output projection's own bias is added
once after the heads are summed, so it belongs to no key and is left out, as in the paper.
"""

from __future__ import annotations

import weakref

import torch

from attnviz.attention.math import expand_kv_heads

# The output projection's attribute name on the attention module: Llama/Qwen/Mistral (o_proj), BART/Marian (out_proj),
# T5 (o), GPT-2 (c_proj, a Conv1D), ALBERT and GPT-NeoX (dense), DistilBERT (out_lin).
OWN_NAMES = ("o_proj", "out_proj", "o", "c_proj", "dense", "out_lin")
# BERT, RoBERTa, XLM-R, ELECTRA: the attention call is made by `attention.self`; the projection is `attention.output.dense`.
PARENT_PATHS = (("output", "dense"),)

_FOUND: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # attention module -> (projection or None,)


def output_projection(module: torch.nn.Module, modules: dict[str, torch.nn.Module], path: str | None):
    """The attention module's output projection (a Linear or GPT-2's Conv1D), or None when attnviz does not know
    where this architecture keeps it. `modules` maps the model's module paths to modules, `path` is this one's."""
    found = _FOUND.get(module)
    if found is None:
        found = _FOUND[module] = (_find(module, modules, path),)
    return found[0]


def _find(module, modules, path):
    for name in OWN_NAMES:
        candidate = getattr(module, name, None)
        if isinstance(candidate, torch.nn.Module) and projection_weight(candidate) is not None:
            return candidate
    if path is None or "." not in path:
        return None
    parent = path.rsplit(".", 1)[0]
    for steps in PARENT_PATHS:
        candidate = modules.get(".".join((parent, *steps)))
        if candidate is not None and projection_weight(candidate) is not None:
            return candidate
    return None


def projection_weight(projection) -> torch.Tensor | None:
    """The projection's weight as (hidden out, heads·d in): a Linear stores it so, a Conv1D transposed."""
    if _adapted(projection):
        return None
    weight = getattr(projection, "weight", None)
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        return None
    return weight.t() if type(projection).__name__ == "Conv1D" else weight


def _adapted(projection) -> bool:
    """Whether the projection is a PEFT adapter layer (LoRA …) whose adapters are active and not merged: its `weight`
    is then the base layer's alone, not what the layer applies, so it gives no norms rather than wrong ones."""
    if getattr(projection, "base_layer", None) is None:
        return False
    return not getattr(projection, "merged", False) and not getattr(projection, "disable_adapters", False)


@torch.no_grad()  # computed after the forward pass
def value_norms(calls: list[tuple[torch.Tensor, object, int]]) -> torch.Tensor | None:
    """‖f_h(x_j)‖ of a pass's attention calls, one (value states (batch, kv_heads, keys, d), the module's output
    projection, heads) each: float32 (calls, batch, heads, keys); None where a projection's input is not heads·d wide
    (not that layer's output) or the calls' shapes differ.

    f = v · W_O^hᵀ with W_O^h (hidden, d) = Q·R (QR, Q's columns orthonormal), so ‖f‖ = ‖v · Rᵀ‖: a (d, d) factor
    per head, made once per projection, turns the push through (hidden × d) into a (d × d) product — no squaring
    (the Gram matrix RᵀR would square the rounding error too). The calls go through one batched product (the same
    per-head products, one dispatch for all layers); calls on several devices (a model split over them), one each."""
    if not calls or len({(value.shape, heads) for value, _, heads in calls}) != 1:
        return None
    factors = [_factor(projection, heads, value.shape[-1], value.device) for value, projection, heads in calls]
    if any(factor is None for factor in factors):
        return None
    heads = calls[0][2]
    if len({(value.dtype, value.device) for value, _, _ in calls}) != 1:
        return torch.cat(
            [_batched_norms([value], [factor], heads).cpu() for (value, _, _), factor in zip(calls, factors)]
        )
    return _batched_norms([value for value, _, _ in calls], factors, heads)


def _batched_norms(values: list[torch.Tensor], factors: list[torch.Tensor], heads: int) -> torch.Tensor:
    """(calls, b, heads, k) ‖v · Rᵀ‖ of same-shaped value states (b, kv_heads, k, d) and their (heads, d, d) factors."""
    stacked = expand_kv_heads(torch.stack(values), heads).to(torch.float32)  # (calls, b, heads, k, d)
    return torch.linalg.vector_norm(torch.matmul(stacked, _stacked_factors(factors)), dim=-1)  # (calls, b, heads, k)


_STACKED: dict[tuple[int, ...], tuple[tuple[torch.Tensor, ...], torch.Tensor]] = {}  # factor ids -> (factors, stack)


def _stacked_factors(factors: list[torch.Tensor]) -> torch.Tensor:
    """(calls, 1, heads, d, d): the factors stacked once per set of layers (every capture of a model reuses it)."""
    key = tuple(id(factor) for factor in factors)
    kept = _STACKED.get(key)
    if kept is not None and all(a is b for a, b in zip(kept[0], factors)):
        return kept[1]
    if len(_STACKED) > 16:  # factors of other models, or of weights since changed
        _STACKED.clear()
    stacked = torch.stack(factors).unsqueeze(1)  # (calls, 1, heads, d, d)
    _STACKED[key] = (tuple(factors), stacked)
    return stacked


_FACTORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # projection -> (weight version, device, heads, Rᵀ)


def _factor(projection, heads: int, head_dim: int, device: torch.device) -> torch.Tensor | None:
    """(heads, d, d) float32 Rᵀ of each head's slice W_O^h = Q·R, kept while the projection's weight is unchanged."""
    weight = projection_weight(projection)
    if weight is None or weight.shape[1] != heads * head_dim:
        return None
    # An offloaded weight (accelerate: meta between calls, read from CPU or disk while its module runs) does not
    # change between loads; an inference tensor keeps no version counter.
    offloaded = weight.is_meta
    version = "offloaded" if offloaded else (weight.data_ptr(), None if weight.is_inference() else weight._version)
    kept = _FACTORS.get(projection)
    if kept is not None and kept[:3] == (version, device, heads):
        return kept[3]
    if offloaded:
        weight = _loaded_weight(projection)
    per_head = weight.detach().to(device="cpu", dtype=torch.float64).reshape(weight.shape[0], heads, head_dim)
    upper = torch.linalg.qr(per_head.permute(1, 0, 2), mode="r").R  # (heads, d, d): W_O^h = Q·R, in float64
    factor = upper.transpose(1, 2).to(device=device, dtype=torch.float32).contiguous()  # (heads, d, d)
    _FACTORS[projection] = (version, device, heads, factor)
    return factor


def _loaded_weight(projection) -> torch.Tensor:
    """An offloaded projection's weight, loaded by its accelerate hook for the moment it is read (a copy on the CPU)."""
    from accelerate.utils import align_module_device

    with align_module_device(projection, torch.device("cpu")):
        return projection_weight(projection).detach().to("cpu", copy=True)
