"""What every figure shares: translatable labels, fonts, titles, token labels, value formatting, option checks and
the pieces two figures draw alike (pooling, token markers)."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.fonts import plain_text, text_width
from attnviz.i18n.figures import STRINGS as FIGURE_WORDS
from attnviz.i18n.findhead import STRINGS as FIND_WORDS
from attnviz.i18n.truth import STRINGS as TRUTH_WORDS
from attnviz.maps import analysis
from attnviz.text.tokens import drawable
from attnviz.types import AttentionMap, Token

# Noto Sans SC first: it is what static export draws with (attnviz.figures.fonts), so screen and file match where the
# browser has it; the rest are the usual CJK-capable system fonts.
FONT_FAMILY = (
    '"Noto Sans SC", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", '
    '"DejaVu Sans", Arial, sans-serif'
)
_SURROGATES = re.compile("[\ud800-\udfff]")  # lone UTF-16 halves: no file or browser encodes them
MASKED_COLOR = "#d0d0d0"  # background seen through masked (NaN) cells; outside every default colour scale
HEAD_COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#843c39",
    "#7b4173",
    "#3182bd",
)

# Every string a figure shows. The app passes its own (i18n) strings through `labels=`; `lang` picks a built-in set.
# The figures' words, parts of the string catalogue (attnviz/i18n/figures.py, truth.py's `truth_figure_*` and the
# colour-bar titles in findhead.py).
LABELS = {
    lang: {
        **words,
        **{key: value for key, value in TRUTH_WORDS[lang].items() if key.startswith("truth_figure_")},
        **FIND_WORDS[lang],
    }
    for lang, words in FIGURE_WORDS.items()
}


def resolve_labels(lang: str = "en", labels: Mapping[str, str] | None = None) -> dict[str, str]:
    """The built-in strings for `lang` ("en" or "zh"), overridden by any keys in `labels`."""
    if lang not in LABELS:
        raise InputError("figure_language_unknown", lang=lang, languages=", ".join(LABELS))
    return {**LABELS[lang], **(labels or {})}


def format_value(value: float) -> str:
    """A weight as a person reads it: 0.62, 0.05, 3.1e-04, 0."""
    if not np.isfinite(value):
        return "–"
    if value == 0:
        return "0"
    return f"{value:.2f}" if abs(value) >= 0.01 else f"{value:.1e}"


def token_label(token: Token, limit: int = 16) -> str:
    """A token as plotly label text: visible when whitespace or a control character, shortened when very long,
    lone surrogates as �, and HTML-escaped.

    Plotly reads label strings as HTML, so "</s>" would silently close a tag and vanish (and upset the layout).
    """
    label = text_label(token.text, limit)
    if token.unknown:  # the model did not read these characters: never drawn as if it had (see `unknown_notes`)
        return UNKNOWN_LABEL.format(text=label)
    return label


def text_label(text: str, limit: int = 16) -> str:
    """A piece of text (a token's, or a compared segment's) as plotly label text: control characters as the escapes
    every font draws (`text.tokens.drawable`: ␊ → \\n); whitespace as ␣; shortened past `limit` characters;
    HTML-escaped, so that "</s>" is drawn rather than read as a closing tag."""
    text = drawable(printable(text))
    text = text if text.strip() else "␣"
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return html.escape(text, quote=False)


# An unknown token's label: the text it stands for, marked "?", in its own colour and italics (plotly's label HTML).
UNKNOWN_COLOR = "#b2182b"
UNKNOWN_LABEL = '<i><span style="color:' + UNKNOWN_COLOR + '">{text}?</span></i>'


def unknown_notes(tokens: Sequence[Token], text: Mapping[str, str]) -> list[str]:
    """The legend line for a figure with unknown tokens ("<i>word?</i> = unknown to the model …"), else nothing."""
    if not any(token.unknown for token in tokens):
        return []
    return [UNKNOWN_LABEL.format(text=text["truth_figure_word"]) + " " + text["truth_figure_unknown"]]


def axis_labels(tokens: Sequence[Token], factor: int, offset: int, text: Mapping[str, str]) -> list[str]:
    """One label per heatmap row or column: the token itself, or for cells pooling `factor` tokens the global token
    range and the bin's first token ("#8–15 morning"); `offset` is the position of `tokens[0]` in the whole map."""
    if factor == 1:
        return [token_label(t) for t in tokens]
    labels = []
    for first in range(0, len(tokens), factor):
        stop = min(first + factor, len(tokens))
        span = text["token_range"].format(start=offset + first, stop=offset + stop - 1)
        labels.append(f"{span} {token_label(tokens[first], 10)}")
    return labels


