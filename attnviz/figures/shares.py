"""Where each target token comes from, drawn: its source share and target-prefix share (ALTI+: Ferrando et al.,
EMNLP 2022, "Towards Opening the Black Box of Neural Machine Translation", arXiv 2205.11631; computed by
`attnviz.measures.alti` as `Contributions.shares`). A pure function of the numbers given (no torch)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.common import token_label
from attnviz.figures.layout import TICK_SIZE
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.figures.text_fit import text_width
from attnviz.i18n.measures import STRINGS as MEASURE_WORDS
from attnviz.types import Token

SOURCE_COLOR, TARGET_COLOR = "#2b6cb0", "#dd8452"  # the source in blue, the target prefix in orange
BAR_PX, HEIGHT_PX = 34, 260  # width of one token's bar; the figure's height


def translation_shares(
    targets: Sequence[Token], source: np.ndarray, target: np.ndarray, *, style: FigureStyle = DEFAULT_STYLE
) -> go.Figure:
    """One stacked bar per target token (`targets`, the cross map's rows): its `source` share and
    its `target`-prefix share (targets,), which sum to 1, each written as a percentage on hover."""
    source, target = np.asarray(source, dtype=np.float64), np.asarray(target, dtype=np.float64)  # (targets,)
    if source.shape != (len(targets),) or target.shape != source.shape:
        raise InputError("measure_shares_shape", shape=source.shape, other=target.shape, targets=len(targets))
    words = {**MEASURE_WORDS[style.lang], **style.words()}
    labels = [f"{i}: {token_label(token)}" for i, token in enumerate(targets)]  # positions keep repeated tokens apart
    figure = go.Figure()
    for values, name, color in (
        (source, words["measure_shares_source"], SOURCE_COLOR),
        (target, words["measure_shares_target"], TARGET_COLOR),
    ):
        figure.add_bar(
            x=labels, y=values, name=name, marker_color=color, hovertemplate="%{x}: %{y:.0%}<extra>" + name + "</extra>"
        )
    longest = max((text_width(label, TICK_SIZE) for label in labels), default=0)  # px of a tick label
    width = max(420, 120 + BAR_PX * len(labels))
    heading = style.heading(None, words["measure_shares_title"])
    layout = style.layout(heading, width, HEIGHT_PX + int(longest * 0.5), barmode="stack")
    figure.update_layout(**layout)
    figure.update_xaxes(tickmode="array", tickvals=labels, ticktext=labels)  # every label, never every other one
    figure.update_yaxes(title=words["measure_shares_axis"], range=[0, 1], tickformat=".0%")
    return figure
