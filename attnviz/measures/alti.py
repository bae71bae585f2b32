"""ALTI: how much each input token makes up each output of an attention block, from the block's exact decomposition.

Ferrando, Gállego and Costa-jussà, EMNLP 2022, "Measuring the Mixing of Contextual Information in the Transformer"
(arXiv 2203.04212); through a translator's decoder as ALTI+ (Ferrando, Gállego, Alastruey, Escolano and
Costa-jussà, EMNLP 2022, "Towards Opening the Black Box of Neural Machine Translation", arXiv 2205.11631), with
rollout in `composition`.

With the layer norm's scale σ_i fixed by the real pass, a block's output (`blocks`) is one term per input token plus
a bias:

    y_i = Σ_j T_i(x_j) + b_i
    pre-LN:   T_i(x_j) = Σ_h α^h_ij · v^h_j W_O^h + [j = i] · x_i            b_i = b_O
    post-LN:  T_i(x_j) = L_i(Σ_h α^h_ij · v^h_j W_O^h + [j = i] · x_i)       b_i = L_i(b_O) + β
              L_i(u) = γ ⊙ (u − mean(u)) / σ_i,   σ_i = √(var(u_i) + ε) of the norm's real input u_i

v^h_j is token j's value vector as the pass computed it: x_j W_V + b_V, or in pre-LN LN(x_j) W_V + b_V (the norm
applied to x_j first). The value bias goes with its token, as in the paper and its code (it is weighted by α_ij).
In a cross-attention block the j run over the encoder's outputs and the residual x_i is one more term. Then

    c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁),   each row divided by its sum.

Every block is checked against the pass before it is decomposed (x + Attn(x) against the norm's real input in
post-LN, Attn(x) against the attention's real output in pre-LN): one that does not add up is refused with a
sentence, never shown as something it is not.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np
import torch

from attnviz.attention.batching import Batch, prepare_batch, run_batch
from attnviz.attention.capture import example_capture
from attnviz.attention.recorder import Layer, state_of
from attnviz.attention.values import projection_weight
from attnviz.errors import InputError
from attnviz.measures.block_parts import Block, BlockRecorder, BlockTensors, find_blocks, watching
from attnviz.measures.composition import rollout, row_normalised, translation_rollout
from attnviz.measures.results import Contributions, TranslationShares
from attnviz.model.load import ModelHandle
from attnviz.provenance import build_provenance
from attnviz.types import AttentionCapture, Deferred

METHODS = ("alti", "alti-rollout")
PAPERS = {
    "alti": "Ferrando et al., EMNLP 2022, Measuring the Mixing of Contextual Information in the Transformer",
    "alti+": "Ferrando et al., EMNLP 2022, Towards Opening the Black Box of Neural Machine Translation",
}
ARXIV = {"alti": "2203.04212", "alti+": "2205.11631"}
CELLS_PER_CHUNK = 1 << 22  # terms held at once: queries × keys × hidden (16 MB of float32)


@dataclass(frozen=True)
class BlockPass:
    """One call of one block as the pass left it (its one example), in float32 on the model's device."""

    block: Block
    weights: torch.Tensor  # (heads, q, k)
    values: torch.Tensor  # (heads, k, d): v^h_j, bias included
    residual: torch.Tensor  # (q, hidden): x_i
    norm_in: torch.Tensor  # (q, hidden): the norm's real input
    attention_out: torch.Tensor  # (q, hidden): the attention module's real output (pre-LN: after W_O)
    cross: bool  # the keys are the encoder's outputs; the residual is one more term

    @property
    def post(self) -> bool:
        return self.block.placement == "post"

    @cached_property
    def head_outputs(self) -> torch.Tensor:
        """(heads, k, hidden): f^h_j = v^h_j · W_O^h, each key's value vector through its head's slice of W_O;
        in post-LN centred and scaled by the norm's γ (the part of L_i that is the same for every row), once."""
        heads, _keys, width = self.values.shape
        weight = projection_weight(self.block.projection).to(self.values)  # (hidden, heads·d)
        per_head = weight.reshape(weight.shape[0], heads, width).permute(1, 2, 0)  # (heads, d, hidden)
        outputs = torch.matmul(self.values, per_head)  # (heads, k, hidden)
        return _centred(outputs) * _gamma(self.block.norm, outputs) if self.post else outputs