def printable(text: str) -> str:
    """`text` with lone surrogates (which no file or browser can encode) shown as U+FFFD �."""
    return _SURROGATES.sub("\ufffd", text)


# Hovered weights as d3-format writes them: three significant digits, trailing zeros dropped (0.62, 0.0523, 1).
HOVER_VALUE_FORMAT = ".3~g"


def hover_template(text: Mapping[str, str], value: str = "z", prefix: str = "") -> str:
    """A plotly hovertemplate reading "早上 → morning: 0.62": the row and column labels come from the axes (see
    `hover_axis`) and the weight from the trace's `value` attribute ("z", or "customdata" when z holds something
    else, such as log weights). One template per trace instead of one hover string per cell."""
    weight = "%{" + value + ":" + HOVER_VALUE_FORMAT + "}"
    return prefix + text["hover"].format(query="%{y}", key="%{x}", value=weight) + "<extra></extra>"


def hover_axis(labels: Sequence[str]) -> dict:
    """Axis settings under which `%{x}`/`%{y}` in a hovertemplate read the label of the hovered position.

    Plotly writes a hovered position of a numeric axis with `hoverformat` ("d": 12) and then swaps that text for
    its `labelalias` entry ("morning"); tick labels of an array-mode axis are `ticktext`, which holds the same
    labels. So a figure carries one label per token (n) instead of one hover string per cell (n²), the axes stay
    numeric (box selections are positions), and repeated tokens need no disambiguation.
    """
    return dict(labelalias={str(i): label for i, label in enumerate(labels)}, hoverformat="d")


def check_kind(kind: str | None, text: Mapping[str, str]) -> None:
    """A map kind given on its own (no AttentionMap to read it from): one the titles can name, or None."""
    if kind is not None and f"kind_{kind}" not in text:
        raise InputError("figure_kind_unknown", kind=kind)


