"""The pieces of each attention block that a decomposition needs, found per architecture, and read from one real pass.

An attention block adds the attention's output to the residual stream x, with its layer norm either before the
attention or after the sum:

    pre-LN   (GPT-2, Llama, Qwen2, T5):   y = x + Attn(LN(x))          the norm is applied to each token first
    post-LN  (BERT, BART, Marian):        y = LN(x + Attn(x))          the norm acts on the sum

and Attn(·)_i = Σ_h Σ_j α^h_ij · v^h_j · W_O^h + b_O, v^h_j being token j's value vector (bias included) in head h
and W_O^h the head's slice of the output projection. Cross-attention reads its values from the encoder's output, and
the residual is the decoder's own x_i.

`find_blocks` names, for the architectures attnviz can decompose (`ARCHITECTURES`), each attention module's norm
and where it sits; any other architecture is refused with a sentence, never decomposed by guesswork.
`BlockRecorder` computes eager attention during the pass and keeps each call's weights and value vectors on the
model's device; `watching` keeps, for each block, the tensors around it that the decomposition needs (the residual,
the norm's input, the attention's output).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import ClassVar

import torch

from attnviz.attention.math import attention_output, attention_probabilities, expand_kv_heads
from attnviz.attention.recorder import Recorder
from attnviz.attention.values import output_projection
from attnviz.errors import InputError


@dataclass(frozen=True)
class BlockRule:
    """Where one kind of attention module's block keeps its norm."""

    attention: str  # the attention module's own name: the last part of its path
    norm: str  # the norm's path from the attention module's parent
    placement: str  # "pre": the norm reads the residual before the attention; "post": it reads x + Attn(x)


_BERT = (BlockRule("self", "output.LayerNorm", "post"),)  # attention.self; attention.output.{dense, LayerNorm}
_BART = (
    BlockRule("self_attn", "self_attn_layer_norm", "post"),
    BlockRule("encoder_attn", "encoder_attn_layer_norm", "post"),
)
_T5 = (BlockRule("SelfAttention", "layer_norm", "pre"), BlockRule("EncDecAttention", "layer_norm", "pre"))
_LLAMA = (BlockRule("self_attn", "input_layernorm", "pre"),)

# config.model_type -> its blocks. Only architectures whose block is exactly one of the two forms above: a model
# with a norm on the attention's output too (Gemma 2's sandwich) or a parallel feed-forward (GPT-J) is not here.
ARCHITECTURES: dict[str, tuple[BlockRule, ...]] = {
    "bert": _BERT,
    "roberta": _BERT,
    "xlm-roberta": _BERT,
    "gpt2": (BlockRule("attn", "ln_1", "pre"),),
    "llama": _LLAMA,
    "qwen2": _LLAMA,
    "mistral": _LLAMA,
    "bart": _BART,
    "marian": _BART,
    "t5": _T5,
    "mt5": _T5,
}


@dataclass(frozen=True)
class Block:
    """One attention block of a model: the attention module (the one that calls attention, as the recorder names
    it), its output projection, its norm and where the norm sits."""

    path: str
    attention: torch.nn.Module
    projection: torch.nn.Module  # a Linear, or GPT-2's Conv1D
    norm: torch.nn.Module
    placement: str  # "pre" | "post"


def find_blocks(model: torch.nn.Module, modules: dict[str, torch.nn.Module], name: str) -> dict[str, Block]:
    """Every attention block of `model` by its attention module's path, or InputError naming the architectures
    that can be decomposed. `modules` maps the model's module paths to modules; `name` is what the user called it."""
    model_type = getattr(getattr(model, "config", None), "model_type", None)
    rules = {rule.attention: rule for rule in ARCHITECTURES.get(model_type, ())}
    blocks = {}
    for path, module in modules.items():
        parent, _, own = path.rpartition(".")
        rule = rules.get(own)
        if rule is None:
            continue
        norm = modules.get(f"{parent}.{rule.norm}" if parent else rule.norm)
        projection = output_projection(module, modules, path)
        if norm is None or projection is None or (rule.placement == "post" and not _is_layer_norm(norm)):
            raise _refused(name, model_type)
        blocks[path] = Block(path, module, projection, norm, rule.placement)
    if not blocks:
        raise _refused(name, model_type)
    return blocks


