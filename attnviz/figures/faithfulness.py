"""Which explanation is faithful on this input, drawn: each measure's margin above random removal orders (ERASER
comprehensiveness − sufficiency, DeYoung et al., ACL 2020, arXiv 1911.03429), one bar per removal baseline, ranked;
and the deletion curves behind them (Petsiuk et al., BMVC 2018, arXiv 1806.07421). Computed by
`attnviz.measures.faithfulness` as a `Scoreboard`; a pure function of its numbers (no torch)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.i18n.faithfulness import STRINGS as FAITHFULNESS_WORDS
from attnviz.maps.faithfulness_scores import RANDOM, Scoreboard
from attnviz.maps.faithfulness_verdict import DECIDES_FROM, Verdict

BASELINE_COLORS = {"mask": "#2b6cb0", "random": "#dd8452"}
FLOOR_COLOR = "#999999"
ROW_PX, CURVE_HEIGHT_PX = 34, 380


def _words(style: FigureStyle) -> dict[str, str]:
    return {**FAITHFULNESS_WORDS[style.lang], **style.words()}


def _output(board: Scoreboard, words: dict[str, str]) -> str:
    """The output scored, as the titles name it."""
    if board.metric == "cosine":
        return words["faithfulness_output_pooled"]
    if not board.rows:  # a decoder: its next token
        return words["faithfulness_output_next"].format(token=board.explained)
    if len(board.rows) > 1:
        return words["faithfulness_output_whole"]
    return words["faithfulness_output_token"].format(token=board.explained, row=board.rows[0])


def scoreboard_figure(board: Scoreboard, found: Verdict, *, style: FigureStyle = DEFAULT_STYLE) -> go.Figure:
    """One row per measure, best first (`found.ranking`): per baseline a bar of its faithfulness minus the random
    orders' (the floor, at 0), with the random orders' spread as a band around 0; the title says the output scored and
    Spearman's ρ of the two baselines' rankings."""
    words = _words(style)
    names = [words[f"faithfulness_measure.{measure}"] for measure in found.ranking]
    figure = go.Figure()
    spread = max(found.spreads.values(), default=0.0)
    if spread > 0:  # the random orders' own spread: a margin inside it is no better than chance here
        figure.add_vrect(x0=-spread, x1=spread, fillcolor=FLOOR_COLOR, opacity=0.2, line_width=0)
    figure.add_vline(x=0, line_color=FLOOR_COLOR, line_dash="dash")
    for baseline in board.baselines:
        label = words[f"faithfulness_baseline.{baseline}"]
        margins = [found.margins[measure][baseline] for measure in found.ranking]
        figure.add_bar(
            y=names,
            x=margins,
            orientation="h",
            name=label,
            marker_color=BASELINE_COLORS.get(baseline),
            hovertemplate="%{y}: %{x:+.3f}<extra>" + label + "</extra>",
        )
    rho = "—" if not np.isfinite(found.rho) else f"{found.rho:.2f}"
    title = words["faithfulness_figure_title"].format(output=_output(board, words), rho=rho, threshold=DECIDES_FROM)
    height = 160 + ROW_PX * len(names) * max(1, len(board.baselines))
    layout = style.layout(style.heading(None, title), 760, height, barmode="group")
    figure.update_layout(**layout, meta=dict(view="faithfulness", decides=found.decides, reason=found.reason))
    figure.update_yaxes(autorange="reversed")  # the best measure on top
    figure.update_xaxes(title=words[f"faithfulness_axis.{board.metric}"], zeroline=False)
    return figure


def deletion_figure(board: Scoreboard, baseline: str, *, style: FigureStyle = DEFAULT_STYLE) -> go.Figure:
    """The deletion curve of every measure under `baseline` — the output as its most relevant tokens are removed
    one by one — and the random orders' mean as a dashed grey line."""
    words = _words(style)
    curves = board.curves[baseline]
    steps = len(next(iter(curves.values())).deletion)
    fraction = np.arange(steps) / (steps - 1)
    figure = go.Figure()
    for measure in board.measures:
        name = words[f"faithfulness_measure.{measure}"]
        figure.add_scatter(x=fraction, y=curves[measure].deletion, mode="lines", name=name)
    randoms = np.array([c.deletion for name, c in curves.items() if name.startswith(RANDOM)])  # (orders, steps)
    figure.add_scatter(
        x=fraction,
        y=randoms.mean(axis=0),
        mode="lines",
        name=words["faithfulness_measure.random"],
        line=dict(color=FLOOR_COLOR, dash="dash"),
    )
    baseline_name = words[f"faithfulness_baseline.{baseline}"]
    title = words["faithfulness_deletion_title"].format(output=_output(board, words), baseline=baseline_name)
    layout = style.layout(style.heading(None, title), 760, CURVE_HEIGHT_PX)
    figure.update_layout(**layout, meta=dict(view="faithfulness-deletion", baseline=baseline))
    figure.update_xaxes(title=words["faithfulness_deletion_axis"], tickformat=".0%", range=[0, 1])
    figure.update_yaxes(title=words[f"faithfulness_output_axis.{board.metric}"])
    return figure