def check_count(value, name: str, minimum: int = 1) -> int:
    """A figure option that counts something (labels, tokens, levels): a whole number ≥ `minimum`."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < minimum:
        raise InputError("figure_count", name=name, minimum=minimum, value=value)
    return int(value)


@dataclass(frozen=True)
class Pooling:
    """Cells of `query_factor` × `key_factor` tokens, pooled by `pool` ("max" keeps peaks, "mean" keeps mass): how a
    map larger than its figure is drawn (factors of 1: every token its own cell)."""

    query_factor: int
    key_factor: int
    pool: str = "max"

    def __post_init__(self) -> None:
        if self.pool not in analysis.REDUCTIONS:
            raise InputError("pooling_unknown", pool=self.pool)
        object.__setattr__(self, "query_factor", check_count(self.query_factor, "query_factor"))
        object.__setattr__(self, "key_factor", check_count(self.key_factor, "key_factor"))

    @classmethod
    def fitting(cls, queries: int, keys: int, limit: int, pool: str) -> Pooling:
        """The smallest cells that fit `queries` × `keys` tokens into at most `limit` cells a side."""
        return cls(max(1, -(-queries // limit)), max(1, -(-keys // limit)), pool)  # ceil division

    @property
    def pooled(self) -> bool:
        return self.query_factor > 1 or self.key_factor > 1

    def apply(self, values: np.ndarray) -> np.ndarray:
        """(queries, keys) values as (query cells, key cells); NaN (masked) cells stay NaN when all of a block is."""
        return analysis.downsample(values, self.query_factor, self.key_factor, self.pool) if self.pooled else values

    def labels(
        self,
        query_tokens: Sequence[Token],
        key_tokens: Sequence[Token],
        text: Mapping[str, str],
        offsets: tuple[int, int] = (0, 0),
    ) -> tuple[list[str], list[str]]:
        """One label per row and per column (see `axis_labels`); `offsets`: where the tokens start in the map."""
        return (
            axis_labels(query_tokens, self.query_factor, offsets[0], text),
            axis_labels(key_tokens, self.key_factor, offsets[1], text),
        )

    def cells(self, queries: int, keys: int) -> tuple[int, int]:
        """(rows, columns) of cells a map of `queries` × `keys` tokens is drawn in."""
        return -(-queries // self.query_factor), -(-keys // self.key_factor)  # ceil division

    def notes(self, text: Mapping[str, str]) -> list[str]:
        """The subtitle of a pooled map ("downsampled: 3×3 tokens per cell (max-pool); …"), nothing when unpooled."""
        if not self.pooled:
            return []
        return [
            text["downsampled"].format(query_factor=self.query_factor, key_factor=self.key_factor, pool=text[self.pool])
        ]


def token_markers(
    x: Sequence[float], y: Sequence[float], labels: Sequence[str], position: str, size: int, **text_style
) -> go.Scatter:
    """Tokens as labelled dots (the lines of the alignment, the columns of the head view); hovering one names it."""
    return go.Scatter(
        x=list(x),
        y=list(y),
        mode="markers+text",
        text=list(labels),
        textposition=position,
        marker=dict(size=size, color="#444444"),
        hovertemplate="%{text}<extra></extra>",
        showlegend=False,
        name="tokens",
        **text_style,
    )


def tick_positions(count: int, max_labels: int) -> list[int]:
    """Every index when they fit, else every n-th so at most `max_labels` labels are drawn."""
    stride = max(1, -(-count // max_labels))  # ceil division
    return list(range(0, count, stride))


def _index_list(indices: list[int]) -> str:
    return ", ".join(str(i) for i in indices)


def selection_text(
    amap: AttentionMap,
    layers,
    heads,
    head_reduce: str,
    layer_reduce: str,
    text: Mapping[str, str],
    overlaid: bool = False,
) -> str:
    """ "layer 3 · head 2", "mean of all layers · max of heads 0, 2" ... in the chosen language.

    `overlaid`: the heads are drawn side by side, not reduced ("heads 0, 1, 2").
    """
    layer_idx, head_idx = analysis.select_indices(amap, layers, heads)
    layer_idx, head_idx = [amap.layer_number(i) for i in layer_idx], [amap.head_number(h) for h in head_idx]
    layer_part = _selection_part("layer", layer_idx, amap.num_layers, layer_reduce, text)
    if overlaid and len(head_idx) > 1:
        head_part = text["heads_overlaid"].format(heads=_index_list(head_idx))
    else:
        head_part = _selection_part("head", head_idx, amap.num_heads, head_reduce, text)
    return f"{layer_part} · {head_part}"


def _selection_part(what: str, chosen: list[int], total: int, reduce: str, text: Mapping[str, str]) -> str:
    """ "layer 3", "mean of all layers" or "max of heads 0, 2": the `what_one`/`whats_all`/`whats_some` label."""
    if len(chosen) == 1:
        return text[f"{what}_one"].format(**{what: chosen[0]})
    if len(chosen) == total:
        return text[f"{what}s_all"].format(reduce=text[reduce])
    return text[f"{what}s_some"].format(reduce=text[reduce], **{f"{what}s": _index_list(chosen)})


NOTE_SIZE, ONE_NOTE_LINE = 11, 420  # px: the subtitle's font size (<sup> of 16), what fits a 440 px column


def figure_title(
    model: str | None,
    kind: str | None,
    selection: str | None,
    text: Mapping[str, str],
    notes: Sequence[str] = (),
) -> str:
    """Model · kind · selection on the first line, notes (log scale, downsampling) smaller below: on one line when
    they fit the narrowest figure, else a line each; `kind` is the map's kind ("self", "cross", …) or None to
    leave it out."""
    parts = [
        p
        for p in (
            html.escape(printable(model), quote=False) if model else None,
            text[f"kind_{kind}"] if kind is not None else None,
            selection,
        )
        if p
    ]
    title = " · ".join(parts)
    if notes and text_width(plain_text(" · ".join(notes)), NOTE_SIZE) > ONE_NOTE_LINE:
        title += "".join(f"<br><sup>{note}</sup>" for note in notes)  # a line each, so none runs off the figure
    elif notes:
        title += "<br><sup>" + " · ".join(notes) + "</sup>"
    return title


def color_range(scale: str, own: float, shared: float | None, heads: int, text: Mapping[str, str]) -> tuple[float, str]:
    """The top of a colour scale (`analysis.COLOR_SCALES`) and the colour bar's title that says what it is: 1 for
    "unit"; for "shared" the largest weight of any of `heads` heads (`shared`; unknown: the unit scale, said so);
    for "head" the figure's own largest weight (`own`). A top of 0 (nothing drawn) reads 1. The title names what
    is coloured (`text["weight"]`: the weight, or α·‖f(x)‖ when weighted by value norm)."""
    if scale not in analysis.COLOR_SCALES:
        raise InputError("find_color_scale", scale=scale, scales=", ".join(analysis.COLOR_SCALES))
    if scale == "shared" and shared is not None and shared > 0:
        return float(shared), text["find_scale_shared"].format(
            weight=text["weight"], top=format_value(shared), heads=heads
        )
    if scale == "head" and own > 0:
        return float(own), text["find_scale_head"].format(weight=text["weight"], top=format_value(own))
    return 1.0, text["find_scale_unit"].format(weight=text["weight"])


def clamp(value: float, low: float, high: float) -> int:
    return int(min(max(value, low), high))
