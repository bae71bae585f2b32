"""Record attention weights exactly as the model computes them, while it runs.

How: attnviz registers its own attention function ("attnviz") with transformers' attention interface, and the eager
mask builder under the same name (without it every call would get attention_mask=None). During a capture the model is
switched to that implementation inside a context manager whose `finally` switches it back; the function computes
eager attention (QKᵀ·scale + mask/bias, fp32 softmax, ·V) and hands the probabilities to the recorder of the current
call. Recorders live in a ContextVar, so threads capturing with the same model at once each get their own maps.
A capture needs the model only up to its last attention call: once a complete pass has shown where that is, later
passes of the same kind end there (the recorder raises PassComplete, which `run_batch` catches).

Conventions of the maps:
- "self" (encoder-only or decoder-only models), "encoder": queries and keys are the input tokens.
- "decoder" and "cross" (encoder-decoder models): query row i is the step that *produces* target token i (its decoder
  input is the previous token), so cross-attention reads "while writing `morning` the model looked at 早上". Decoder
  self-attention keys are the decoder inputs: the start token, then the target tokens but the last.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
import threading
import weakref
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np
import torch

from attnviz.errors import InputError
from attnviz.fused_attention import expand_kv_heads as repeat_kv  # GQA: (b, kv_heads, l, d) -> (b, heads, l, d)
from attnviz.memory import check_budget, check_text_length
from attnviz.models import LOADING, ModelHandle
from attnviz.tokens import special_ids, tokens_for_ids, tokens_from_offsets
from attnviz.types import NOT_FINITE, AttentionCapture, AttentionMap, GenerationStep, Token, values_checked

IMPLEMENTATION = "attnviz"
_SURROGATE = re.compile("[\ud800-\udfff]")  # unpaired UTF-16 halves: text that cannot be encoded
_CROSS_NAMES = ("encoder_attn", "EncDecAttention", "crossattention", "cross_attn", "cross_attention")


def attention_probabilities(query, key, attention_mask=None, scaling=None, position_bias=None, softcap=None,
                            out: torch.Tensor | None = None):
    """Eager attention weights in fp32: softmax(QKᵀ·scale + bias + mask). query (b, h, q, d), key (b, h, k, d).

    The one definition of "what the model computed", shared by full capture and on-demand recomputation. The steps
    are eager attention's, in its order and in the model's dtype; the softmax is in fp32 (written into `out`, a float32
    CPU tensor of the result's shape, when given — the same values, without a later copy). The scores are a new
    tensor, so scaling and adding work in place where the dtypes agree: no more (b, h, q, k) buffers than needed.
    """
    if scaling is None:
        scaling = query.shape[-1] ** -0.5
    scores = torch.matmul(query, key.transpose(-2, -1)).mul_(scaling)  # (b, h, q, k)
    if softcap:  # logit soft-capping (Gemma 2) comes before the mask, as in its eager attention
        scores = torch.tanh(scores / softcap) * softcap
    # T5 adds its relative bias (which already holds the mask); the others their additive mask
    for term in (position_bias, None if attention_mask is None else attention_mask[..., : key.shape[-2]]):
        if term is not None:
            scores = scores.add_(term) if term.dtype == scores.dtype else scores + term
    if out is not None:
        return torch.ops.aten._softmax.out(scores.float(), -1, False, out=out)
    return torch.softmax(scores, dim=-1, dtype=torch.float32)


class PassComplete(Exception):
    """Raised after the last attention call of a forward pass whose length is known: nothing the model computes
    after it (the last feed-forward block, final norm, pooler, logits) changes an attention weight."""


@dataclass
class Recorder:
    """What one capture call keeps, per attention module path. This one keeps every full weight tensor.

    Subclasses may keep less (e.g. queries and keys, to recompute a head on demand) by overriding `forward`.
    """

    module_names: dict[int, str]  # id(module) -> path; refreshed from `model` when an unknown module calls
    calls: dict[str, list[torch.Tensor]] = field(default_factory=dict)  # path -> [(batch, heads, q, k) fp32 cpu]
    # From an earlier capture with the same model: path -> (role, layer index, layers in the role). First calls then
    # write their softmax straight into one (layers, batch, heads, q, k) stack per role, so no copy assembles it.
    layout: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    stacks: dict[str, np.ndarray] = field(default_factory=dict)
    model: torch.nn.Module | None = None  # whose module names to walk again when an unknown module calls
    refreshed: bool = False
    # One 0-d sum per call of its attention output (queries, heads·d): a NaN weight makes its query's output row NaN
    # (NaN·v is NaN), so finite sums vouch for every weight at O(n·d) instead of a scan of the O(n²) weights.
    sums: list[torch.Tensor] = field(default_factory=list)
    seen: int = 0  # attention calls so far
    last_module: int = 0  # id of the module that made the latest call
    # (calls, id of the last module) of a complete pass of the same kind: PassComplete is raised when it is reached
    stop_after: tuple[int, int] | None = None
    complete: bool = False  # PassComplete was raised: every attention call of the pass is recorded
    order: list[tuple[str, int]] = field(default_factory=list)  # (path, index into calls[path]) in call order

    def name_of(self, module) -> str | None:
        name = self.module_names.get(id(module))
        if name is None and self.model is not None and not self.refreshed:  # added since the names were cached
            self.module_names = _module_names(self.model, refresh=True)
            self.refreshed = True  # one more walk per capture at most
            name = self.module_names.get(id(module))
        return name

    def all_finite(self) -> bool:
        """Whether every weight recorded so far is a number (read once the forward pass is over)."""
        if math.isfinite(sum(total.item() for total in self.sums)):
            return True
        # An output can also overflow, or be NaN through its values: then look at the weights themselves.
        return all(bool(torch.isfinite(kept).all()) for kept_calls in self.calls.values() for kept in kept_calls)

    def keep(self, name: str, kept) -> None:
        """Record what one call of the module at `name` left, in call order."""
        calls = self.calls.setdefault(name, [])
        self.order.append((name, len(calls)))
        calls.append(kept)

    def called(self, module) -> None:
        """Count an attention call; raises PassComplete at the known end of the pass."""
        self.seen += 1
        self.last_module = id(module)
        if self.stop_after == (self.seen, self.last_module):
            self.complete = True
            raise PassComplete

    def _slot(self, name: str | None, shape: torch.Size, device: torch.device) -> torch.Tensor | None:
        if name is None or name not in self.layout or name in self.calls or device.type != "cpu":
            return None
        role, index, layers = self.layout[name]
        stack = self.stacks.get(role)
        if stack is None:
            stack = self.stacks[role] = np.empty((layers, *shape), dtype=np.float32)
        return torch.from_numpy(stack[index]) if stack.shape[1:] == tuple(shape) else None

    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        heads = query.shape[1]
        if key.shape[1] != heads:  # grouped-query attention: each key/value head serves several query heads
            key, value = repeat_kv(key, heads), repeat_kv(value, heads)  # (b, heads, k, d)
        name = self.name_of(module)
        shape = torch.Size((query.shape[0], heads, query.shape[2], key.shape[2]))
        probabilities = attention_probabilities(
            query, key, attention_mask, scaling, kwargs.get("position_bias"), kwargs.get("softcap"),
            out=self._slot(name, shape, query.device),
        )
        if name is not None:
            self.keep(name, probabilities if probabilities.device.type == "cpu" else probabilities.to("cpu"))  # fp32
        if probabilities.dtype != value.dtype:
            probabilities = probabilities.to(value.dtype)
        if dropout and module.training:
            probabilities = torch.nn.functional.dropout(probabilities, p=dropout)
        output = torch.matmul(probabilities, value).transpose(1, 2).contiguous()  # (b, q, heads, d)
        if name is not None:
            self.sums.append(output.sum(dtype=torch.float32))
        return output, probabilities


_ACTIVE: ContextVar[Recorder | None] = ContextVar("attnviz_recorder", default=None)
_PASS_THROUGH = Recorder(module_names={})  # used when a model is switched to attnviz but this thread is not capturing


def attention_forward(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """transformers' attention signature: query (b, heads, q, d), key/value (b, kv_heads, k, d) -> (output, probs)."""
    recorder = _ACTIVE.get()
    if recorder is None:
        return _PASS_THROUGH.forward(module, query, key, value, attention_mask, scaling, dropout, **kwargs)
    result = recorder.forward(module, query, key, value, attention_mask, scaling, dropout, **kwargs)
    recorder.called(module)
    return result


def _register() -> None:
    with LOADING:  # not while another thread is half-way through importing transformers
        from transformers import AttentionInterface
        from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(IMPLEMENTATION, attention_forward)
    AttentionMaskInterface.register(IMPLEMENTATION, eager_mask)


_register()

_switch_lock = threading.Lock()
_switch_depth: dict[int, tuple[int, str]] = {}  # id(model) -> (captures in flight, implementation to restore)
# model -> {implementation: [(config, value of its _attn_implementation_internal)]}: what set_attn_implementation set
_SWITCHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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


def _set_implementation(model, implementation: str) -> None:
    """`model.set_attn_implementation(implementation)`, which checks and walks every module each time; the
    configuration it leaves is remembered per model, so later switches only set those attributes again."""
    known = _SWITCHES.setdefault(model, {})
    if implementation in known:
        for config, value in known[implementation]:
            config._attn_implementation_internal = value
        return
    model.set_attn_implementation(implementation)
    configs = _configs(model)
    if all(hasattr(config, "_attn_implementation_internal") for config in configs):
        known[implementation] = [(config, config._attn_implementation_internal) for config in configs]


@contextmanager
def _attnviz_attention(model):
    """Route the model's attention through attnviz while any capture with it runs; restore it after the last one."""
    key = id(model)
    with _switch_lock:
        depth, original = _switch_depth.get(key, (0, model.config._attn_implementation))
        if depth == 0 and original != IMPLEMENTATION:
            _set_implementation(model, IMPLEMENTATION)
        _switch_depth[key] = (depth + 1, original)
    try:
        yield
    finally:
        with _switch_lock:
            depth, original = _switch_depth[key]
            if depth == 1:
                del _switch_depth[key]
                if original != IMPLEMENTATION:
                    _set_implementation(model, original)
            else:
                _switch_depth[key] = (depth - 1, original)


_LAYOUTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> Recorder.layout, learned by capture
_MODULES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> ({path: module}, {id(module): path})


def _module_index(model, refresh: bool = False) -> tuple[dict[str, torch.nn.Module], dict[int, str]]:
    """`model.named_modules()` both ways, walked once per model (again when a recorder meets a module it lacks)."""
    if refresh or model not in _MODULES:
        modules = dict(model.named_modules())
        _MODULES[model] = modules, {id(module): name for name, module in modules.items()}
    return _MODULES[model]


def _module_names(model, refresh: bool = False) -> dict[int, str]:
    return _module_index(model, refresh)[1]


@contextmanager
def recording(model, recorder_class: type[Recorder] = Recorder):
    """Capture every attention call of `model` in this block; yields the recorder (path -> list of weights)."""
    recorder = recorder_class(module_names=_module_names(model), layout=_LAYOUTS.get(model, {}), model=model)
    token = _ACTIVE.set(recorder)
    try:
        with _attnviz_attention(model), torch.no_grad():
            yield recorder
    finally:
        _ACTIVE.reset(token)


def _role(model, name: str, module) -> str:
    """'encoder', 'decoder' or 'cross' for a module of an encoder-decoder model."""
    parts = name.split(".")
    if getattr(module, "is_cross_attention", False) or parts[-1] in _CROSS_NAMES:
        return "cross"
    return "encoder" if "encoder" in parts else "decoder"


Layer = tuple[str, int]  # (module path, which of its calls): one layer of a map


def _stack(recorder: Recorder, layers: list[Layer]) -> np.ndarray:
    """(layers, batch, heads, q, k) from the recorded calls, releasing each recorded tensor once copied (so the peak
    is one stack plus one layer, not two stacks) — or, when the calls were written into a role's stack in layer
    order, that stack itself."""
    slots = [recorder.layout.get(name) for name, _ in layers]
    role = slots[0][0] if slots[0] else None
    in_place = [(role, i, len(layers)) for i in range(len(layers))]
    if role in recorder.stacks and slots == in_place and all(call == 0 for _, call in layers):
        stacked = recorder.stacks[role]
        if all(recorder.calls[name][0].data_ptr() == stacked[i].ctypes.data for i, (name, _) in enumerate(layers)):
            for name, _ in layers:
                recorder.calls[name][0] = None
            return stacked
    first_name, first_call = layers[0]
    stacked = np.empty((len(layers), *recorder.calls[first_name][first_call].shape), dtype=np.float32)
    for index, (name, call) in enumerate(layers):
        stacked[index] = recorder.calls[name][call].numpy()
        recorder.calls[name][call] = None
    return stacked


def _modules_by_role(model, recorder: Recorder, seq2seq: bool) -> dict[str, list[str]]:
    """Attention module paths per role, in first-call order (the layers of a pass repeated by generation)."""
    layers = _layers_by_role(model, recorder, seq2seq)
    return {role: list(dict.fromkeys(name for name, _ in role_layers)) for role, role_layers in layers.items()}


def _layers_by_role(model, recorder: Recorder, seq2seq: bool) -> dict[str, list[Layer]]:
    """One forward pass's layers per role, in call order: a module that runs once in the pass is one layer, one that
    runs several times (layers sharing their weights, as in ALBERT) is one layer per run."""
    modules = _module_index(model)[0]
    roles: dict[str, list[Layer]] = {}
    for name, call in recorder.order:
        role = _role(model, name, modules[name]) if seq2seq else "self"
        roles.setdefault(role, []).append((name, call))
    return roles


def layer_names(recorder: Recorder, layers: list[Layer]) -> list[str]:
    """Module paths; `path#i` for the i-th run of a module that runs several times in the pass."""
    return [name if len(recorder.calls[name]) == 1 else f"{name}#{call}" for name, call in layers]


# ----------------------------------------------------------------------------------------------------------------
# Tokenizing: the ids the model sees and the tokens a person reads.

@dataclass
class Encoded:
    ids: list[int]
    tokens: list[Token]


def check_text(text, what: str = "text") -> str:
    if not isinstance(text, str):
        raise InputError(f"The {what} must be a string, not {type(text).__name__}.")
    if not text.strip():
        raise InputError(f"The {what} is empty; type a sentence to see its attention.")
    if _SURROGATE.search(text):
        raise InputError(f"The {what} holds broken characters (unpaired UTF-16 surrogates); paste it again as text.")
    return text


@functools.lru_cache(maxsize=32)
def _calls_backend_only(tokenizer_class: type) -> bool:
    """Whether calling a tokenizer of this class on one text only runs its Rust backend's `encode`: transformers' own
    fast tokenizer call path, not overridden, and no source/target language modes to switch."""
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase
    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    return (
        issubclass(tokenizer_class, TokenizersBackend)
        and tokenizer_class.__call__ is PreTrainedTokenizerBase.__call__
        and tokenizer_class._encode_plus is TokenizersBackend._encode_plus
        and not hasattr(tokenizer_class, "_switch_to_input_mode")
    )


def _backend_encoding(tokenizer, text: str):
    """`tokenizer(text)`'s ids and character offsets straight from the Rust backend (a `tokenizers.Encoding`), which
    spares the wrapper's per-call Python work; None where the wrapper would do more than call it — another call path,
    or truncation, padding or special-token splitting left set on the backend (the wrapper resets those first)."""
    if not _calls_backend_only(type(tokenizer)):
        return None
    backend = tokenizer.backend_tokenizer
    if backend.truncation or backend.padding or backend.encode_special_tokens != tokenizer.split_special_tokens:
        return None
    return backend.encode(text, add_special_tokens=True)


def encode(tokenizer, text: str, *, target: bool = False, limit: int | None = None, truncate: bool = False,
            what: str = "text", model_name: str = "the model") -> Encoded:
    """Tokenize; over `limit` tokens either truncate (when asked) or refuse with a sentence offering truncation."""
    truncating = truncate and limit is not None
    direct = None if target or truncating else _backend_encoding(tokenizer, text)
    if direct is not None:
        ids, offsets = direct.ids, direct.offsets
    else:
        kwargs = {"text_target": text} if target else {"text": text}
        if truncating:
            kwargs.update(truncation=True, max_length=limit)
        fast = getattr(tokenizer, "is_fast", False)
        encoding = tokenizer(**kwargs, return_offsets_mapping=fast)
        ids = list(encoding["labels"] if target and "labels" in encoding else encoding["input_ids"])
        # a target may be tokenized in its own mode (Marian): its tokens are read by decoding instead
        offsets = encoding.get("offset_mapping") if fast and not target else None
    if not ids:
        raise InputError(f"The {what} gives no tokens for {model_name}; type words the model's tokenizer knows.")
    if limit is not None and len(ids) > limit:
        raise InputError(
            f"The {what} has {len(ids)} tokens but {model_name} accepts at most {limit}; shorten it, or truncate it "
            f"to the first {limit} tokens (truncate=True)."
        )
    if offsets is not None:
        tokens = tokens_from_offsets(tokenizer, ids, offsets, text)
    else:
        tokens = tokens_for_ids(tokenizer, ids, text)
    return Encoded(ids, tokens)


def _pad(sequences: list[list[int]], pad_id: int, left: bool) -> tuple[torch.Tensor, torch.Tensor]:
    if len(sequences) == 1:  # nothing to pad: (1, n) ids and a mask of ones
        ids = torch.tensor(sequences)
        return ids, torch.ones_like(ids)
    width = max(len(s) for s in sequences)
    ids, mask = [], []
    for sequence in sequences:
        padding = [pad_id] * (width - len(sequence))
        ids.append(padding + sequence if left else sequence + padding)
        ones, zeros = [1] * len(sequence), [0] * len(padding)
        mask.append(zeros + ones if left else ones + zeros)
    return torch.tensor(ids), torch.tensor(mask)


def _crop(weights: np.ndarray, row: int, q_len: int, k_len: int, q_width: int, k_width: int, left: bool,
          queries_left: bool | None = None):
    """One example's (layers, heads, q, k) out of a padded (layers, batch, heads, Q, K) batch.

    `left`: the keys (and, unless `queries_left` says otherwise, the queries) are left-padded.
    """
    queries_left = left if queries_left is None else queries_left
    q0 = q_width - q_len if queries_left else 0
    k0 = k_width - k_len if left else 0
    return np.ascontiguousarray(weights[:, row, :, q0 : q0 + q_len, k0 : k0 + k_len])


def _decoder_start(model) -> int:
    start = getattr(model.generation_config, "decoder_start_token_id", None)
    if start is None:
        start = model.config.decoder_start_token_id
    if start is None:
        raise InputError("This encoder-decoder model has no decoder_start_token_id in its config.")
    return int(start)


def _pad_id(tokenizer, model) -> int:
    for candidate in (tokenizer.pad_token_id, model.config.pad_token_id, tokenizer.eos_token_id):
        if candidate is not None:
            return int(candidate)
    return 0


# ----------------------------------------------------------------------------------------------------------------
# Public API

def capture(handle: ModelHandle, text: str, target: str | None = None, truncate: bool = False) -> AttentionCapture:
    """Run the model once on `text` (and, for encoder-decoder models, force-decode `target`) and return its attention.

    Encoder-only and decoder-only models give a "self" map; encoder-decoder models give "encoder", "decoder" and
    "cross" maps (without a target, only "encoder": use `generate` to let the model write the target).
    Text longer than the model's positions raises InputError, unless `truncate=True` keeps the first tokens.
    """
    return capture_batch(handle, [text], None if target is None else [target], truncate=truncate)[0]


@dataclass
class Batch:
    """Checked, tokenized and padded inputs for one forward pass; `capture` and `capture_lazy` both start here."""

    texts: list[str]
    targets: list[str] | None
    sources: list[Encoded]
    decoded: list[Encoded] | None  # target tokens, when force-decoding
    inputs: dict[str, torch.Tensor]
    left_padded: bool
    decoder_start: Token | None = None

    def decoder_keys(self, row: int) -> list[Token]:
        """Decoder self-attention keys: the start token, then the target tokens but the last (teacher forcing)."""
        return [self.decoder_start] + self.decoded[row].tokens[:-1]


def prepare_batch(handle: ModelHandle, texts: list[str], targets: list[str] | None = None, truncate: bool = False,
                  mode: str = "full") -> Batch:
    """Check and tokenize the examples, refuse what would not fit (positions, ATTNVIZ_MAX_CHARS, the memory budget
    for `mode` "full" or "lazy"), and build the padded model inputs."""
    if not texts:
        raise InputError("No texts given; pass at least one.")
    texts = [check_text_length(check_text(text)) for text in texts]
    if targets is not None:
        if not handle.is_seq2seq:
            raise InputError(
                f"{handle.name} is an {handle.kind} model: it has no target side. Give only the text, or choose a "
                "translation (encoder-decoder) model for a pair."
            )
        if len(targets) != len(texts):
            raise InputError(f"Got {len(texts)} texts but {len(targets)} targets; give one target per text.")
        targets = [check_text_length(check_text(target, "target"), "target") for target in targets]
    tokenizer, model = handle.tokenizer, handle.model
    limit = handle.max_positions
    sources = [encode(tokenizer, text, limit=limit, truncate=truncate, model_name=handle.name) for text in texts]
    pad_id = _pad_id(tokenizer, model)
    left = getattr(tokenizer, "padding_side", "right") == "left"
    input_ids, attention_mask = _pad([s.ids for s in sources], pad_id, left)
    inputs = {"input_ids": input_ids.to(model.device), "attention_mask": attention_mask.to(model.device)}
    batch = Batch(texts, targets, sources, None, inputs, left)
    if targets is not None:
        batch.decoded = [encode(tokenizer, target, target=True, limit=limit, truncate=truncate, what="target",
                                model_name=handle.name) for target in targets]
        start = _decoder_start(model)
        batch.decoder_start = Token(str(tokenizer.convert_ids_to_tokens(start)), -1, -1, special=True)
        # Teacher forcing: the decoder reads the start token then the target; row i produces target token i.
        decoder_ids, decoder_mask = _pad([[start] + d.ids[:-1] for d in batch.decoded], pad_id, left=False)
        inputs["decoder_input_ids"] = decoder_ids.to(model.device)
        inputs["decoder_attention_mask"] = decoder_mask.to(model.device)
    target_width = inputs["decoder_input_ids"].shape[1] if targets is not None else 0
    check_budget(handle, input_ids.shape[1], target_width, mode=mode, batch=len(texts))
    return batch


def _fewer_outputs(model) -> dict:
    """Keyword arguments that spare memory nobody reads: one row of logits, no key/value cache."""
    return dict(_fewer_outputs_of(type(model)))


@functools.lru_cache(maxsize=64)
def _fewer_outputs_of(model_class: type) -> dict:
    parameters = inspect.signature(model_class.forward).parameters
    kwargs = {}
    if "logits_to_keep" in parameters:
        kwargs["logits_to_keep"] = 1
    if "use_cache" in parameters:
        kwargs["use_cache"] = False
    return kwargs


# model -> {whether only the encoder runs: (attention calls, id of the last calling module) in a complete pass}
_PASS_ENDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def run_batch(handle: ModelHandle, batch: Batch, recorder_class: type[Recorder] = Recorder) -> Recorder:
    """One forward pass over `batch` with a recorder of `recorder_class`; only the encoder when there is no target.

    The pass runs up to the model's last attention call: a complete pass of the same kind (the first one) shows where
    that is, and later passes stop there, skipping what follows (the last feed-forward block, pooler, logits)."""
    model = handle.model
    encoder_only = handle.is_seq2seq and batch.decoded is None
    ends = _PASS_ENDS.setdefault(model, {})
    with recording(model, recorder_class) as recorder:
        recorder.stop_after = ends.get(encoder_only)
        try:
            if encoder_only:
                model.get_encoder()(input_ids=batch.inputs["input_ids"], attention_mask=batch.inputs["attention_mask"])
            else:
                model(**batch.inputs, **_fewer_outputs(model))
        except Exception:
            if not recorder.complete:  # (a model may wrap what its layers raise in an error of its own)
                raise
        else:
            ends[encoder_only] = (recorder.seen, recorder.last_module)
    return recorder


def capture_batch(handle: ModelHandle, texts: list[str], targets: list[str] | None = None,
                  truncate: bool = False) -> list[AttentionCapture]:
    """`capture` for several examples in one padded batch; each result holds only its own (unpadded) tokens."""
    batch = prepare_batch(handle, texts, targets, truncate)
    recorder = run_batch(handle, batch)
    if not recorder.all_finite():
        raise InputError(NOT_FINITE)
    layers = _layers_by_role(handle.model, recorder, handle.is_seq2seq)
    names = {role: layer_names(recorder, role_layers) for role, role_layers in layers.items()}
    _LAYOUTS[handle.model] = {  # where later captures write each layer; only for roles whose modules run once
        name: (role, index, len(role_layers))
        for role, role_layers in layers.items()
        if len({name for name, _ in role_layers}) == len(role_layers)
        for index, (name, _) in enumerate(role_layers)
    }
    stacked = {role: _stack(recorder, role_layers) for role, role_layers in layers.items()}  # (layers, batch, …)
    recorder.calls.clear()  # the stacks hold the values now; drop the per-layer tensors
    with values_checked():  # every weight was checked above, as the model computed it
        return [_example(handle, batch, stacked, names, row) for row in range(len(batch.texts))]


def _example(handle: ModelHandle, batch: Batch, stacked: dict[str, np.ndarray], names: dict[str, list[str]],
             row: int) -> AttentionCapture:
    """Example `row` of a captured batch, with its own tokens only (no padding)."""
    source, width, left = batch.sources[row], batch.inputs["input_ids"].shape[1], batch.left_padded
    n = len(source.ids)
    maps: dict[str, AttentionMap] = {}
    if not handle.is_seq2seq:
        weights = _crop(stacked["self"], row, n, n, width, width, left)
        maps["self"] = AttentionMap("self", weights, source.tokens, source.tokens, names["self"],
                                    causal=handle.kind == "decoder")
    else:
        weights = _crop(stacked["encoder"], row, n, n, width, width, left)
        maps["encoder"] = AttentionMap("encoder", weights, source.tokens, source.tokens, names["encoder"])
        if batch.decoded is not None:
            target = batch.decoded[row]
            m, t_width = len(target.ids), batch.inputs["decoder_input_ids"].shape[1]
            self_w = _crop(stacked["decoder"], row, m, m, t_width, t_width, False)
            cross_w = _crop(stacked["cross"], row, m, n, t_width, width, left, queries_left=False)
            maps["decoder"] = AttentionMap("decoder", self_w, target.tokens, batch.decoder_keys(row),
                                           names["decoder"], causal=True)
            maps["cross"] = AttentionMap("cross", cross_w, target.tokens, source.tokens, names["cross"])
    target_text = None if batch.targets is None else batch.targets[row]
    return AttentionCapture(handle.name, handle.device, maps, source_text=batch.texts[row], target_text=target_text)


def generate(handle: ModelHandle, text: str, max_new_tokens: int = 32) -> AttentionCapture:
    """Let the model write (greedy decoding) and record, for every generated token, what it attended to.

    Encoder-decoder models: `steps[i]` holds the decoder self-attention and cross-attention of the step that produced
    token i, and the "encoder", "decoder" and "cross" maps cover the whole generated target (the same rows stacked).
    Decoder-only models: `steps[i]` holds the self-attention over the prompt and the previous tokens; the "self" map
    covers the prompt and all generated tokens but the last (the last one was never read back by the model).
    """
    text = check_text_length(check_text(text))
    if handle.kind == "encoder":
        raise InputError(f"{handle.name} is an encoder-only model and cannot generate text; use capture instead.")
    if not isinstance(max_new_tokens, int) or max_new_tokens < 1:
        raise InputError(f"max_new_tokens must be a positive whole number, not {max_new_tokens!r}.")
    tokenizer, model = handle.tokenizer, handle.model
    limit = handle.max_positions
    if limit is not None and not handle.is_seq2seq:
        limit = max(1, limit - max_new_tokens)  # the prompt and what is written share the positions
    source = encode(tokenizer, text, limit=limit, model_name=handle.name)
    written = 0 if handle.is_seq2seq else max_new_tokens  # decoder-only: the prompt and what is written share a stack
    check_budget(handle, len(source.ids) + written, max_new_tokens if handle.is_seq2seq else 0, mode="full")
    input_ids = torch.tensor([source.ids], device=model.device)
    with recording(model) as recorder:
        output = model.generate(
            input_ids=input_ids,
            attention_mask=torch.ones_like(input_ids),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            num_beams=1,
            pad_token_id=_pad_id(tokenizer, model),
        )
    sequence = output[0].tolist()
    roles = _modules_by_role(model, recorder, handle.is_seq2seq)
    if handle.is_seq2seq:
        return _seq2seq_generation(handle, text, source, sequence[1:], recorder, roles)
    return _decoder_generation(handle, text, source, sequence[len(source.ids):], recorder, roles)


def _generated_tokens(tokenizer, ids: list[int]) -> tuple[str, list[Token]]:
    specials = special_ids(tokenizer)
    written = tokenizer.decode([i for i in ids if i not in specials], skip_special_tokens=True,
                               clean_up_tokenization_spaces=False).strip()
    return written, tokens_for_ids(tokenizer, ids, written)


def _step_rows(recorder: Recorder, names: list[str], calls: range) -> list[np.ndarray]:
    """Per forward call (decode step), each layer's last query row: [(layers, heads, keys_at_step)]."""
    return [np.stack([recorder.calls[name][call].numpy()[0, :, -1, :] for name in names]) for call in calls]


def _seq2seq_generation(handle, text, source, generated, recorder, roles) -> AttentionCapture:
    tokenizer, model = handle.tokenizer, handle.model
    written, target_tokens = _generated_tokens(tokenizer, generated)
    steps_count = len(generated)
    self_rows = _step_rows(recorder, roles["decoder"], range(steps_count))  # step i: (layers, heads, i + 1)
    cross_rows = _step_rows(recorder, roles["cross"], range(steps_count))  # step i: (layers, heads, source)
    layers, heads = self_rows[0].shape[:2]
    decoder = np.zeros((layers, heads, steps_count, steps_count), dtype=np.float32)  # causal cells stay exactly 0
    for i, row in enumerate(self_rows):
        decoder[:, :, i, : i + 1] = row
    cross = np.stack(cross_rows, axis=2)  # (layers, heads, steps, source)
    start = _decoder_start(model)
    keys = [Token(str(tokenizer.convert_ids_to_tokens(start)), -1, -1, special=True)] + target_tokens[:-1]
    maps = {
        "encoder": AttentionMap("encoder", _stack(recorder, [(name, 0) for name in roles["encoder"]])[:, 0], source.tokens, source.tokens,
                                roles["encoder"]),
        "decoder": AttentionMap("decoder", decoder, target_tokens, keys, roles["decoder"], causal=True),
        "cross": AttentionMap("cross", cross, target_tokens, source.tokens, roles["cross"]),
    }
    steps = [GenerationStep(token, self_rows[i], cross_rows[i]) for i, token in enumerate(target_tokens)]
    return AttentionCapture(handle.name, handle.device, maps, source_text=text, target_text=written, steps=steps)


def _decoder_generation(handle, text, source, generated, recorder, roles) -> AttentionCapture:
    tokenizer = handle.tokenizer
    names = roles["self"]
    prompt_length = len(source.ids)
    # Offsets of generated tokens refer to the generated text; shift them past the prompt to index text + written.
    written = tokenizer.decode(generated, skip_special_tokens=True, clean_up_tokenization_spaces=False)
    full_text = text + written
    new_tokens = tokens_for_ids(tokenizer, generated, written)
    shifted = [Token(t.text, t.start + len(text), t.end + len(text), t.special) if not t.special else t
               for t in new_tokens]
    prefill = _stack(recorder, [(name, 0) for name in names])[:, 0]  # (layers, heads, prompt, prompt)
    rows = [prefill[:, :, -1, :]] + _step_rows(recorder, names, range(1, len(generated)))
    total = prompt_length + len(generated) - 1
    layers, heads = prefill.shape[:2]
    weights = np.zeros((layers, heads, total, total), dtype=np.float32)
    weights[:, :, :prompt_length, :prompt_length] = prefill
    for call in range(1, len(generated)):
        position = prompt_length + call - 1
        weights[:, :, position, : position + 1] = rows[call]
    tokens = source.tokens + shifted[:-1]
    maps = {"self": AttentionMap("self", weights, tokens, tokens, names, causal=True)}
    steps = [GenerationStep(token, rows[i], None) for i, token in enumerate(shifted)]
    return AttentionCapture(handle.name, handle.device, maps, source_text=full_text, target_text=written.strip(),
                            steps=steps)
