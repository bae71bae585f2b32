"""The data that flows from capture to analysis, figures and export: plain numpy, no torch."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from attnviz.errors import InputError, Phrase
from attnviz.indexing import indices


@dataclass(frozen=True)
class MapSpec:
    """One kind of attention map: its name, which is also the role of the attention modules that make it, and the
    tokens along each axis.

    Token sequences: "source", the input text's tokens; "target", the target tokens, row i being the step that
    *produces* target token i (its decoder input is the previous token), so cross-attention reads "while writing
    `morning` the model looked at 早上"; "decoder_input", what the decoder reads: the start token, then the target
    tokens but the last (teacher forcing). Source tokens point into the source text, the others into the target.
    """

    kind: str  # "self" | "encoder" | "decoder" | "cross"
    queries: str  # the rows: "source" | "target"
    keys: str  # the columns: "source" | "decoder_input"
    causal: bool | None  # keys after the query are masked; None: when the model is decoder-only

    def is_causal(self, model_kind: str) -> bool:
        """Whether this map is causal for a model of `model_kind` ("encoder", "decoder" or "encoder-decoder")."""
        return model_kind == "decoder" if self.causal is None else self.causal

    @property
    def query_text(self) -> str:
        """Which text the query tokens' offsets point into: "source" or "target"."""
        return "source" if self.queries == "source" else "target"

    @property
    def key_text(self) -> str:
        return "source" if self.keys == "source" else "target"


# One-stack models give "self"; encoder-decoder models "encoder", and with a target "decoder" and "cross".
MAP_SPECS = {
    spec.kind: spec
    for spec in (
        MapSpec("self", queries="source", keys="source", causal=None),
        MapSpec("encoder", queries="source", keys="source", causal=False),
        MapSpec("decoder", queries="target", keys="decoder_input", causal=True),
        MapSpec("cross", queries="target", keys="source", causal=False),
    )
}
MAP_KINDS = tuple(MAP_SPECS)


def map_specs(seq2seq: bool, with_target: bool) -> list[MapSpec]:
    """The maps one run gives, in order: "self" for one-stack models; "encoder", then with a target "decoder" and
    "cross", for encoder-decoder models."""
    if not seq2seq:
        return [MAP_SPECS["self"]]
    return [MAP_SPECS[kind] for kind in (("encoder", "decoder", "cross") if with_target else ("encoder",))]


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
    special: bool = False  # </s>, [CLS], <pad> … — never <unk>
    unknown: bool = False  # the model read <unk> (or byte-fallback pieces) here: shown as unknown, never as text


class Deferred:
    """A value computed when first asked for, once: what a capture hands out that most views never read (the value
    norms), so that a capture costs only what is looked at. Pickled and copied as the value itself."""

    __slots__ = ("_compute", "_value")

    def __init__(self, compute):
        self._compute, self._value = compute, None

    def get(self):
        if self._compute is not None:  # (two threads racing compute the same value twice; both keep it)
            self._value, self._compute = self._compute(), None
        return self._value

    def __reduce__(self):
        return (_value_of, (self.get(),))


def _value_of(value):
    return value


class _NormsField:
    """AttentionMap.value_norms: an array (or None) as given, or a `Deferred` computed and checked on first read."""

    slot = "_value_norms"

    def __get__(self, instance, owner=None):
        if instance is None:
            return None  # the field's default
        value = instance.__dict__[self.slot]
        if isinstance(value, Deferred):
            value = instance.__dict__[self.slot] = instance.checked_norms(value.get(), scan=False)  # as computed
        return value

    def __set__(self, instance, value):
        instance.__dict__[self.slot] = value


