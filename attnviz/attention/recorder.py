"""How attnviz sees every attention call of a model while it runs: the implementation switch and the recorders.

attnviz registers its own attention function ("attnviz") with transformers' attention interface, and the eager mask
builder under the same name (without it every call would get attention_mask=None). During a capture the model is
switched to that implementation inside a context manager whose `finally` switches it back (`attnviz_attention`).
Each call goes to the recorder of the current capture, kept in a ContextVar, so threads capturing with the same model
at once each get their own; a thread that only runs the model meanwhile gets plain eager attention.

A recorder whose calls all go through a fused kernel asks for the same function under a second name,
"attnviz_fused" (`Recorder.implementation`), whose masks are transformers' SDPA masks: None where the kernel's own causal
flag or no mask serves, a boolean mask only where padding needs one — never the n × n float mask the eager builder
makes (1 GiB at 16k tokens). A thread without a capture then gets transformers' own SDPA attention.

The recorders are siblings on one minimal base, `Recorder` (which module called, by path; what each call left, in
call order; where the pass ends):
- `WeightRecorder` (full capture) computes eager attention (`attention.math`) and keeps every weight;
- `QueryKeyRecorder` (on-demand capture) computes each output with a fused kernel — SDPA, or npu_fusion_attention on
  an NPU (`attention.npu`) — and keeps what recomputes any head later (`compact.LayerInputs`).

What attnviz learns about a model lives in one `ModelState` per model, for as long as the model lives: module
paths, where a full capture writes each layer, where a pass ends, and what switching its implementation set.
"""

from __future__ import annotations

import math
import threading
import weakref
from abc import ABC, abstractmethod
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

import numpy as np
import torch

from attnviz.attention import npu, values
from attnviz.attention.compact import CompactMask, LayerInputs, RelativeBias
from attnviz.attention.math import (
    attention_output,
    attention_probabilities,
    closed_rows,
    eager_attention,
    expand_kv_heads,
)
from attnviz.model import placement
from attnviz.model.load import LOADING
from attnviz.types import Deferred

IMPLEMENTATION = "attnviz"
FUSED_IMPLEMENTATION = "attnviz_fused"  # the same function under SDPA's masks (`Recorder.implementation`)
_CROSS_NAMES = ("encoder_attn", "EncDecAttention", "crossattention", "cross_attn", "cross_attention")

Layer = tuple[str, int]  # (module path, which of its calls): one layer of a map


class PassComplete(Exception):
    """Raised after the last attention call of a forward pass whose length is known: nothing the model computes
    after it (the last feed-forward block, final norm, pooler, logits) changes an attention weight."""


# ----------------------------------------------------------------------------------------------------------------------
# What attnviz knows about one model


@dataclass(eq=False)
class ModelState:
    """Everything attnviz keeps about one model between captures (one per model, see `state_of`)."""

    model: weakref.ref  # not the model itself: the state must not keep it alive
    modules: dict[str, torch.nn.Module]  # path -> module, every named module but the model itself
    names: dict[int, str]  # id(module) -> path
    # path -> (role, layer index, layers in the role), learned by the latest full capture: later calls of those
    # modules write their softmax straight into one (layers, batch, heads, q, k) stack per role.
    layout: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    # whether only the encoder runs -> (attention calls, id of the last calling module) of a complete pass
    pass_ends: dict[bool, tuple[int, int]] = field(default_factory=dict)
    switches: int = 0  # captures in flight with attnviz's implementation
    implementation: str = IMPLEMENTATION  # which of attnviz's implementations those captures switched to
    restore: str | None = None  # the implementation to switch back to after the last of them
    training: list = field(default_factory=list)  # modules that were training before the first of them
    # implementation -> [(config, its _attn_implementation_internal)] as set_attn_implementation left them
    configs: dict[str, list[tuple[object, object]]] = field(default_factory=dict)

    @classmethod
    def of(cls, model: torch.nn.Module) -> ModelState:
        state = cls(weakref.ref(model), {}, {})
        state.refresh()
        return state

    def refresh(self) -> None:
        """Walk `model.named_modules()` again (a module was added or replaced since)."""
        model = self.model()
        modules = {} if model is None else {path: module for path, module in model.named_modules() if path}
        self.modules, self.names = modules, {id(module): path for path, module in modules.items()}

    def role_of(self, path: str, seq2seq: bool) -> str:
        """'self' in a one-stack model; 'encoder', 'decoder' or 'cross' in an encoder-decoder one (`MAP_SPECS`)."""
        if not seq2seq:
            return "self"
        parts = path.split(".")
        if getattr(self.modules.get(path), "is_cross_attention", False) or parts[-1] in _CROSS_NAMES:
            return "cross"
        return "encoder" if "encoder" in parts else "decoder"


