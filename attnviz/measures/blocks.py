"""The layer (block) around each attention module, and what each block was called with during a forward pass.

A measure that recomputes one layer (value zeroing) needs the whole block an attention module sits in — its
residuals, norms and feed-forward — and the exact inputs that block received in the real pass. The block of a module
path is its shortest prefix that ends in a number, the first item of a layer list on the way down:
`encoder.layer.3.attention.self` (BERT) → `encoder.layer.3`; `transformer.h.0.attn` (GPT-2) → `transformer.h.0`;
`model.decoder.layers.2.encoder_attn` (BART, Marian) → `model.decoder.layers.2`; `decoder.block.1.layer.1.EncDecAttention`
(T5) → `decoder.block.1`, not its sub-layer `decoder.block.1.layer.1`.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from attnviz.errors import InputError, Phrase


def block_of(path: str) -> str | None:
    """The path of the block around the module at `path`, or None when no part of the path is a layer number."""
    parts = path.split(".")
    for index, part in enumerate(parts):
        if part.isdigit():
            return ".".join(parts[: index + 1])
    return None


@dataclass
class BlockCall:
    """What one block was called with: its positional and keyword arguments, as the model passed them."""

    args: tuple
    kwargs: dict


@dataclass
class BlockInputs:
    """Block path → its calls in one pass, recorded by forward pre-hooks (`recorded_blocks`)."""

    calls: dict[str, list[BlockCall]] = field(default_factory=dict)

    def call(self, attention_path: str, measure: Phrase, model: str) -> tuple[str, BlockCall]:
        """(block path, its one call) for the attention module at `attention_path`; InputError when attnviz cannot
        find that block, or the block ran more than once in the pass (layers that share weights, as in ALBERT)."""
        block = None if "#" in attention_path else block_of(attention_path)
        calls = self.calls.get(block, []) if block is not None else []
        if "#" in attention_path or len(calls) > 1:
            raise InputError("block_shared_layers", measure=measure, model=model)
        if not calls:
            raise InputError("block_not_found", measure=measure, model=model, layer=attention_path)
        return block, calls[0]


@contextmanager
def recorded_blocks(model: torch.nn.Module):
    """Record the inputs of every block of `model` (every module whose path ends in its first layer number) while
    the block runs; yields the `BlockInputs`. The hooks are removed when the block ends, whatever happens in it."""
    inputs = BlockInputs()
    handles = []
    try:
        for path, module in model.named_modules():
            if path and block_of(path) == path:
                handles.append(module.register_forward_pre_hook(_recorder(inputs, path), with_kwargs=True))
        yield inputs
    finally:
        for handle in handles:
            handle.remove()


def _recorder(inputs: BlockInputs, path: str):
    def hook(_module, args, kwargs):
        inputs.calls.setdefault(path, []).append(BlockCall(tuple(args), dict(kwargs)))

    return hook


def repeated(value, rows: int):
    """`value` with every batch-of-one tensor in it (at any depth of tuples, lists and dicts) repeated `rows` times
    along its first axis: a block's inputs for `rows` variants of the same example at once. Tensors of one axis
    (cache positions) carry no batch and are left as they are."""
    if isinstance(value, torch.Tensor):
        if value.dim() >= 2 and value.shape[0] == 1:
            return value.expand(rows, *value.shape[1:]).contiguous()  # (rows, …)
        return value
    if isinstance(value, (tuple, list)):
        items = [repeated(item, rows) for item in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {key: repeated(item, rows) for key, item in value.items()}
    return value


def hidden_output(output) -> torch.Tensor:
    """A block's output hidden states (batch, tokens, hidden): the tensor itself, or the first item of a tuple."""
    return output if isinstance(output, torch.Tensor) else output[0]
