"""The long-context atlas: one forward pass through fused kernels, one more fused pass per layer for every head's
block masses, and exact windows on demand — `capture_atlas`.

What a run keeps is O(layers · n · d): per layer the queries and keys (post-rotary, un-repeated under grouped
queries), each row's log-sum-exp, the block masses and the sink shares — never a layer × head × n² stack. Its
memory is estimated first (`atlas_bytes`) and refused above ATTNVIZ_MEMORY_BUDGET_MB; the character limit
ATTNVIZ_MAX_CHARS, made for n² captures, does not apply. The model's own output is what it computes with SDPA.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable

import numpy as np

from attnviz.atlas.recorder import AtlasCall, AtlasPlan, AtlasRecorder
from attnviz.atlas.result import AtlasCapture, AtlasLayer
from attnviz.attention.batching import Batch, prepare_batch, run_batch
from attnviz.errors import InputError, Phrase
from attnviz.maps.atlas import Atlas, AtlasMap
from attnviz.maps.atlas_stats import SINK_TOKENS
from attnviz.memo import first_weight
from attnviz.model.load import ModelHandle
from attnviz.model.memory import ACTIVATION_COPIES, FLOAT32, attention_stacks, check_bytes, model_sizes
from attnviz.provenance import build_provenance
from attnviz.types import map_specs

BLOCK = 64  # tokens per block along each axis, by default
Progress = Callable[[int, int], None]  # (attention calls done, calls in the pass)


def capture_atlas(handle: ModelHandle, text: str, target: str | None = None, **options) -> AtlasCapture:
    """The atlas of `text` (force-decoding `target` for an encoder-decoder model): every head's block masses,
    sink mass, the statistics from them and exact windows on demand. `options`: those of `capture_atlas_batch`."""
    return capture_atlas_batch(handle, [text], None if target is None else [target], **options)[0]


def capture_atlas_batch(
    handle: ModelHandle,
    texts: list[str],
    targets: list[str] | None = None,
    *,
    block: int = BLOCK,
    sink: int = SINK_TOKENS,
    keep_inputs: bool = True,
    truncate: bool = False,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
) -> list[AtlasCapture]:
    """The atlas of each text (and target) of one padded batch, each holding only its own tokens: every head's block
    masses (`block` × `block` tokens), the sink mass over the first `sink` tokens, the statistics from them, and —
    with `keep_inputs` — exact windows on demand. `progress(done, total)` is called after each attention call;
    setting `stop` ends the run (`AtlasStopped`)."""
    for name, value in (("block", block), ("sink", sink)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError("atlas_count", name=name, value=value)
    batch = prepare_batch(handle, texts, targets, truncate, mode="atlas")
    n_source = batch.inputs["input_ids"].shape[1]
    n_target = batch.inputs["decoder_input_ids"].shape[1] if batch.decoded is not None else 0
    needed = atlas_bytes(handle, n_source, n_target, keep_inputs, block, len(texts))
    advice = Phrase("atlas.memory_advice_windows" if keep_inputs else "atlas.memory_advice")
    check_bytes(needed, Phrase("atlas.memory_what", tokens=n_source, model=handle.name), advice)
    total = sum(stack.layers for stack in attention_stacks(handle, n_source, n_target))
    plan = AtlasPlan(
        block,
        sink,
        keep_inputs,
        handle.is_seq2seq,
        _spans(handle, batch),
        None if progress is None else functools.partial(_report, progress, total),
        stop,
    )
    recorder = run_batch(handle, batch, functools.partial(AtlasRecorder, plan=plan))
    recorder.release()
    options = {"mode": "atlas", "block": block, "sink": sink, "keep_inputs": keep_inputs, "truncate": truncate}
    return [_example(handle, batch, recorder, row, options) for row in range(len(texts))]


def _report(progress: Progress, total: int, done: int) -> None:
    progress(min(done, total), total)


def _spans(handle: ModelHandle, batch: Batch) -> dict[str, list]:
    """Map kind -> per example, (query span, key span) of its own tokens in the padded batch."""
    spans = {}
    for spec in map_specs(handle.is_seq2seq, batch.decoded is not None):
        spans[spec.kind] = [
            (_own(batch.span(row, spec.queries)), _own(batch.span(row, spec.keys))) for row in range(len(batch.texts))
        ]
    return spans


def _own(span) -> tuple[int, int]:
    length, width, left = span
    start = width - length if left else 0
    return start, start + length


def _example(handle: ModelHandle, batch: Batch, recorder: AtlasRecorder, row: int, options: dict) -> AtlasCapture:
    """Example `row`'s atlas: its maps (numpy) and, per layer, what opens its windows."""
    layers = recorder.layers_by_role(handle.is_seq2seq)
    maps, kept = {}, {}
    plan = recorder.plan
    for spec in map_specs(handle.is_seq2seq, batch.decoded is not None):
        calls: list[AtlasCall] = [recorder.calls[name][call] for name, call in layers[spec.kind]]
        (q0, q1), (k0, k1) = plan.spans[spec.kind][row]
        maps[spec.kind] = AtlasMap(
            spec.kind,
            np.stack([call.blocks[row].cpu().numpy() for call in calls]),
            plan.block,
            batch.tokens(row, spec.queries),
            batch.tokens(row, spec.keys),
            recorder.layer_names(layers[spec.kind]),
            spec.is_causal(handle.kind),
            np.stack([_sink_mass(call.sinks[row], plan.sink) for call in calls]),
            plan.sink,
        )
        kept[spec.kind] = [
            AtlasLayer(
                None if call.query is None else call.query[row : row + 1, :, q0:q1],
                None if call.key is None else call.key[row : row + 1, :, k0:k1],
                call.lse[row : row + 1, :, q0:q1],
                call.scale,
                call.visibility[row],
            )
            for call in calls
        ]
    source, target = batch.texts[row], None if batch.targets is None else batch.targets[row]
    record = build_provenance(handle, source, target, options)
    record["routes"] = list(recorder.book.record)
    atlas = Atlas(handle.name, str(handle.device), maps, source, target, record)
    return AtlasCapture(atlas, kept)


