"""The faithfulness scoreboard in a notebook: `attnviz.show_faithfulness(board, lang="zh")` says the verdict and
draws the scoreboard and the deletion curves (`attnviz.figures.faithfulness`) inline, as `attnviz.show` draws maps."""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.faithfulness import deletion_figure, scoreboard_figure
from attnviz.figures.style import FigureStyle
from attnviz.maps.faithfulness_scores import Scoreboard
from attnviz.maps.faithfulness_verdict import Verdict, verdict, verdict_sentence
from attnviz.notebook.show import display_figures


@dataclass(frozen=True)
class ShownScoreboard:
    """What `show_faithfulness` drew: the verdict, its sentence and the figures by name."""

    verdict: Verdict
    sentence: str
    figures: dict[str, go.Figure]


def show_faithfulness(
    board: Scoreboard, *, lang: str = "en", baseline: str | None = None, display: bool = True
) -> ShownScoreboard:
    """The verdict of `board` (from `attnviz.faithfulness`) in one sentence, the scoreboard figure and the deletion
    curves under `baseline` (default: the first scored), displayed inline unless `display=False`."""
    if not isinstance(board, Scoreboard):
        raise InputError("notebook_not_scoreboard", given=type(board).__name__)
    baseline = baseline or board.baselines[0]
    if baseline not in board.baselines:
        raise InputError("faithfulness_baseline_unknown", baseline=baseline, baselines=", ".join(board.baselines))
    found = verdict(board)
    style = FigureStyle(lang=lang, model=board.model)
    figures = {
        "scoreboard": scoreboard_figure(board, found, style=style),
        "deletion": deletion_figure(board, baseline, style=style),
    }
    sentence = verdict_sentence(found, lang)
    if display:
        _say(sentence)
        display_figures(list(figures.values()))
    return ShownScoreboard(found, sentence, figures)


def _say(sentence: str) -> None:
    try:
        from IPython import display as ipython_display  # optional: attnviz[notebook]
    except ModuleNotFoundError as error:
        raise InputError("notebook_needs_ipython", extra="pip install 'attnviz[notebook]'") from error
    ipython_display.display({"text/plain": sentence, "text/markdown": sentence}, raw=True)