def _is_layer_norm(norm: torch.nn.Module) -> bool:
    """A post-LN norm is decomposed through its linear part γ ⊙ (u − mean u) / σ: torch's LayerNorm, over the last
    axis only."""
    return isinstance(norm, torch.nn.LayerNorm) and len(norm.normalized_shape) == 1


def _refused(name: str, model_type) -> InputError:
    return InputError("alti_architecture", model=name, model_type=str(model_type), supported=", ".join(ARCHITECTURES))


# ----------------------------------------------------------------------------------------------------------------------
# What the pass leaves


@dataclass
class BlockRecorder(Recorder):
    """Eager attention that keeps every call's weights and value vectors where the model computed them (on its
    device): path -> [(weights (b, heads, q, k) float32, values (b, heads, k, d))]. The pass runs whole, since a
    block's norm and output come after its attention call."""

    whole_pass: ClassVar[bool] = True

    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        heads = query.shape[1]
        key, value = expand_kv_heads(key, heads), expand_kv_heads(value, heads)  # (b, heads, k, d)
        probabilities = attention_probabilities(
            query, key, attention_mask, scaling, kwargs.get("position_bias"), kwargs.get("softcap")
        )  # (b, heads, q, k) float32
        name = self.name_of(module)
        if name is not None:
            self.keep(name, (probabilities, value), query.device)
        return attention_output(probabilities, value, dropout if module.training else 0.0), probabilities


@dataclass
class BlockTensors:
    """What the pass left around one block, per call of its attention module, in call order."""

    queries_in: list[torch.Tensor] = field(default_factory=list)  # (b, q, hidden): the attention's query-side input
    # (b, q, hidden): the attention module's output; after the output projection where it holds it (pre-LN)
    attention_out: list[torch.Tensor] = field(default_factory=list)
    norm_in: list[torch.Tensor] = field(default_factory=list)  # (b, q, hidden)
    norm_out: list[torch.Tensor] = field(default_factory=list)  # (b, q, hidden)

    def residual(self, placement: str, call: int) -> torch.Tensor:
        """(b, q, hidden) the residual stream x the block adds to: the norm's input before a pre-LN attention, the
        attention's own query input in a post-LN block."""
        return self.norm_in[call] if placement == "pre" else self.queries_in[call]


_WATCHED: ContextVar[dict[str, BlockTensors] | None] = ContextVar("attnviz_watched_blocks", default=None)


@contextmanager
def watching(blocks: dict[str, Block]):
    """Keep the tensors around every block while the model runs in this block; yields path -> BlockTensors. The
    hooks act only in this context (another thread running the same model meanwhile is not recorded) and are
    removed in `finally`."""
    watched = {path: BlockTensors() for path in blocks}
    handles = []
    for path, block in blocks.items():
        handles.append(block.attention.register_forward_pre_hook(_keep_queries(path), with_kwargs=True))
        handles.append(block.attention.register_forward_hook(_keep_output(path)))
        handles.append(block.norm.register_forward_hook(_keep_norm(path)))
    token = _WATCHED.set(watched)
    try:
        yield watched
    finally:
        _WATCHED.reset(token)
        for handle in handles:
            handle.remove()


def _current(path: str) -> BlockTensors | None:
    watched = _WATCHED.get()
    return None if watched is None else watched.get(path)


def _keep_queries(path: str):
    def hook(module, args, kwargs):
        kept = _current(path)
        if kept is not None:
            kept.queries_in.append(kwargs["hidden_states"] if "hidden_states" in kwargs else args[0])

    return hook


def _keep_output(path: str):
    def hook(module, args, output):
        kept = _current(path)
        if kept is not None:
            kept.attention_out.append(output[0] if isinstance(output, tuple) else output)

    return hook


def _keep_norm(path: str):
    def hook(module, args, output):
        kept = _current(path)
        if kept is not None:
            kept.norm_in.append(args[0])
            kept.norm_out.append(output)

    return hook
