"""The data that flows from capture to analysis, figures and export: plain numpy, no torch."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np

from attnviz.errors import InputError

MAP_KINDS = ("self", "encoder", "decoder", "cross")
NOT_FINITE = (
    "Attention weights must be finite and non-negative; these hold NaN, ∞ or negative values (check the model's "
    "dtype, or the file they came from)."
)
_VALUES_CHECKED: ContextVar[bool] = ContextVar("attnviz_values_checked", default=False)


@contextmanager
def values_checked():
    """AttentionMaps made inside this block skip their scan for NaN, ∞ and negative weights (their shapes are still
    checked): for a caller that checked the values where it computed them, as capture does for each softmax."""
    token = _VALUES_CHECKED.set(True)
    try:
        yield
    finally:
        _VALUES_CHECKED.reset(token)


@dataclass(frozen=True)
class Token:
    text: str  # what a person reads: "早上", "morning" — never "▁morning", "Ġ", "##ing"
    start: int  # character offset into the original text; -1 for special tokens
    end: int
    special: bool = False


@dataclass(frozen=True)
class AttentionMap:
    kind: str  # "self" | "encoder" | "decoder" | "cross"
    weights: np.ndarray  # float32 (layers, heads, queries, keys); rows sum to 1; masked cells exactly 0
    query_tokens: list[Token]
    key_tokens: list[Token]
    layer_names: list[str]  # module paths, e.g. "model.decoder.layers.3.encoder_attn"
    causal: bool = False  # True when keys after the query are masked (decoder self-attention)

    def __post_init__(self):
        if self.kind not in MAP_KINDS:
            raise InputError(f"Unknown attention map kind {self.kind!r}; use one of {', '.join(MAP_KINDS)}.")
        weights = np.asarray(self.weights, dtype=np.float32)
        if weights.ndim != 4:
            raise InputError(
                f"Attention weights must have 4 dimensions (layers, heads, queries, keys); got shape {weights.shape}."
            )
        # min/max reduce without allocating (maps can be views of huge or zero-stride arrays); NaN propagates.
        if weights.size and not _VALUES_CHECKED.get() and not (weights.min() >= 0 and np.isfinite(weights.max())):
            raise InputError(NOT_FINITE)
        layers, _heads, queries, keys = weights.shape
        if queries != len(self.query_tokens) or keys != len(self.key_tokens):
            raise InputError(
                f"Weights of shape {weights.shape} do not match {len(self.query_tokens)} query tokens and "
                f"{len(self.key_tokens)} key tokens; pass one token per query row and per key column."
            )
        if layers != len(self.layer_names):
            raise InputError(f"Weights have {layers} layers but {len(self.layer_names)} layer names were given.")
        object.__setattr__(self, "weights", weights)

    @property
    def num_layers(self) -> int:
        return self.weights.shape[0]

    @property
    def num_heads(self) -> int:
        return self.weights.shape[1]


@dataclass(frozen=True)
class GenerationStep:
    """What one generated token looked at when it was produced (the decode-step view)."""

    token: Token  # the token produced at this step
    self_weights: np.ndarray  # float32 (layers, heads, keys): the step's query row over prompt + previous tokens
    cross_weights: np.ndarray | None  # float32 (layers, heads, source keys); None for decoder-only models


@dataclass(frozen=True)
class AttentionCapture:
    model: str
    device: str
    maps: dict[str, AttentionMap]  # "self" for one-stack models; "encoder", "decoder", "cross" for seq2seq
    source_text: str = ""
    target_text: str | None = None
    steps: list[GenerationStep] | None = None  # per generated token, when generated rather than given
    meta: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)  # model, weights, device, versions, options: attnviz.provenance

    def __getitem__(self, kind: str) -> AttentionMap:
        try:
            return self.maps[kind]
        except KeyError:
            raise InputError(
                f"This capture has no {kind!r} map; it has {', '.join(self.maps) or 'none'}."
            ) from None