def alti(
    handle: ModelHandle, text: str, target: str | None = None, *, method: str = "alti", truncate: bool = False
) -> Contributions:
    """ALTI of every attention block of the model on `text` (an encoder-decoder model force-decodes `target`):
    one map per stack in the layout of `capture`'s, float32 (layers, 1, queries, keys), rows summing to 1.

    method "alti": each layer's own contributions; "alti-rollout": rolled out from the input tokens (ALTI+ through
    a translator's decoder). A translation also gets `shares`, the source and target-prefix shares of ALTI+.
    An architecture attnviz cannot decompose raises InputError."""
    return alti_methods(handle, text, target, methods=(method,), truncate=truncate)[method]


def _check_weights_held(handle: ModelHandle) -> None:
    """ALTI reads each block's weights itself (the value and output projections, the norms): an InputError, before
    anything runs, for a model whose weights are offloaded (accelerate keeps them on the meta device and loads each
    layer only inside its own forward)."""
    offloaded = next((name for name, weight in handle.model.named_parameters() if weight.device.type == "meta"), None)
    if offloaded is not None:
        raise InputError("alti_offloaded_weights", model=handle.name, parameter=offloaded)


def alti_methods(
    handle: ModelHandle,
    text: str,
    target: str | None = None,
    *,
    methods: tuple[str, ...] = METHODS,
    truncate: bool = False,
) -> dict[str, Contributions]:
    """`alti` for each of `methods` (name -> its result) from one decomposition: the model runs once."""
    for method in methods:
        if method not in METHODS:
            raise InputError("alti_method_unknown", method=method, methods=", ".join(METHODS))
    _check_weights_held(handle)
    batch = prepare_batch(handle, [text], None if target is None else [target], truncate)
    recorder, passes = block_passes(handle, batch)
    matrices = {role: np.stack([layer_contributions(step) for step in steps]) for role, steps in passes.items()}
    # role -> (layers, q, k), a cross-attention's keys followed by its residual
    names = {role: recorder.layer_names(calls) for role, calls in recorder.layers_by_role(handle.is_seq2seq).items()}
    return {method: _result(handle, batch, matrices, names, method, truncate) for method in methods}


def _result(handle: ModelHandle, batch: Batch, matrices: dict, names: dict, method: str, truncate: bool):
    """The `Contributions` of `method` from each role's layer contributions."""
    maps, residual, shares = _compose(matrices, method)
    provenance = build_provenance(handle, "", options={"mode": "full", "truncate": truncate})
    provenance["measure"] = _measure(method, shares is not None)
    stacked = {kind: weights[:, None, None] for kind, weights in maps.items()}  # (layers, batch 1, heads 1, q, k)
    no_norms = {kind: Deferred(lambda: None) for kind in maps}
    made = example_capture(handle, batch, stacked, no_norms, names, 0, provenance)
    meta = {} if shares is None else {"source_share": shares.source_share, "target_share": shares.target_share}
    kept = {field.name: getattr(made, field.name) for field in fields(AttentionCapture)}
    return Contributions(**{**kept, "meta": meta}, method=method, cross_residual=residual, shares=shares)


def _measure(method: str, translation: bool) -> dict:
    """The provenance of a contribution measure: its name and papers."""
    papers = ["alti", "alti+"] if translation else ["alti"]
    return {"name": method, "papers": [PAPERS[paper] for paper in papers], "arxiv": [ARXIV[paper] for paper in papers]}


def _compose(matrices: dict[str, np.ndarray], method: str):
    """(maps: kind -> (layers, q, k) rows summing to 1, the cross blocks' residual shares or None, ALTI+ shares or
    None) from each role's layer contributions."""
    rolled = method == "alti-rollout"
    maps = {role: rollout(layers) if rolled else layers for role, layers in matrices.items() if role != "cross"}
    if "cross" not in matrices:
        return maps, None, None
    cross, residual = matrices["cross"][..., :-1], matrices["cross"][..., -1]  # (layers, T, S), (layers, T)
    encoder = maps["encoder"][-1] if rolled else rollout(matrices["encoder"])[-1]  # (S, S)
    joint = translation_rollout(encoder, matrices["decoder"], cross, residual)  # (layers, T, S + T)
    sources = cross.shape[-1]
    shares = TranslationShares(joint[..., :sources], joint[..., sources:])
    if rolled:
        maps["decoder"], maps["cross"] = row_normalised(shares.target), row_normalised(shares.source)
    else:
        maps["cross"] = row_normalised(cross)
    return maps, residual.astype(np.float32), shares


