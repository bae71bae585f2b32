"""What the app's pages do between their widgets and the library, without Streamlit.

- `ViewState`: everything a page shows (model, text, target, layer, head, view, …); `from_query_params` and
  `to_query_params` turn it into a shareable link and back.
- `custom_models_allowed` / `model_refusal`: the one place that decides which models a deployment offers.
- `analyse`: the one call that turns (model, text, target, mode) into an `AttentionCapture`.
- `prepare_map` (special tokens hidden, pieces merged into words), `replay` (the rows written so far) and
  `head_selection` (which layers and heads a view means, as keyword arguments for `attnviz.figures`).
- `exported_title` / `export_size`: a figure as a file shows it.
- `explainer_walk`, `multi_head_walkthrough`: the numbers of the "How attention works" page; `explainer_start` and
  `explainer_field` keep its edited Q, K, V in the view (and so in the link).

Functions take what they need as arguments and return new values, so the app can cache on their inputs; the
environment is read only where a setting lives (custom models, torch threads).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING

import numpy as np

from attnviz import analysis
from attnviz.errors import InputError
from attnviz.figures.explainer import SEED_K, SEED_Q, SEED_V
from attnviz.types import AttentionCapture, AttentionMap, Token

if TYPE_CHECKING:
    from attnviz.attention.math import AttentionSteps
    from attnviz.attention.ondemand import LazyCapture

DEFAULT_MODEL = "demo-zh-en"
DEFAULT_TEXT = "早上好！"
DEFAULT_TARGET = "Good morning!"
LANGUAGES = ("en", "zh")
DEVICES = ("auto", "npu", "cuda", "cpu")
MODES = ("generate", "pair")  # let the model write the target, or force-decode a given translation pair
# alignment: the model's alignment heads; head: one layer and head; layer: mean of one layer's heads; all: mean of all
AGGREGATIONS = ("alignment", "head", "layer", "all")
SELF_AGGREGATIONS = ("head", "layer", "all")  # self-attention has no alignment heads
STACKS = ("encoder", "decoder")  # which self-attention of an encoder-decoder model the Self-attention page shows
MAX_NEW_TOKENS = 48
MAX_URL_TEXT = 2000  # characters of text/target kept in a shared link
CUSTOM_MODELS_ENV = "ATTNVIZ_ALLOW_CUSTOM_MODELS"
LAZY_FROM_TOKENS_ENV = "ATTNVIZ_LAZY_FROM_TOKENS"
LAZY_FROM_TOKENS = 1024
LONG_WINDOW = 128  # tokens of a long map shown exactly at once (rows and columns of one block)
LONG_BINS = 256  # bins per side of a long map's pooled overview
THREADS_ENV = "ATTNVIZ_TORCH_THREADS"
_TRUE = ("1", "true", "yes", "on")


# ----------------------------------------------------------------------------------------------------------------------
# View state and the URL


@dataclass
class ViewState:
    """What the pages show; every field round-trips through the URL query parameters of the same name."""

    model: str = DEFAULT_MODEL
    device: str = "auto"
    lang: str = "en"
    text: str = DEFAULT_TEXT
    target: str = DEFAULT_TARGET
    mode: str = "generate"
    view: str = "alignment"
    layer: int = 0
    head: int = 0
    words: bool = True  # merge subword pieces into words
    hide: bool = True  # hide special tokens (</s>, <pad>, [CLS] …)
    threshold: float = 0.1  # weakest link drawn in the alignment and head-line views
    step: int = 0  # generation step shown by the replay slider; 0 = all tokens
    stack: str = "encoder"  # Self-attention page: encoder or decoder self-attention of an encoder-decoder model
    self_view: str = "head"  # Self-attention page: one of SELF_AGGREGATIONS
    kind: str = "cross"  # Heads page: which map's heads
    stat: str = "entropy"  # Heads page: the statistic of the layer × head heatmap
    q: str = ""  # How attention works: the edited Q as "1,2;2,1;0,1" (rows split by ";"); empty = the seed's numbers
    k: str = ""
    v: str = ""


_CHOICES = {
    "device": DEVICES,
    "lang": LANGUAGES,
    "mode": MODES,
    "view": AGGREGATIONS,
    "stack": STACKS,
    "self_view": SELF_AGGREGATIONS,
    "kind": ("self", "encoder", "decoder", "cross"),
    "stat": tuple(analysis.STATISTICS),
}
ALWAYS_IN_URL = ("model", "text", "target", "layer", "head", "view")  # the shareable core, even at default values


def _parse(name: str, raw: str, default):
    """One query-parameter value as the field's type; ValueError when it cannot be read."""
    if isinstance(default, bool):
        lowered = raw.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(raw)
    if isinstance(default, int):
        value = int(raw)
        if value < 0:
            raise ValueError(raw)
        return value
    if isinstance(default, float):
        value = float(raw)
        if not 0.0 <= value <= 1.0:
            raise ValueError(raw)
        return value
    if name in EXPLAINER_SEEDS:
        return explainer_field(matrix_from_text(raw, name), name) if raw.strip() else ""
    value = raw[:MAX_URL_TEXT] if name in ("text", "target") else raw.strip()
    if name in _CHOICES and value not in _CHOICES[name]:
        raise ValueError(raw)
    if name == "model" and not value:
        raise ValueError(raw)
    return value