_LOCK = threading.Lock()  # guards the states and every implementation switch
_SWITCHED_BACK = threading.Condition(_LOCK)  # a model's last capture ended: another implementation may switch it
_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> ModelState


def state_of(model: torch.nn.Module) -> ModelState:
    """The one state of `model`, made on first use."""
    with _LOCK:
        state = _STATES.get(model)
        if state is None:
            state = _STATES[model] = ModelState.of(model)
        return state


# ----------------------------------------------------------------------------------------------------------------------
# The recorders


class ValueCall(NamedTuple):
    """What one attention call leaves for its value norms (`attention.values`)."""

    module: torch.nn.Module  # the attention module (its output projection is found beside it)
    value: torch.Tensor  # (b, kv_heads, k, d) value states, bias included
    heads: int  # query heads (the value heads are shared among them under GQA)


@dataclass
class Recorder(ABC):
    """The base of every recorder: which module called (by path), what each call left in call order, and where the
    pass ends. A subclass says what one call computes and keeps (`forward`)."""

    state: ModelState
    calls: dict[str, list] = field(default_factory=dict)  # path -> what each of its calls left
    order: list[Layer] = field(default_factory=list)  # (path, index into calls[path]) in call order
    seen: int = 0  # attention calls so far
    last_module: int = 0  # id of the module that made the latest call
    # (calls, id of the last module) of a complete pass of the same kind: PassComplete is raised when it is reached
    stop_after: tuple[int, int] | None = None
    complete: bool = False  # PassComplete was raised: every attention call of the pass is recorded
    refreshed: bool = False  # the module paths were walked again during this capture
    # path -> per call, what its value norms ‖f_h(x_j)‖ are computed from (`attention.values`): (module, value states,
    # heads), parallel to `calls`. The norms of every layer are computed at once, after the pass (`value_norms`): one
    # batched product instead of one per layer.
    value_states: dict[str, list[ValueCall]] = field(default_factory=dict)
    # Generation reads only each module's latest call (every key the cache holds): keep only that call's values.
    defer_norms: bool = False
    ran: dict[str, torch.device] = field(default_factory=dict)  # path -> the device its calls ran on

    def placement(self, model) -> dict[str, dict[str, str]]:
        """For a model placed by accelerate (`hf_device_map`), where each recorded layer's weights were kept and
        where it ran (`attnviz.model.placement.layer_report`); {} for a model on one device."""
        return placement.layer_report(getattr(model, "hf_device_map", None), self.ran)

    # True for a recorder that needs what the model computes after its last attention call (a block's norm and
    # output, the logits): its pass is never ended early (`run_batch`).
    whole_pass: ClassVar[bool] = False
    # The implementation the model runs under while this recorder records: which masks its calls are given.
    implementation: ClassVar[str] = IMPLEMENTATION

    def name_of(self, module) -> str | None:
        """The module's path; a module the state lacks (added or replaced since) has the paths walked again, once
        per capture. None for a module that is not part of the model: its call is computed, not kept."""
        name = self.state.names.get(id(module))
        if name is None and not self.refreshed:
            self.state.refresh()
            self.refreshed = True
            name = self.state.names.get(id(module))
        return name

    def keep(self, name: str, kept, device: torch.device) -> None:
        """Record what one call of the module at `name` left, in call order, and the device it ran on."""
        self.ran[name] = device
        calls = self.calls.setdefault(name, [])
        self.order.append((name, len(calls)))
        calls.append(kept)

    def keep_norms(self, name: str, module, value: torch.Tensor, heads: int) -> None:
        """Keep what the value norms of one call of the module at `name` need (value (b, kv_heads, k, d))."""
        kept = self.value_states.setdefault(name, [])
        if self.defer_norms:
            kept.clear()
        kept.append(ValueCall(module, value, heads))

    def value_norms(self, layers: list[Layer]) -> np.ndarray | None:
        """(layers, batch, heads, k) float32 value norms of the recorded calls, or None when a layer has none."""
        return self.deferred_value_norms(layers).get()

    def deferred_value_norms(self, layers: list[Layer]) -> Deferred:
        """`value_norms(layers)`, computed when first asked for (from the value states kept now)."""
        kept = [(name, _nth(self.value_states.get(name, []), call)) for name, call in layers]
        return Deferred(lambda: self._norms_of(kept))

    def latest_value_norms(self, names: list[str]) -> np.ndarray | None:
        """(layers, batch, heads, k) value norms of each module's latest call (all that `defer_norms` keeps)."""
        return self._norms_of([(name, (self.value_states.get(name) or [None])[-1]) for name in names])

    def _norms_of(self, kept: list[tuple[str, ValueCall | None]]) -> np.ndarray | None:
        """(layers, batch, heads, k) norms of the (module path, kept call) of each layer; None when a layer has none."""
        if not kept or any(call is None for _, call in kept):
            return None
        projections = [values.output_projection(call.module, self.state.modules, name) for name, call in kept]
        if any(projection is None for projection in projections):
            return None
        norms = values.value_norms(
            [(call.value, projection, call.heads) for (_, call), projection in zip(kept, projections)]
        )  # (layers, b, heads, k)
        return None if norms is None else norms.cpu().numpy()

    def ends_pass(self, module) -> bool:
        """Whether this call of `module` is the known last attention call of the pass (`called` then ends it): what
        the call would hand on to the rest of the model is not needed."""
        return self.stop_after == (self.seen + 1, id(module))

    def called(self, module) -> None:
        """Count an attention call; raises PassComplete at the known end of the pass."""
        self.seen += 1
        self.last_module = id(module)
        if self.stop_after == (self.seen, self.last_module):
            self.complete = True
            raise PassComplete

    @abstractmethod
    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        """Each recorder's own attention, in transformers' attention signature: query (b, heads, q, d), key/value (b, kv_heads, k, d) ->
        (output (b, q, heads, d), weights or None)."""

    def layers_by_role(self, seq2seq: bool) -> dict[str, list[Layer]]:
        """One forward pass's layers per role, in call order: a module that runs once in the pass is one layer, one
        that runs several times (layers sharing their weights, as in ALBERT) is one layer per run."""
        roles: dict[str, list[Layer]] = {}
        for name, call in self.order:
            roles.setdefault(self.state.role_of(name, seq2seq), []).append((name, call))
        return roles

    def modules_by_role(self, seq2seq: bool) -> dict[str, list[str]]:
        """Attention module paths per role, in first-call order (the layers of a pass repeated by generation)."""
        layers = self.layers_by_role(seq2seq)
        return {role: list(dict.fromkeys(name for name, _ in role_layers)) for role, role_layers in layers.items()}

    def layer_names(self, layers: list[Layer]) -> list[str]:
        """Module paths; `path#i` for the i-th run of a module that runs several times in the pass."""
        return [name if len(self.calls[name]) == 1 else f"{name}#{call}" for name, call in layers]


