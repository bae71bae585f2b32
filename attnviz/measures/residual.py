"""The residual stream of one stack of layers (a decoder, an encoder): what enters its first layer and what each
layer writes, read by hooks while the model runs, and the stack's own final norm.

The lenses read intermediate layers through the model's own last steps (nostalgebraist, "interpreting GPT: the logit
lens", 2020): that needs each layer's output before the final norm, which `output_hidden_states` does not give for the
last layer of pre-norm models (GPT-2, Llama, T5 hand back the normed state there). Hooks on the layers do, alike for
every family."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from attnviz.errors import InputError

# The names transformers gives a stack's last norm (Llama/Qwen2 `norm`, GPT-2 `ln_f`, T5 `final_layer_norm`, mBART
# `layer_norm`, Phi `final_layernorm`). BART and Marian are post-norm: their stacks end without one.
FINAL_NORMS = ("norm", "ln_f", "final_layer_norm", "layer_norm", "final_layernorm", "norm_f")
EMBEDDINGS = "embeddings"  # the name of the stream's first state: what the first layer reads


def layers_of(stack: torch.nn.Module) -> tuple[str, torch.nn.ModuleList]:
    """(attribute name, the layers) of a stack: its ModuleList child (`layers`, `h`, `block`)."""
    for name, child in stack.named_children():
        if isinstance(child, torch.nn.ModuleList) and len(child):
            return name, child
    raise InputError("lens_no_layers", stack=type(stack).__name__)


def final_norm(stack: torch.nn.Module) -> torch.nn.Module | None:
    """The norm a stack applies to its last layer's output, or None where it has none (post-norm models)."""
    children = dict(stack.named_children())
    return next((children[name] for name in FINAL_NORMS if name in children), None)


@dataclass
class Stream:
    """The states of the stack's latest pass, each (batch, positions, hidden): `states[0]` what the first layer read,
    `states[l]` what layer l wrote. A new pass (the first layer called again) starts the list afresh."""

    names: list[str]  # EMBEDDINGS, then each layer's module path
    states: list[torch.Tensor] = field(default_factory=list)


def _hidden(args: tuple, kwargs: dict) -> torch.Tensor:
    """The hidden states a layer is called with (positional or `hidden_states=`)."""
    return args[0] if args else kwargs["hidden_states"]


def _output(output) -> torch.Tensor:
    """What a layer writes to the stream: its output, or the first item of the tuple it returns."""
    return output[0] if isinstance(output, tuple) else output


@contextmanager
def residual_stream(model: torch.nn.Module, stack: torch.nn.Module) -> Iterator[Stream]:
    """Inside the block, every pass of `stack` (a module of `model`) fills the yielded `Stream`; the hooks go when
    the block ends, however it ends."""
    attribute, layers = layers_of(stack)
    paths = {id(module): path for path, module in model.named_modules()}
    stream = Stream([EMBEDDINGS] + [paths.get(id(layer), f"{attribute}.{i}") for i, layer in enumerate(layers)])

    def entered(_module, args, kwargs):
        stream.states[:] = [_hidden(args, kwargs).detach()]

    def written(_module, _args, output):
        stream.states.append(_output(output).detach())

    hooks = [layers[0].register_forward_pre_hook(entered, with_kwargs=True)]
    hooks += [layer.register_forward_hook(written) for layer in layers]
    try:
        yield stream
    finally:
        for hook in hooks:
            hook.remove()