@dataclass(frozen=True)
class AttentionMap:
    kind: str  # "self" | "encoder" | "decoder" | "cross"
    weights: np.ndarray  # float32 (layers, heads, queries, keys); rows sum to 1; masked cells exactly 0
    query_tokens: list[Token]
    key_tokens: list[Token]
    layer_names: list[str]  # module paths, e.g. "model.decoder.layers.3.encoder_attn"
    causal: bool = False  # True when keys after the query are masked (decoder self-attention)
    # float32 (layers, heads, keys): ‖f_h(x_j)‖, each key's value vector through the head's slice of the output
    # projection (`attention.values`); None when not captured (an architecture whose projection attnviz cannot find).
    # A capture may give a `Deferred` instead: the norms are computed when first read.
    value_norms: np.ndarray | None = _NormsField()
    # The model's numbers of the layers and heads this map holds when it holds only some of them (a block of an
    # on-demand capture, one head picked out): titles, grids and files name layers and heads by these, never by
    # their position in `weights`. None: all of the model's, in order.
    layer_numbers: tuple[int, ...] | None = None
    head_numbers: tuple[int, ...] | None = None

    def __post_init__(self):
        if self.kind not in MAP_KINDS:
            raise InputError("map_kind_unknown", kind=self.kind, kinds=", ".join(MAP_KINDS))
        weights = np.asarray(self.weights, dtype=np.float32)
        if weights.ndim != 4:
            raise InputError("map_dimensions", shape=weights.shape)
        # min/max reduce without allocating (maps can be views of huge or zero-stride arrays); NaN propagates.
        if weights.size and not _VALUES_CHECKED.get() and not (weights.min() >= 0 and np.isfinite(weights.max())):
            raise InputError("weights_not_finite")
        layers, _heads, queries, keys = weights.shape
        if queries != len(self.query_tokens) or keys != len(self.key_tokens):
            raise InputError(
                "map_tokens_mismatch", shape=weights.shape, queries=len(self.query_tokens), keys=len(self.key_tokens)
            )
        if layers != len(self.layer_names):
            raise InputError("map_layer_names", layers=layers, names=len(self.layer_names))
        object.__setattr__(self, "weights", weights)
        self._check_numbers(layers, _heads)
        if not isinstance(self.__dict__[_NormsField.slot], Deferred):
            object.__setattr__(self, "value_norms", self.checked_norms(self.value_norms))

    def _check_numbers(self, layers: int, heads: int) -> None:
        for name, numbers, count in (
            ("layer_numbers", self.layer_numbers, layers),
            ("head_numbers", self.head_numbers, heads),
        ):
            if numbers is None:
                continue
            numbers = tuple(int(n) for n in numbers)
            if len(numbers) != count:
                raise InputError("map_numbers", what=name, given=len(numbers), count=count)
            object.__setattr__(self, name, numbers)

    def layer_number(self, index: int) -> int:
        """The model's number of the layer at `index` of this map's layer axis."""
        return self.layer_numbers[index] if self.layer_numbers is not None else int(index)

    def head_number(self, index: int) -> int:
        """The model's number of the head at `index` of this map's head axis."""
        return self.head_numbers[index] if self.head_numbers is not None else int(index)

    def checked_norms(self, norms, scan: bool | None = None) -> np.ndarray | None:
        """`norms` as float32 (layers, heads, keys) for this map's weights, or InputError; scanned for NaN, ∞ and
        negative values unless `scan` is False (default: unless inside `values_checked`)."""
        if norms is None:
            return None
        norms = np.asarray(norms, dtype=np.float32)
        layers, heads, _queries, keys = self.weights.shape
        if norms.shape != (layers, heads, keys):
            raise InputError("values_shape", shape=norms.shape, expected=(layers, heads, keys))
        scan = not _VALUES_CHECKED.get() if scan is None else scan
        if norms.size and scan and not (norms.min() >= 0 and np.isfinite(norms.max())):
            raise InputError("values_not_finite")
        return norms

    @property
    def num_layers(self) -> int:
        return len(self.layer_names)  # one name per layer, checked above

    @property
    def row_tokens(self) -> list[Token]:
        """The tokens that name the rows where they are shown (figures, CSV): a decoder's self-attention row by the
        decoder's input at its position (its keys: start token, then the target but its last token), so that rows
        and columns name the same tokens; any other row by its query token (a decoder row of cross-attention by
        the token that step produces, as capture names it)."""
        if self.kind == "decoder" and len(self.query_tokens) == len(self.key_tokens):
            return list(self.key_tokens)
        return self.query_tokens

    @property
    def num_heads(self) -> int:
        return self.weights.shape[1]