@dataclass
class WeightRecorder(Recorder):
    """Computes eager attention and keeps every weight: path -> [(batch, heads, q, k) fp32 on the CPU]."""

    layout: dict[str, tuple[str, int, int]] = field(init=False)  # the state's, when the capture began
    stacks: dict[str, np.ndarray] = field(default_factory=dict)  # role -> (layers, batch, heads, q, k)
    # One 0-d sum per call of its attention output (queries, heads·d): a NaN weight makes its query's output row NaN
    # (NaN·v is NaN), so finite sums vouch for every weight at O(n·d) instead of a scan of the O(n²) weights.
    sums: list[torch.Tensor] = field(default_factory=list)

    def __post_init__(self):
        self.layout = self.state.layout

    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        heads = query.shape[1]
        key, value = expand_kv_heads(key, heads), expand_kv_heads(value, heads)  # (b, heads, k, d)
        name = self.name_of(module)
        shape = torch.Size((query.shape[0], heads, query.shape[2], key.shape[2]))
        probabilities = attention_probabilities(
            query,
            key,
            attention_mask,
            scaling,
            kwargs.get("position_bias"),
            kwargs.get("softcap"),
            out=self._slot(name, shape, query.device),
        )
        if name is not None:
            kept = probabilities if probabilities.device.type == "cpu" else probabilities.to("cpu")  # fp32
            self.keep(name, kept, query.device)
            self.keep_norms(name, module, value, heads)
        if self.ends_pass(module):  # the pass ends here: no output to compute, so the weights vouch for themselves
            self.sums.append(probabilities.sum(dtype=torch.float32))
            return None, probabilities
        output = attention_output(probabilities, value, dropout if module.training else 0.0)  # (b, q, heads, d)
        if name is not None:
            self.sums.append(output.sum(dtype=torch.float32))
        return output, probabilities

    def _slot(self, name: str | None, shape: torch.Size, device: torch.device) -> torch.Tensor | None:
        if name is None or name not in self.layout or name in self.calls or device.type != "cpu":
            return None
        role, index, layers = self.layout[name]
        stack = self.stacks.get(role)
        if stack is None:
            stack = self.stacks[role] = np.empty((layers, *shape), dtype=np.float32)
        return torch.from_numpy(stack[index]) if stack.shape[1:] == tuple(shape) else None

    def all_finite(self) -> bool:
        """Whether every weight recorded so far is a number (read once the forward pass is over)."""
        if math.isfinite(sum(total.item() for total in self.sums)):
            return True
        # An output can also overflow, or be NaN through its values: then look at the weights themselves.
        return all(bool(torch.isfinite(kept).all()) for kept_calls in self.calls.values() for kept in kept_calls)

    def stack(self, layers: list[Layer]) -> np.ndarray:
        """(layers, batch, heads, q, k) from the recorded calls, releasing each recorded tensor once copied (so the
        peak is one stack plus one layer, not two stacks) — or, when the calls were written into a role's stack in
        layer order, that stack itself."""
        slots = [self.layout.get(name) for name, _ in layers]
        role = slots[0][0] if slots[0] else None
        in_place = [(role, i, len(layers)) for i in range(len(layers))]
        if role in self.stacks and slots == in_place and all(call == 0 for _, call in layers):
            stacked = self.stacks[role]
            if all(self.calls[name][0].data_ptr() == stacked[i].ctypes.data for i, (name, _) in enumerate(layers)):
                for name, _ in layers:
                    self.calls[name][0] = None
                return stacked
        first_name, first_call = layers[0]
        stacked = np.empty((len(layers), *self.calls[first_name][first_call].shape), dtype=np.float32)
        for index, (name, call) in enumerate(layers):
            stacked[index] = self.calls[name][call].numpy()
            self.calls[name][call] = None
        return stacked


