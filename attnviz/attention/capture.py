"""Record attention weights exactly as the model computes them, while it runs: `capture` and `capture_batch`.

The model runs once with attnviz's attention implementation (`attention.recorder`), whose function computes eager
attention (`attention.math`: QKᵀ·scale + mask/bias, fp32 softmax, ·V) and hands every weight to the recorder of the
call, so the maps equal eager attention with `output_attentions` bit for bit. A capture needs the model only up to its
last attention call: once a complete pass has shown where that is, later passes of the same kind end there.
The maps and their tokens follow `types.MAP_SPECS`; `generate` (`attention.generation`) records a model writing.
"""

from __future__ import annotations

import numpy as np

from attnviz.attention.batching import Batch, crop, crop_keys, prepare_batch, run_batch
from attnviz.attention.recorder import WeightRecorder
from attnviz.errors import InputError
from attnviz.model.load import ModelHandle
from attnviz.provenance import alignment_meta, build_provenance
from attnviz.types import AttentionCapture, AttentionMap, Deferred, map_specs, values_checked


def capture(handle: ModelHandle, text: str, target: str | None = None, truncate: bool = False) -> AttentionCapture:
    """Run the model once on `text` (and, for encoder-decoder models, force-decode `target`) and return its attention.

    Encoder-only and decoder-only models give a "self" map; encoder-decoder models give "encoder", "decoder" and
    "cross" maps (without a target, only "encoder": use `generate` to let the model write the target).
    Text longer than the model's positions raises InputError, unless `truncate=True` keeps the first tokens.
    """
    return capture_batch(handle, [text], None if target is None else [target], truncate=truncate)[0]


def capture_batch(
    handle: ModelHandle, texts: list[str], targets: list[str] | None = None, truncate: bool = False
) -> list[AttentionCapture]:
    """`capture` for several examples in one padded batch; each result holds only its own (unpadded) tokens, and
    its provenance (`attnviz.provenance`: the model, device, versions, its texts and these options)."""
    batch = prepare_batch(handle, texts, targets, truncate)
    recorder = run_batch(handle, batch, WeightRecorder)
    if not recorder.all_finite():
        raise InputError("weights_not_finite")
    layers = recorder.layers_by_role(handle.is_seq2seq)
    names = {role: recorder.layer_names(role_layers) for role, role_layers in layers.items()}
    recorder.state.layout = {  # where later captures write each layer; only for roles whose modules run once
        name: (role, index, len(role_layers))
        for role, role_layers in layers.items()
        if len({name for name, _ in role_layers}) == len(role_layers)
        for index, (name, _) in enumerate(role_layers)
    }
    stacked = {role: recorder.stack(role_layers) for role, role_layers in layers.items()}  # (layers, batch, …)
    # (layers, batch, heads, k) value norms, computed when a view first reads them: most views never do
    norms = {role: recorder.deferred_value_norms(role_layers) for role, role_layers in layers.items()}
    recorder.calls.clear()  # the stacks hold the values now; drop the per-layer tensors
    recorder.value_states.clear()
    shared = build_provenance(handle, "", options={"mode": "full", "truncate": truncate})  # the model is read once
    if placed := recorder.placement(handle.model):  # a model spread over devices: where each layer was and ran
        shared["placement"] = placed
    with values_checked():  # every weight was checked above, as the model computed it
        return [example_capture(handle, batch, stacked, norms, names, row, shared) for row in range(len(batch.texts))]


def _example_norms(batch_norms: Deferred, row: int, keys) -> Deferred:
    """Example `row`'s (layers, heads, k) value norms out of the batch's, when first read."""

    def crop_row():
        norms = batch_norms.get()  # (layers, batch, heads, K) or None
        return None if norms is None else crop_keys(norms, row, keys)

    return Deferred(crop_row)


def example_capture(
    handle: ModelHandle,
    batch: Batch,
    stacked: dict[str, np.ndarray],
    norms: dict[str, Deferred],
    names: dict[str, list[str]],
    row: int,
    provenance: dict,
) -> AttentionCapture:
    """Example `row` of a captured batch, with its own tokens only (no padding) and its own texts in `provenance`.
    `stacked`: kind -> (layers, batch, heads, Q, K) of the padded batch, weights or any measure in their layout."""
    maps: dict[str, AttentionMap] = {}
    for spec in map_specs(handle.is_seq2seq, batch.decoded is not None):
        weights = crop(stacked[spec.kind], row, batch.span(row, spec.queries), batch.span(row, spec.keys))
        values = _example_norms(norms[spec.kind], row, batch.span(row, spec.keys))
        maps[spec.kind] = AttentionMap(
            spec.kind,
            weights,
            batch.tokens(row, spec.queries),
            batch.tokens(row, spec.keys),
            names[spec.kind],
            spec.is_causal(handle.kind),
            values,
        )
    source_text, target_text = batch.texts[row], None if batch.targets is None else batch.targets[row]
    provenance = {**provenance, "source_text": source_text, "target_text": target_text}
    prefix = batch.prefixes[row] if batch.prefixes else ""
    if prefix:  # the text read starts with it: offsets count it, the user's words do not (attnviz.corpus.view)
        provenance["options"] = {**provenance.get("options", {}), "prefix": prefix}
    texts = dict(source_text=source_text, target_text=target_text)
    return AttentionCapture(
        handle.name, handle.device, maps, **texts, provenance=provenance, meta=alignment_meta(handle)
    )