@dataclass(frozen=True)
class GenerationStep:
    """What one generated token looked at when it was produced (the decode-step view)."""

    token: Token  # the token produced at this step
    self_weights: np.ndarray  # float32 (layers, heads, keys): the step's query row over prompt + previous tokens
    cross_weights: np.ndarray | None  # float32 (layers, heads, source keys); None for decoder-only models
    probability: float | None = None  # the probability the model gave this token when it wrote it (None: unknown)
    alternatives: tuple[tuple[str, float], ...] = ()  # the step's most probable tokens (text, probability), best first


def position(index, size: int, what: str) -> int:
    """One index along an axis of `size` (negative ones count from the end), or an InputError naming the valid ones."""
    return indices([index], size, what)[0]


def missing_map(kind: str, kinds: Sequence[str]) -> InputError:
    """The error for a map of a kind the run did not make, naming the kinds it did."""
    return InputError("capture_no_map", kind=kind, kinds=", ".join(kinds) if kinds else Phrase("capture_maps.none"))


def row_span(rows: int | tuple[int, int] | None, size: int) -> tuple[int, int]:
    """Query rows as (start, stop) from one row index, a (start, stop) pair or None (all of them)."""
    if rows is None:
        return 0, size
    if not isinstance(rows, Sequence) or isinstance(rows, (str, bytes)):
        first = position(rows, size, "query row")
        return first, first + 1
    if len(rows) != 2:
        raise InputError("range_not_a_pair", what=Phrase("analysis.axis.query"), span=rows)
    start, stop = (position(end, size + 1, "query range end") for end in rows)
    if start >= stop or rows[0] < 0 or rows[1] < 0:
        raise InputError("range_outside", what=Phrase("analysis.axis.query"), start=rows[0], stop=rows[1], size=size)
    return start, stop


@runtime_checkable
class AttentionResult(Protocol):
    """What a run's attention answers, whether every weight is held (`AttentionCapture`, from `capture`) or each
    is computed exactly when asked (`LazyCapture`, from `capture_lazy`), so that callers need not tell them apart.
    Kinds and token conventions are those of `MAP_SPECS`."""

    model: str
    device: str
    source_text: str
    target_text: str | None

    @property
    def kinds(self) -> list[str]:
        """The map kinds of this run, in `map_specs` order."""

    is_complete: bool  # True when every weight is held; False when each is computed when asked

    def shape(self, kind: str) -> tuple[int, int, int, int]:
        """(layers, heads, queries, keys) of the map, computing nothing."""

    def tokens(self, kind: str) -> tuple[list[Token], list[Token]]:
        """(query tokens, key tokens) of the map."""

    def layer_names(self, kind: str) -> list[str]:
        """Module paths of the map's layers."""

    def causal(self, kind: str) -> bool:
        """Whether keys after each query are masked."""

    def head(self, kind: str, layer: int, head: int, rows: int | tuple[int, int] | None = None) -> np.ndarray:
        """float32 (queries, keys) of one head: query rows `rows` (one index, (start, stop) or None = all)."""

    def value_norms(self, kind: str) -> np.ndarray | None:
        """float32 (layers, heads, keys): each key's value norm ‖f_h(x_j)‖ (`AttentionMap.value_norms`), or None."""


@dataclass(frozen=True)
class AttentionCapture:
    """Every weight of a run, held (an `AttentionResult`)."""

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
            raise missing_map(kind, self.maps) from None

    is_complete: ClassVar[bool] = True  # every weight is held

    @property
    def kinds(self) -> list[str]:
        return list(self.maps)

    def shape(self, kind: str) -> tuple[int, int, int, int]:
        return self[kind].weights.shape

    def tokens(self, kind: str) -> tuple[list[Token], list[Token]]:
        amap = self[kind]
        return amap.query_tokens, amap.key_tokens

    def layer_names(self, kind: str) -> list[str]:
        return self[kind].layer_names

    def causal(self, kind: str) -> bool:
        return self[kind].causal

    def value_norms(self, kind: str) -> np.ndarray | None:
        return self[kind].value_norms

    def head(self, kind: str, layer: int, head: int, rows: int | tuple[int, int] | None = None) -> np.ndarray:
        weights = self[kind].weights  # (layers, heads, queries, keys)
        start, stop = row_span(rows, weights.shape[2])
        return weights[position(layer, weights.shape[0], "layer"), position(head, weights.shape[1], "head"), start:stop]