@dataclass
class QueryKeyRecorder(Recorder):
    """Computes each attention output with a fused kernel (no weights) and keeps a `LayerInputs` per module call."""

    # The same mask / bias tensor serves every layer of a stack: compact it once. id -> (tensor kept alive, form).
    _compacted: dict[int, tuple[torch.Tensor, object]] = field(default_factory=dict)

    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        position_bias, softcap = kwargs.get("position_bias"), kwargs.get("softcap")
        query, key = own_storage(query), own_storage(key)
        if attention_mask is not None:
            attention_mask = attention_mask[..., : key.shape[-2]]
        mask = self._compact_mask(attention_mask, query.shape[-2], key.shape[-2])
        bias = self._compact_bias(position_bias)
        dropout = dropout if module.training else 0.0
        kernel = npu.kernel_for(query.device)
        lse = None
        if softcap or (kernel is not None and dropout):  # what the kernels cannot do, the eager math does
            probabilities = attention_probabilities(query, key, attention_mask, scaling, position_bias, softcap)
            output = attention_output(probabilities, expand_kv_heads(value, query.shape[1]), dropout)
        else:
            additive, causal = _fused_mask(mask, bias, attention_mask, position_bias)
            if kernel is not None:
                output, lse = npu.npu_attention(
                    query, key, value, additive, scaling=scaling, is_causal=causal, kernel=kernel
                )
            else:
                output = torch.nn.functional.scaled_dot_product_attention(
                    query,
                    key,
                    value,
                    attn_mask=additive,
                    dropout_p=dropout,
                    is_causal=causal,
                    scale=scaling,
                    enable_gqa=key.shape[1] != query.shape[1],
                )  # (b, heads, q, d)
                closed = closed_rows(additive, key.shape[-2])  # SDPA gives NaN there; the NaN policy says 0
                output = output if closed is None else output.masked_fill(closed, 0.0)
            output = output.transpose(1, 2).contiguous()  # (b, q, heads, d)
        name = self.name_of(module)
        if name is not None:
            self.keep(name, LayerInputs(query, key, mask, bias, scaling, softcap, lse), query.device)
            self.keep_norms(name, module, value, query.shape[1])
        return output, None

    def _compact_mask(self, mask, queries, keys):
        if mask is None:
            return None
        form = self._once(mask, lambda: CompactMask.of(mask, queries, keys) or mask)
        return None if isinstance(form, CompactMask) and form.hides_nothing else form

    def _compact_bias(self, bias):
        if bias is None:
            return None
        return self._once(bias, lambda: None if not bool(bias.any()) else RelativeBias.of(bias) or bias)

    def _once(self, tensor, make):
        seen = self._compacted.get(id(tensor))
        if seen is None or seen[0] is not tensor:
            seen = (tensor, make())
            self._compacted[id(tensor)] = seen
        return seen[1]

    def release(self) -> None:
        """Forget the full masks and biases held while the model ran (the records keep their compact forms)."""
        self._compacted.clear()