@torch.inference_mode()
def block_passes(handle: ModelHandle, batch: Batch) -> tuple[BlockRecorder, dict[str, list[BlockPass]]]:
    """One whole forward pass over `batch` (one example) that keeps what every block's decomposition needs: the
    recorder, and per role ("self", or "encoder", "decoder", "cross") each layer's checked `BlockPass`."""
    blocks = find_blocks(handle.model, state_of(handle.model).modules, handle.name)
    with watching(blocks) as watched:
        recorder = run_batch(handle, batch, BlockRecorder)
    layers = recorder.layers_by_role(handle.is_seq2seq)
    passes = {
        role: [block_pass(recorder, blocks, watched, role, layer) for layer in calls] for role, calls in layers.items()
    }
    return recorder, passes


def block_pass(
    recorder: BlockRecorder, blocks: dict[str, Block], watched: dict[str, BlockTensors], role: str, layer: Layer
) -> BlockPass:
    """The `BlockPass` of one recorded layer (module path, call), checked against the pass."""
    path, call = layer
    block = blocks.get(path)
    if block is None:  # an attention module the architecture's rules do not name
        raise InputError("alti_block_unknown", block=path)
    weights, values = recorder.calls[path][call]  # (1, heads, q, k), (1, heads, k, d)
    tensors = watched[path]
    as_float = {"dtype": torch.float32}
    made = BlockPass(
        block,
        weights[0].to(**as_float),
        values[0].to(**as_float),
        tensors.residual(block.placement, call)[0].to(**as_float),
        tensors.norm_in[call][0].to(**as_float),
        tensors.attention_out[call][0].to(**as_float),
        cross=role == "cross",
    )
    _check_sum(made, values.dtype)
    return made


def _output_bias(step: BlockPass) -> torch.Tensor:
    """(hidden,) b_O, zeros when the projection has none (T5)."""
    bias = getattr(step.block.projection, "bias", None)
    return torch.zeros_like(step.residual[0]) if bias is None else bias.to(step.residual)


def _check_sum(step: BlockPass, dtype: torch.dtype) -> None:
    """Refuse a block whose attention output, rebuilt from its pieces, is not what the pass computed: the
    decomposition would describe another computation."""
    merged = torch.einsum("hqk,hkd->qhd", step.weights, step.values).flatten(1)  # (q, heads·d)
    weight = projection_weight(step.block.projection).to(merged)  # (hidden, heads·d)
    rebuilt = merged @ weight.T + _output_bias(step)  # (q, hidden)
    real = step.attention_out
    if step.post:  # the norm's input is the whole sum: x + Attn(x)
        rebuilt, real = rebuilt + step.residual, step.norm_in
    error = float((rebuilt - real).abs().max())
    scale = 1.0 + float(real.abs().max())
    if not error <= (1e-4 if dtype == torch.float32 or dtype == torch.float64 else 3e-2) * scale:
        raise InputError("alti_block_mismatch", block=step.block.path, error=f"{error:.3g}")


