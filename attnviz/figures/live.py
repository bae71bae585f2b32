"""One step of live generation, drawn as it comes (`attnviz.attention.live`): where the newest token looked, one bar
per key token, the mean over every layer and head of the step's attention row (a translator's cross-attention over
the source, a decoder's self-attention over its prompt and what it wrote before). A pure function of the numbers
given (no torch), small enough to rebuild at every step."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.common import token_label
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.i18n.live import STRINGS as LIVE_WORDS
from attnviz.types import Token

BAR_COLOR = "#1f4e9c"  # the alignment's link colour: the same weight, the same ink
BAR_PX, HEIGHT_PX, MIN_WIDTH_PX = 30, 240, 360
KINDS = ("cross", "self")  # the rows a live step draws: a translator's cross-attention, a decoder's self-attention


def step_row(
    weights: np.ndarray,
    keys: Sequence[Token],
    token: Token,
    *,
    kind: str = "cross",
    style: FigureStyle = DEFAULT_STYLE,
):
    """Bars over `keys` of one written `token`'s attention row `weights` (layers, heads, keys) of `kind` (KINDS),
    averaged over layers and heads (each head's row sums to 1, so the bars do too), on a fixed 0–1 axis so steps
    compare."""
    weights = np.asarray(weights, dtype=np.float32)
    if kind not in KINDS:
        raise InputError("live_row_kind", kind=kind, kinds=", ".join(KINDS))
    if weights.ndim != 3 or weights.shape[-1] != len(keys):
        raise InputError("live_row_shape", shape=weights.shape, keys=len(keys))
    mean = weights.mean(axis=(0, 1))  # (keys,)
    words = {**LIVE_WORDS[style.lang], **style.words()}
    labels = [f"{i}: {token_label(key)}" for i, key in enumerate(keys)]  # positions keep repeated tokens apart
    figure = go.Figure(go.Bar(x=labels, y=mean, marker_color=BAR_COLOR, hovertemplate="%{x}: %{y:.3f}<extra></extra>"))
    heading = style.heading(None, words["live_figure_title"].format(token=token_label(token)))
    width = max(MIN_WIDTH_PX, 120 + BAR_PX * len(keys))
    figure.update_layout(**style.layout(heading, width, HEIGHT_PX, meta=dict(view="live_step")))
    figure.update_yaxes(title=words[f"live_figure_axis_{kind}"], range=[0, 1])
    return figure