def _sink_mass(shares, sink: int) -> np.ndarray:
    """float32 (heads,): the mean sink share over the query rows after the sink tokens (NaN when there are none)."""
    after = shares[:, sink:].double()  # (heads, rows)
    if after.shape[1] == 0:
        return np.full(shares.shape[0], np.nan, dtype=np.float32)
    return after.mean(dim=1).float().cpu().numpy()


def atlas_bytes(
    handle: ModelHandle, n_source: int, n_target: int = 0, keep_inputs: bool = True, block: int = BLOCK, batch: int = 1
) -> int:
    """Extra memory (bytes) an atlas of n_source (and n_target) tokens is expected to need: per layer its LSE, block
    masses and (with `keep_inputs`) queries and keys in the model's dtype; one block pass's working tensors; the
    activations of one layer (as `model.memory.estimate_bytes` counts them)."""
    weight = first_weight(handle.model)
    itemsize = FLOAT32 if weight is None else weight.element_size()
    total = 0
    for stack in attention_stacks(handle, n_source, n_target):
        blocks = -(-stack.queries // block) * -(-stack.keys // block)
        total += stack.layers * stack.heads * (stack.queries + blocks) * FLOAT32
        if keep_inputs:
            total += (
                stack.layers * (stack.heads * stack.queries + stack.kv_heads * stack.keys) * stack.head_dim * itemsize
            )
        total += 4 * stack.heads * stack.queries * stack.head_dim * FLOAT32  # a block pass: output, weights, copies
    total += max(n_source, n_target) * model_sizes(handle).width * FLOAT32 * ACTIVATION_COPIES
    return int(total * batch)
