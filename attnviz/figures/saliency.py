"""Which input tokens one output token depends on, drawn: gradient × input saliency (Denil, Demiraj and de Freitas,
2014, arXiv 1412.6815; gradient × input as in Shrikumar et al., 2016, arXiv 1605.01713), computed by
`attnviz.measures.saliency` as `SaliencyScores`. One bar per input token, the height ‖∂ log p(y) / ∂e_j ⊙ e_j‖₂.
A pure function of the numbers given (no torch)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.common import token_label
from attnviz.figures.layout import TICK_SIZE
from attnviz.figures.shares import BAR_PX, HEIGHT_PX, SOURCE_COLOR, TARGET_COLOR
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.figures.text_fit import text_width
from attnviz.i18n.saliency import STRINGS as SALIENCY_WORDS
from attnviz.types import Token


def saliency_bars(
    explained: Token,
    row: int,
    source_tokens: Sequence[Token],
    source: np.ndarray,
    prefix_tokens: Sequence[Token] | None = None,
    prefix: np.ndarray | None = None,
    *,
    per_word: bool = False,
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """One bar per input token for the output token `explained` (written at query row `row`): `source` (source
    tokens,) the scores of the text the model reads, and for a translator `prefix` (decoder input tokens,) those of
    the target written so far, drawn after the source in another colour. Labels are numbered on across both parts,
    so that a token in both keeps two bars, and every one is written (none skipped for room). `per_word`: the tokens
    are words, each score the L2 norm over its pieces together (`attnviz.view.token_units.combined`), and the
    title says so."""
    words = {**SALIENCY_WORDS[style.lang], **style.words()}
    parts = [(source_tokens, source, "saliency_figure_source" if prefix is not None else "saliency_figure_text")]
    if prefix is not None:
        parts.append((prefix_tokens or (), prefix, "saliency_figure_prefix"))
    figure, labels = go.Figure(), []
    for (tokens, scores, name), color in zip(parts, (SOURCE_COLOR, TARGET_COLOR)):
        scores = np.asarray(scores, dtype=np.float64)  # (tokens,)
        if scores.shape != (len(tokens),):
            raise InputError("saliency_figure_shape", shape=scores.shape, tokens=len(tokens))
        shown = [f"{len(labels) + i}: {token_label(token)}" for i, token in enumerate(tokens)]
        labels.extend(shown)
        legend = words[name]
        hover = "%{x}: %{y:.4g}<extra>" + legend + "</extra>"
        figure.add_bar(x=shown, y=scores, name=legend, marker_color=color, hovertemplate=hover)
    title_key = "saliency_figure_title_words" if per_word else "saliency_figure_title"
    title = words[title_key].format(token=token_label(explained), row=row)
    longest = max((text_width(label, TICK_SIZE) for label in labels), default=0)  # px of a tick label
    width = max(420, 120 + BAR_PX * len(labels))
    layout = style.layout(style.heading(None, title), width, HEIGHT_PX + int(longest * 0.5))
    figure.update_layout(**layout, meta=dict(view="saliency", row=row), showlegend=prefix is not None)
    figure.update_xaxes(tickmode="array", tickvals=labels, ticktext=labels)  # every label, never every other one
    figure.update_yaxes(title=words["saliency_figure_axis"], rangemode="tozero")
    return figure