@torch.inference_mode()
def block_terms(step: BlockPass, start: int = 0, stop: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(terms (r, keys, hidden), bias (r, hidden)) of query rows start..stop: T_i(x_j) for every key j (a
    cross-attention block: the encoder's outputs, then the residual x_i as one more term) and b_i, so that
    terms.sum(1) + bias is the block's output y_i."""
    terms, residual, bias = _terms(step, start, step.weights.shape[1] if stop is None else stop)
    terms = terms.transpose(0, 1)  # (r, k, hidden)
    return (torch.cat([terms, residual[:, None]], dim=1) if step.cross else terms), bias


def _terms(step: BlockPass, start: int, stop: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(attention terms (k, r, hidden), residual (r, hidden), bias (r, hidden)) of query rows start..stop; in a
    self-attention block the residual x_i is already in its own term (j = i).

    A post-LN norm's linear part L_i(u) = γ ⊙ (u − mean u) / σ_i is folded into the factors before the product:
    centring is linear, so each f^h_j and x_i is centred and scaled by γ once, and each row of weights divided by
    σ_i (the real input's) — the same terms, without extra passes over the (k, r, hidden) tensor."""
    weights, outputs = step.weights[:, start:stop], step.head_outputs  # (heads, r, k), (heads, k, hidden)
    residual = step.residual[start:stop]  # (r, hidden)
    bias = _output_bias(step).expand_as(residual)
    if step.post:
        norm = step.block.norm
        sigma = torch.sqrt(step.norm_in[start:stop].var(dim=-1, unbiased=False) + norm.eps)  # (r,)
        scale = _gamma(norm, bias) / sigma[:, None]  # (r, hidden)
        weights = weights / sigma[None, :, None]  # the outputs are centred and scaled by γ already
        residual, bias = _centred(residual) * scale, _centred(bias) * scale
        bias = bias if norm.bias is None else bias + norm.bias.to(bias)
    # one (r × heads) · (heads × hidden) product per key: (k, r, heads) @ (k, heads, hidden)
    terms = torch.bmm(weights.permute(2, 1, 0).contiguous(), outputs.transpose(0, 1).contiguous())  # (k, r, hidden)
    if not step.cross:
        rows = torch.arange(stop - start, device=terms.device)
        terms[rows + start, rows] += residual  # x_i joins its own term
    return terms, residual, bias


def _centred(vectors: torch.Tensor) -> torch.Tensor:
    return vectors - vectors.mean(dim=-1, keepdim=True)


def _gamma(norm, like: torch.Tensor) -> torch.Tensor:
    """(hidden,) the norm's scale γ (ones when it has none), in `like`'s dtype and device."""
    return (
        torch.ones(like.shape[-1], dtype=like.dtype, device=like.device)
        if norm.weight is None
        else norm.weight.to(like)
    )


@torch.inference_mode()
def layer_contributions(step: BlockPass) -> np.ndarray:
    """float32 (q, keys): c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁), rows divided by their sums; computed in
    chunks of query rows so that a long text never holds every term at once."""
    queries, keys = step.weights.shape[1], step.weights.shape[2]
    chunk = max(1, CELLS_PER_CHUNK // max(1, keys * step.residual.shape[-1]))
    rows = []
    for start in range(0, queries, chunk):
        terms, residual, bias = _terms(step, start, min(queries, start + chunk))  # (k, r, hidden)
        output = terms.sum(dim=0) + bias + (residual if step.cross else 0)  # (r, hidden): y_i
        gains = _l1_gains(output, terms)  # (k, r)
        if step.cross:  # the residual, one more term
            gains = torch.cat([gains, _l1_gains(output, residual[None].clone())])
        rows.append(torch.clamp(gains.T, min=0))  # (r, k)
    contributions = torch.cat(rows).to(device="cpu", dtype=torch.float64).numpy()
    if not np.isfinite(contributions).all():
        raise InputError("alti_block_mismatch", block=step.block.path, error="nan")
    return row_normalised(contributions)


def _l1_gains(output: torch.Tensor, terms: torch.Tensor) -> torch.Tensor:
    """(k, r): ‖y‖₁ − ‖y − t‖₁ of each output y (r, hidden) and term t (k, r, hidden), without the cancellation of
    two nearly equal norms: per coordinate, with a = |y_d| and u = sign(y_d)·t_d, |y_d| − |y_d − t_d| = min(u, 2a − u)
    (u when the term does not overshoot y_d, exactly). The terms are overwritten."""
    sign = torch.where(output >= 0, 1.0, -1.0).to(output.dtype)  # (r, hidden); y_d = 0 counts as positive
    along = terms.mul_(sign)  # (k, r, hidden): u
    overshoot = torch.sub(2 * output.abs(), along)  # 2a − u
    return torch.minimum(along, overshoot, out=overshoot).sum(dim=-1)