def from_query_params(params: Mapping[str, str | Sequence[str]]) -> tuple[ViewState, list[str]]:
    """The view a link describes, and the names of parameters that could not be read (those keep their defaults).

    Unknown parameters are ignored; a repeated parameter counts by its last value.
    """
    state = ViewState()
    unreadable = []
    for field in fields(ViewState):
        if field.name not in params:
            continue
        raw = params[field.name]
        if not isinstance(raw, str):
            raw = raw[-1] if raw else ""
        try:
            setattr(state, field.name, _parse(field.name, raw, getattr(state, field.name)))
        except ValueError:
            unreadable.append(field.name)
    return state, unreadable


def _format(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def to_query_params(state: ViewState) -> dict[str, str]:
    """The URL query parameters of a view: the shareable core always, other fields when not at their default."""
    defaults = asdict(ViewState())
    params = {}
    for name, value in asdict(state).items():
        if name in ALWAYS_IN_URL or value != defaults[name]:
            params[name] = _format(value)[:MAX_URL_TEXT] if name in ("text", "target") else _format(value)
    return params


# ----------------------------------------------------------------------------------------------------------------------
# Models


def custom_models_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the sidebar offers "any Hugging Face id or local folder" (ATTNVIZ_ALLOW_CUSTOM_MODELS, default on).

    The one place that decides it: a server deployment turns it off here, and attnviz.policy still limits what
    `load_model` accepts when it is on.
    """
    environ = os.environ if environ is None else environ
    return environ.get(CUSTOM_MODELS_ENV, "1").strip().lower() in _TRUE


def model_refusal(model: str, catalogue_names: Sequence[str], environ: Mapping[str, str] | None = None) -> str | None:
    """None when `model` may be loaded here, else why not (an i18n key: the app words it)."""
    if model in catalogue_names or custom_models_allowed(environ):
        return None
    return "error_custom_models_off"


# ----------------------------------------------------------------------------------------------------------------------
# Running a model


def interactive_threads(environ: Mapping[str, str] | None = None) -> int:
    """Torch threads for the app: ATTNVIZ_TORCH_THREADS, default 1.

    The app runs small inputs, one script thread per browser session: one intra-op thread each keeps sessions from
    oversubscribing the cores (with two threads per call on a busy 2-core machine a 16-token translation took ten
    times longer). Raise it for a single user with long inputs on a large model.
    """
    environ = os.environ if environ is None else environ
    raw = environ.get(THREADS_ENV, "1").strip()
    try:
        threads = int(raw)
    except ValueError:
        raise InputError(
            f"{THREADS_ENV}={raw!r} is not a number of threads; use a whole number such as 1 or 4."
        ) from None
    if threads < 1:
        raise InputError(f"{THREADS_ENV} must be at least 1; got {threads}.")
    return threads


def use_interactive_threads(environ: Mapping[str, str] | None = None) -> int:
    """Set torch's intra-op threads for the app (see `interactive_threads`); returns the number set."""
    import torch

    threads = interactive_threads(environ)
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads


def analysis_mode(handle, text: str, target: str, mode: str, environ: Mapping[str, str] | None = None) -> str:
    """How a page captures this input: "full" keeps every weight; "lazy" (`attnviz.attention.ondemand`) keeps each layer's
    queries and keys and computes the heads a page shows, for texts of ATTNVIZ_LAZY_FROM_TOKENS tokens or more, or
    whose whole map would not fit in the memory budget. A translation model's generation records every step in full;
    a long prompt for a decoder-only model is read, not continued."""
    from attnviz import memory

    if mode == "generate" and handle.is_seq2seq:
        return "full"
    n_source = len(handle.tokenizer(text)["input_ids"]) if text.strip() else 0
    n_target = len(handle.tokenizer(text_target=target)["input_ids"]) if handle.is_seq2seq and target.strip() else 0
    if n_source >= lazy_from_tokens(environ):
        return "lazy"
    full = memory.estimate_bytes(handle, n_source, n_target + bool(n_target), "full")  # + the decoder's start token
    return "lazy" if full > memory.budget_bytes() else "full"


def lazy_from_tokens(environ: Mapping[str, str] | None = None) -> int:
    """Texts of this many tokens or more are captured lazily (ATTNVIZ_LAZY_FROM_TOKENS, default 1,024)."""
    raw = (os.environ if environ is None else environ).get(LAZY_FROM_TOKENS_ENV, "").strip()
    try:
        return max(int(raw), 1) if raw else LAZY_FROM_TOKENS
    except ValueError:
        raise InputError(f"{LAZY_FROM_TOKENS_ENV} must be a whole number of tokens, not {raw!r}.") from None


def analyse(
    handle, text: str, target: str, mode: str, max_new_tokens: int = MAX_NEW_TOKENS, lazy: bool = False
) -> AttentionCapture | LazyCapture:
    """The capture a page shows: the model writes the target (mode "generate") or reads the given pair ("pair").

    Encoder-only models read the text; decoder-only models continue it when generating. `lazy` (see
    `analysis_mode`): a LazyCapture, which computes the layers and heads a page asks for (a decoder-only model then
    reads the text without continuing it).
    """
    from attnviz.attention.capture import capture
    from attnviz.attention.generation import generate
    from attnviz.attention.ondemand import capture_lazy

    if mode not in MODES:
        raise InputError(f"Unknown mode {mode!r}; use one of {', '.join(MODES)}.")
    read = capture_lazy if lazy else capture
    if handle.kind == "encoder":
        return read(handle, text)
    if mode == "generate" and not (lazy and handle.kind == "decoder"):
        return generate(handle, text, max_new_tokens=max_new_tokens)
    if handle.kind == "decoder":
        return read(handle, text)
    if not target or not target.strip():
        raise InputError("The target is empty; type the translation to force-decode, or let the model generate it.")
    return read(handle, text, target)


def is_lazy(result) -> bool:
    from attnviz.attention.ondemand import LazyCapture  # torch and the model code, only once a page has a result

    return isinstance(result, LazyCapture)


def kinds_of(result: AttentionCapture | LazyCapture) -> list[str]:
    """The map kinds a result has ("self", or "encoder", "decoder", "cross")."""
    return result.kinds if is_lazy(result) else list(result.maps)


def map_shape(result: AttentionCapture | LazyCapture, kind: str) -> tuple[int, int, int, int]:
    """(layers, heads, queries, keys) of a result's map, without computing a lazy one."""
    return result.shape(kind) if is_lazy(result) else result[kind].weights.shape


def whole_capture(result: AttentionCapture | LazyCapture, kinds: Sequence[str]) -> AttentionCapture:
    """A full capture of `kinds` (a lazy result computes them now, within the memory budget): for a page that draws
    a map whole, such as the cross-attention of a long source, whose rows are the few target tokens."""
    if not is_lazy(result):
        return result
    maps = {kind: result.map(kind) for kind in kinds if kind in result.kinds}
    return AttentionCapture(result.model, result.device, maps, result.source_text, result.target_text)


def token_window(size: int, start: int, length: int | None = None) -> tuple[int, int]:
    """(start, stop) of `length` tokens (default LONG_WINDOW) from `start`, kept inside a sequence of `size`."""
    length = max(1, min(LONG_WINDOW if length is None else length, size))
    start = min(max(start, 0), size - length)
    return start, start + length


def self_attention_kind(result: AttentionCapture | LazyCapture, stack: str) -> str:
    """The map the Self-attention page shows: "self" for one-stack models, else the chosen stack."""
    if "self" in kinds_of(result):
        return "self"
    if stack not in STACKS:
        raise InputError(f"Unknown stack {stack!r}; use encoder or decoder.")
    return stack


def map_texts(result: AttentionCapture, kind: str) -> tuple[str | None, str | None]:
    """(query text, key text) the tokens of a map point into, for the word view."""
    source, target = result.source_text, result.target_text
    return {
        "self": (source, source),
        "encoder": (source, source),
        "decoder": (target, target),
        "cross": (target, source),
    }[kind]


def step_count(amap: AttentionMap) -> int:
    """How many steps the replay slider has: one per query row shown (per target token, or word in the word view)."""
    return len(amap.query_tokens)


def prepare_map(result: AttentionCapture, kind: str, *, hide: bool = False, words: bool = False) -> AttentionMap:
    """The map a page draws: special tokens hidden, then subword pieces merged into words.

    Decoder self-attention is drawn as self-attention is: each row named by the token at its position, the decoder's
    input (start token, then the target but its last token), so rows and columns name the same tokens. capture names
    decoder rows by the token each step produces, which is what cross-attention wants.
    """
    amap = result[kind]
    if kind == "decoder" and len(amap.query_tokens) == len(amap.key_tokens):
        amap = replace(amap, query_tokens=list(amap.key_tokens))
    if hide:
        amap = _hide_special(amap)
    if words:
        query_text, key_text = map_texts(result, kind)
        amap = analysis.merge_words(amap, query_text=query_text, key_text=key_text)
    return amap


def replay(amap: AttentionMap, step: int) -> AttentionMap:
    """The map as it stood after `step` target rows were written (0 = all): generation replayed row by row.

    Row i of a cross map is what the model looked at while writing target token i, whether it generated the target
    or read a given one, so the replay works for both.
    """
    if not step or step >= step_count(amap):
        return amap
    keys = (0, step) if amap.causal else None  # a causal map keeps its triangle
    return analysis.crop(amap, queries=(0, step), keys=keys)


def _hide_special(amap: AttentionMap) -> AttentionMap:
    """Hide special tokens; a map with nothing but special tokens is shown as it is rather than emptied."""
    if all(t.special for t in amap.key_tokens) or all(t.special for t in amap.query_tokens):
        return amap
    return analysis.hide_tokens(amap, special=True)


def clamp_index(value: int, size: int) -> int:
    """An index from a link or an earlier model, kept inside 0..size-1."""
    return min(max(int(value), 0), max(size - 1, 0))


def alignment_pairs(
    alignment_heads: Sequence[tuple[int, int]], num_layers: int, num_heads: int
) -> list[tuple[int, int]]:
    """The (layer, head) pairs of the alignment view.

    The model's trained alignment heads (config `alignment_heads`) when it has them; otherwise every head of the
    second-to-last layer, where cross-attention aligns best in Transformer translation models (Garg et al., 2019).
    """
    pairs = [
        (int(layer), int(head)) for layer, head in alignment_heads if 0 <= layer < num_layers and 0 <= head < num_heads
    ]
    if pairs:
        return pairs
    layer = max(num_layers - 2, 0)
    return [(layer, head) for head in range(num_heads)]


@dataclass(frozen=True)
class HeadSelection:
    """Which heads a view shows: the map to draw and the keyword arguments `attnviz.figures` take for it."""

    amap: AttentionMap
    figure_kwargs: dict
    pairs: tuple[tuple[int, int], ...]  # every (layer, head) that contributes


ALIGNMENT_WORDS = {
    "alignment_view": "alignment heads",
    "pairs_mean": "mean of {pairs}",
    "pair": "L{layer}·H{head}",
    "pair_layer": "L{layer} (all heads)",
}


def describe_pairs(pairs: Sequence[tuple[int, int]], num_heads: int, words: Mapping[str, str] = ALIGNMENT_WORDS) -> str:
    """ "L2·H3, L3·H1", or "L4 (all heads)" for a whole layer: short enough for a figure title."""
    parts = []
    for layer in dict.fromkeys(lay for lay, _ in pairs):
        heads = [h for lay, h in pairs if lay == layer]
        if len(set(heads)) == num_heads and num_heads > 1:
            parts.append(words["pair_layer"].format(layer=layer))
        else:
            parts.extend(words["pair"].format(layer=layer, head=h) for h in heads)
    return ", ".join(parts)


def head_selection(
    amap: AttentionMap,
    view: str,
    layer: int,
    head: int,
    alignment_heads: Sequence[tuple[int, int]] = (),
    words: Mapping[str, str] = ALIGNMENT_WORDS,
) -> HeadSelection:
    """The map and figure options of one aggregation (see AGGREGATIONS); out-of-range layer/head are clamped.

    The alignment heads may sit in different layers, which a layers × heads selection cannot express: their rows are
    stacked into a one-layer map whose heads are those pairs, and the figure's `labels` name that selection
    ("alignment heads · mean of L2·H3, L3·H1"); `words` gives those phrases in the page's language.
    """
    layer = clamp_index(layer, amap.num_layers)
    head = clamp_index(head, amap.num_heads)
    if view == "head":
        return HeadSelection(amap, {"layers": layer, "heads": head}, ((layer, head),))
    if view == "layer":
        return HeadSelection(amap, {"layers": layer, "heads": None}, tuple((layer, h) for h in range(amap.num_heads)))
    if view == "all":
        every = tuple((lay, h) for lay in range(amap.num_layers) for h in range(amap.num_heads))
        return HeadSelection(amap, {"layers": None, "heads": None}, every)
    if view != "alignment":
        raise InputError(f"Unknown view {view!r}; use one of {', '.join(AGGREGATIONS)}.")
    pairs = tuple(alignment_pairs(alignment_heads, amap.num_layers, amap.num_heads))
    stacked = amap.weights[[p[0] for p in pairs], [p[1] for p in pairs]][None]  # (1, pairs, queries, keys)
    listed = describe_pairs(pairs, amap.num_heads, words)
    sub = replace(amap, weights=stacked, layer_names=[f"{words['alignment_view']}: {listed}"])
    labels = {
        "layer_one": words["alignment_view"],
        "heads_all": words["pairs_mean"].format(pairs=listed),  # several pairs: their mean
        "head_one": listed,  # a single pair
    }
    return HeadSelection(sub, {"layers": 0, "heads": None, "labels": labels}, pairs)


def head_lines_options(selection: HeadSelection, view: str) -> dict:
    """Keyword arguments of `figures.head_lines` for a view: one head, a layer's heads overlaid, or one combined set."""
    return {**selection.figure_kwargs, "combine": "mean" if view == "all" else None}


def newest_focus(
    selection: HeadSelection, top: int = 3, floor: float = 0.01
) -> tuple[Token, list[tuple[Token, float]]]:
    """The last query token of the selection's map (the newest one in a replay) and the keys it looked at most:
    at most `top`, strongest first, those below `floor` left out (but always the strongest one)."""
    matrix = analysis.aggregate(
        selection.amap, selection.figure_kwargs.get("layers"), selection.figure_kwargs.get("heads")
    )  # (queries, keys)
    row = matrix[-1]
    order = [int(k) for k in np.argsort(-row, kind="stable")[:top]]
    kept = [k for k in order if row[k] >= floor] or order[:1]
    return selection.amap.query_tokens[-1], [(selection.amap.key_tokens[k], float(row[k])) for k in kept]


def page_for_head(kind: str) -> tuple[str, dict]:
    """Where a head of a `kind` map opens ("translate" or "self") and the view changes that show exactly that head."""
    if kind == "cross":
        return "translate", {"view": "head"}
    if kind in STACKS:
        return "self", {"self_view": "head", "stack": kind}
    return "self", {"self_view": "head"}


def head_at(row: int, num_heads: int) -> tuple[int, int]:
    """(layer, head) of a row of `analysis.statistics_table` (rows run layer by layer)."""
    return divmod(int(row), num_heads)


def defined_statistics(values: Mapping[str, np.ndarray]) -> list[str]:
    """The statistics with a value for some head (`analysis.head_statistics`, or a lazy capture's streamed ones)."""
    return [name for name in analysis.STATISTICS if np.isfinite(values[name]).any()]


# ----------------------------------------------------------------------------------------------------------------------
# Exported files


def exported_title(title: str, model: str | None) -> str:
    """A figure title for a file: the page's title with the model named on its small second line.

    On the page the sidebar names the model; a file that leaves the app must name it itself.
    """
    if not model:
        return title
    if "<br><sup>" in title:
        return title.replace("<br><sup>", f"<br><sup>{model} · ", 1)
    return f"{title}<br><sup>{model}</sup>"


def title_width(title: str, font_px: int = 16) -> int:
    """About how many px the first line of a title takes (CJK glyphs are about twice as wide as Latin ones)."""
    first = re.sub(r"<[^<>]+>", "", title.split("<br>")[0])
    return int(sum(font_px if unicodedata.east_asian_width(char) in "WF" else 0.55 * font_px for char in first))


def export_size(title: str, width: int | None, height: int | None, margin: int = 80) -> tuple[int | None, int | None]:
    """The figure's size for a file, widened when its title would not fit (files have no column to stretch into)."""
    if width is None:
        return width, height
    return max(width, title_width(title) + margin), height


# ----------------------------------------------------------------------------------------------------------------------
# The "How attention works" page


def explainer_matrix(rows: Sequence[Sequence], name: str, shape: tuple[int, int]) -> np.ndarray:
    """An edited matrix as float64, checked: the right shape and every cell a finite number."""
    try:
        matrix = np.asarray([[float(v) for v in row] for row in rows], dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"Every cell of {name} must be a number; clear the cell or type a number.") from None
    if matrix.shape != shape:
        raise InputError(f"{name} must have {shape[0]} rows and {shape[1]} columns; it has shape {matrix.shape}.")
    if not np.isfinite(matrix).all():
        raise InputError(f"Every cell of {name} must be a number; an empty cell is not.")
    return matrix


EXPLAINER_SEEDS = {"q": SEED_Q, "k": SEED_K, "v": SEED_V}  # ViewState field -> the numbers the walk-through starts from


def matrix_text(matrix: np.ndarray) -> str:
    """A matrix as link text: rows split by ";", cells by ","; each number as short as it can be and still exact."""
    return ";".join(",".join(repr(float(value)).removesuffix(".0") for value in row) for row in matrix)


def edited_matrix(rows: Sequence[Sequence], name: str) -> np.ndarray:
    """The explainer's matrix `name` ("q", "k" or "v") from its cells, checked against the seed's shape."""
    return explainer_matrix(rows, name.upper(), EXPLAINER_SEEDS[name].shape)


def matrix_from_text(text: str, name: str) -> np.ndarray:
    """The explainer matrix `name` a link's text describes; InputError when it cannot be read."""
    return edited_matrix([row.split(",") for row in text.strip().split(";")], name)


def explainer_start(view: ViewState, name: str) -> np.ndarray:
    """The matrix an editor starts from: the view's (a link or earlier edits), else the seed's numbers."""
    text = getattr(view, name)
    return matrix_from_text(text, name) if text else EXPLAINER_SEEDS[name].copy()


def explainer_field(matrix: np.ndarray, name: str) -> str:
    """What the view keeps of an edited matrix: its link text, or "" while it still holds the seed's numbers."""
    return "" if np.array_equal(matrix, EXPLAINER_SEEDS[name]) else matrix_text(matrix)


def table(matrix: np.ndarray, row_names: Sequence[str], column_names: Sequence[str], decimals: int | None = None):
    """A matrix as a labelled pandas DataFrame (rounded for reading when `decimals` is given)."""
    import pandas as pd

    values = np.round(matrix, decimals) if decimals is not None else matrix
    return pd.DataFrame(values, index=list(row_names), columns=list(column_names))


# The walk-through's formulas (LaTeX), shared by both languages.
EXPLAINER_FORMULAS = {
    "scores": r"S = QK^\top,\quad S_{ij} = q_i \cdot k_j",
    "scaled": r"\tilde S = \frac{QK^\top}{\sqrt{d_k}} = \frac{S}{\sqrt{%(d)d}} = \frac{S}{%(scale)s}",
    "softmax": r"A_{ij} = \operatorname{softmax}(\tilde S_i)_j = \frac{e^{\tilde S_{ij}}}{\sum_{m} e^{\tilde S_{im}}}",
    "output": r"O = AV,\quad o_i = \sum_j A_{ij}\, v_j",
}


def explainer_walk(steps: AttentionSteps, query_names: Sequence[str], key_names: Sequence[str]) -> list:
    """The four steps as (name, matrix, row names, column names); the softmax table ends with each row's sum (1)."""
    with_sums = np.hstack([steps.weights, steps.weights.sum(axis=1, keepdims=True)])  # (queries, keys + 1)
    value_names = names("d", steps.value.shape[1])
    return [
        ("scores", steps.scores, list(query_names), list(key_names)),
        ("scaled", steps.scaled_scores, list(query_names), list(key_names)),
        ("softmax", with_sums, list(query_names), [*key_names, "Σ"]),
        ("output", steps.context, list(query_names), value_names),
    ]


def names(prefix: str, count: int) -> list[str]:
    """q₁, q₂, … as the seed writes them."""
    subscripts = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    return [f"{prefix}{str(i + 1).translate(subscripts)}" for i in range(count)]


@dataclass(frozen=True)
class MultiHeadWalkthrough:
    shapes: list[tuple[str, tuple[int, ...]]]  # (step, shape) in order: input, split q/k/v, weights, context, merged
    weights: AttentionMap  # the layer's weights of batch row 0 as a one-layer map, one head per head
    device: str


def multi_head_walkthrough(
    batch: int, length: int, hidden: int, heads: int, device: str = "auto", seed: int = 0
) -> MultiHeadWalkthrough:
    """Run attnviz's own MultiHeadAttention on random input (b, l, hdim) on `device` and report every shape.

    The shapes follow the seed's pseudo-code: split (b, l, hdim) -> (b, heads, l, head_dim), attention per head,
    merge back to (b, l, hdim).
    """
    import torch

    from attnviz.attention.layer import MultiHeadAttention

    for value, what in ((batch, "batch size"), (length, "length"), (hidden, "hidden size"), (heads, "number of heads")):
        if value < 1:
            raise InputError(f"The {what} must be at least 1.")
    if hidden % heads:
        raise InputError(f"A hidden size of {hidden} cannot be split into {heads} heads; pick a divisor of {hidden}.")
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    layer = MultiHeadAttention(hidden, heads, device=device)
    x = torch.randn(batch, length, hidden, generator=generator).to(layer.q_proj.weight.device)  # (b, l, hdim)
    with torch.no_grad():
        result = layer(x, return_steps=True)
    steps = result.steps
    shapes = [("x", tuple(x.shape))] + [
        (name, shape) for name, shape in steps.shapes() if name not in ("scaled_scores", "masked_scores")
    ]
    weights = result.weights[0].detach().to("cpu", torch.float32).numpy()[None]  # (1, heads, l, l)
    tokens = [Token(name, -1, -1) for name in names("x", length)]
    amap = AttentionMap("self", weights, tokens, tokens, ["attnviz.attention.layer.MultiHeadAttention"])
    return MultiHeadWalkthrough(shapes, amap, str(layer.q_proj.weight.device))


SEED_MULTI_HEAD_CODE = """\
def multi_head_split(x):
    # x: (batch_size, len, hdim)
    b, l, hdim = x.size()
    x = x.reshape(b, l, num_head, head_dim).transpose(1, 2)    # (b, num_head, l, head_dim)
    return x


def multi_head_merge(x):
    # x: (batch_size, num_head, len, head_dim)
    b, num_head, l, head_dim = x.size()
    x = x.transpose(1, 2).reshape(b, l, num_head * head_dim)   # (b, l, hdim)
    return x


q, k, v = map(multi_head_split, [q, k, v])
output = MultiHeadAttention(q, k, v)
output = multi_head_merge(output)
"""

# What each intermediate's axes are, in the seed's names.
SHAPE_SYMBOLS = {
    "x": "(b, l, hdim)",
    "query": "(b, heads, l, head_dim)",
    "key": "(b, heads, l, head_dim)",
    "value": "(b, heads, l, head_dim)",
    "scores": "(b, heads, l, l)",
    "weights": "(b, heads, l, l)",
    "context": "(b, heads, l, head_dim)",
    "merged": "(b, l, hdim)",
    "output": "(b, l, hdim)",
}


def shape_rows(shapes: Sequence[tuple[str, tuple[int, ...]]], meanings: Mapping[str, str]) -> list[dict]:
    """The multi-head table: each step with its axes (seed names), its actual shape and what it is."""
    return [
        {
            "step": name,
            "axes": SHAPE_SYMBOLS.get(name, ""),
            "shape": str(tuple(shape)),
            "meaning": meanings.get(name, ""),
        }
        for name, shape in shapes
    ]


def head_dim(hidden: int, heads: int) -> int:
    return hidden // heads if heads else 0


def divisors(number: int) -> list[int]:
    """The head counts a hidden size can be split into."""
    return [d for d in range(1, number + 1) if number % d == 0]