def _nth(items: list, index: int):
    return items[index] if index < len(items) else None


def own_storage(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor itself, or a copy when it is a view into a larger buffer (GPT-2 splits one fused q|k|v
    projection): keeping the view would keep the values too."""
    if tensor.untyped_storage().nbytes() > tensor.numel() * tensor.element_size():
        return tensor.clone()
    return tensor


def _fused_mask(mask, bias, attention_mask, position_bias) -> tuple[torch.Tensor | None, bool]:
    """The cheapest mask a fused kernel computes the same output with: (additive mask + bias or None, causal) —
    the kernel's own causal triangle, nothing, or the additive mask (+ bias)."""
    if isinstance(mask, CompactMask) and mask.plain_causal and bias is None:
        return None, True
    additive = None if mask is None else attention_mask
    if bias is not None:
        additive = position_bias if additive is None else additive + position_bias  # (b, heads, q, k)
    return additive, False


# ----------------------------------------------------------------------------------------------------------------------
# The implementation switch


_ACTIVE: ContextVar[Recorder | None] = ContextVar("attnviz_recorder", default=None)


def attention_forward(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """transformers' attention signature: query (b, heads, q, d), key/value (b, kv_heads, k, d) -> (output, probs)."""
    recorder = _ACTIVE.get()
    if recorder is None:  # the model is switched for another thread's capture; this one only runs it
        return eager_attention(
            query,
            key,
            value,
            attention_mask,
            scaling,
            dropout if module.training else 0.0,
            kwargs.get("position_bias"),
            kwargs.get("softcap"),
        )
    return _recorded(recorder, module, query, key, value, attention_mask, scaling, dropout, **kwargs)


def fused_attention_forward(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """`attention_forward` under SDPA's masks (FUSED_IMPLEMENTATION): a thread that only runs the model meanwhile
    gets transformers' own SDPA attention, which reads those masks (None may mean causal)."""
    recorder = _ACTIVE.get()
    if recorder is None:  # transformers is loaded: the model is running
        from transformers.integrations.sdpa_attention import sdpa_attention_forward

        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout if module.training else 0.0, scaling, **kwargs
        )
    return _recorded(recorder, module, query, key, value, attention_mask, scaling, dropout, **kwargs)


def _recorded(recorder: Recorder, module, query, key, value, attention_mask, scaling, dropout, **kwargs):
    result = recorder.forward(module, query, key, value, attention_mask, scaling, dropout, **kwargs)
    recorder.called(module)
    return result


def _register() -> None:
    with LOADING:  # not while another thread is half-way through importing transformers
        from transformers import AttentionInterface
        from transformers.masking_utils import AttentionMaskInterface, eager_mask, sdpa_mask

    AttentionInterface.register(IMPLEMENTATION, attention_forward)
    AttentionMaskInterface.register(IMPLEMENTATION, eager_mask)
    AttentionInterface.register(FUSED_IMPLEMENTATION, fused_attention_forward)
    AttentionMaskInterface.register(FUSED_IMPLEMENTATION, sdpa_mask)


_register()


def _configs(model) -> list:
    """Every config object of `model` whose attention implementation transformers may set: the models' own configs
    and their sub-configs, at any depth."""
    found = {}
    pending = [getattr(module, "config", None) for module in model.modules()]
    while pending:
        config = pending.pop()
        if config is not None and id(config) not in found:
            found[id(config)] = config
            pending += [getattr(config, key, None) for key in getattr(config, "sub_configs", {})]
    return list(found.values())


def _set_implementation(model, state: ModelState, implementation: str) -> None:
    """`model.set_attn_implementation(implementation)`, which checks and walks every module each time; the
    configuration it leaves is remembered in the model's state, so later switches only set those attributes."""
    if implementation in state.configs:
        for config, value in state.configs[implementation]:
            config._attn_implementation_internal = value
        return
    model.set_attn_implementation(implementation)
    configs = _configs(model)
    if all(hasattr(config, "_attn_implementation_internal") for config in configs):
        state.configs[implementation] = [(config, config._attn_implementation_internal) for config in configs]


@contextmanager
def attnviz_attention(model, implementation: str = IMPLEMENTATION):
    """Route the model's attention through attnviz (`implementation`: IMPLEMENTATION or FUSED_IMPLEMENTATION), in eval
    mode, while any capture with it runs; restore both after the last one (a model object the caller holds may be
    training: its dropout must not touch a capture). A capture that wants the other implementation waits until the
    model's captures in flight have ended: their masks must not change under them."""
    state = state_of(model)
    with _SWITCHED_BACK:
        _SWITCHED_BACK.wait_for(lambda: state.switches == 0 or state.implementation == implementation)
        if state.switches == 0:
            state.restore = model.config._attn_implementation
            state.implementation = implementation
            if state.restore != implementation:
                _set_implementation(model, state, implementation)
            state.training = _to_eval(model)
        state.switches += 1
    try:
        yield
    finally:
        with _SWITCHED_BACK:
            state.switches -= 1
            if state.switches == 0:
                if state.restore != implementation:
                    _set_implementation(model, state, state.restore)
                for module in state.training:
                    module.training = True
                state.training = []
                _SWITCHED_BACK.notify_all()


def _to_eval(model) -> list[torch.nn.Module]:
    """Put every module of `model` in eval mode; returns those that were training (to be switched back)."""
    training = [module for module in model.modules() if module.training]
    for module in training:
        module.training = False
    return training


@contextmanager
def recording(model, recorder_class: type[Recorder] = WeightRecorder):
    """Record every attention call of `model` in this block; yields the recorder (path -> what each call left).

    The pass runs in inference mode, not merely without gradients: no tensor of it is ever differentiated, and
    skipping version counters and view tracking spares a few microseconds per operation (about 2% of a short pass).
    What it leaves (weights, queries, keys, value states) is read afterwards, never changed in place."""
    recorder = recorder_class(state_of(model))
    token = _ACTIVE.set(recorder)
    try:
        with attnviz_attention(model, recorder.implementation), torch.inference_mode():
            yield recorder
    finally:
        _ACTIVE.reset(token)
