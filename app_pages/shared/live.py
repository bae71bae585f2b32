""" "Watch it write", the part every page shares: the model writes token by token into placeholders (the text so far,
the newest token's probability and alternatives, where it looked; with beam search first its beams), then the
placeholders are cleared and the page goes on to its normal view of the same capture. Translate & align draws each
step's cross-attention row (`app_pages/translate/live_panel.py`), Self-attention a decoder's self-attention row
(`app_pages/self_attention/live_panel.py`); `LiveStep.row` says which.

A Stop button sets a session flag read between steps; leaving the loop closes the run (`run.run_live`), which stops
the model at its next step."""

from __future__ import annotations

from contextlib import closing

import streamlit as st

from app_pages.shared.session import tr
from app_pages.shared.state import ViewState
from attnviz import run as runs
from attnviz.attention.live_items import LiveBeams, LiveFinished, LiveStep
from attnviz.figures.live import step_row
from attnviz.figures.style import FigureStyle
from attnviz.model.load import ModelHandle
from attnviz.text.tokens import shown
from attnviz.types import AttentionCapture

STOP = "attnviz_live_stop"  # set by the Stop button, read between steps
BEAMS_SHOWN = 5  # the best running beams listed


def _stop() -> None:
    st.session_state[STOP] = True


def clicked(view: ViewState, help_key: str) -> bool:
    """The "Watch it write" button (its help text `help_key`); True in the run where it was clicked."""
    t = tr(view)
    if not st.button(t("live_watch"), key="live_watch", help=t(help_key), icon=":material/play_arrow:"):
        return False
    st.session_state[STOP] = False
    return True


def write(view: ViewState, handle: ModelHandle, request: runs.RunRequest) -> AttentionCapture | None:
    """The model writes `request` live into placeholders, cleared at the end; the finished capture (`run_recorded`'s
    of the same request), or None when Stop was pressed."""
    t = tr(view)
    stop, beams, text, token, chart = (st.empty() for _ in range(5))
    stop.button(t("live_stop"), key="live_stop", on_click=_stop, icon=":material/stop:")
    style = FigureStyle(lang=view.lang)
    finished = None
    with closing(runs.run_live(handle, request)) as items:
        for item in items:
            if st.session_state.get(STOP):
                break
            if isinstance(item, LiveBeams):
                beams.markdown(beam_lines(view, item))
            elif isinstance(item, LiveStep):
                text.markdown(t("live_written", text=item.text))
                token.markdown(token_line(view, item))
                weights, keys = item.row()  # (layers, heads, keys)
                figure = step_row(weights, keys, item.step.token, kind=item.kind, style=style)
                chart.plotly_chart(figure, key=f"live_step_{item.index}", config={"displayModeBar": False})
            elif isinstance(item, LiveFinished):
                finished = item.capture
    for slot in (stop, beams, text, token, chart):  # what stays is the page's normal view of the same capture
        slot.empty()
    return finished


def token_line(view: ViewState, item: LiveStep) -> str:
    """The newest token, its probability and the step's other candidates."""
    t = tr(view)
    others = t("truth_list_separator").join(
        t("truth_token_probability", token=text, probability=f"{probability:.2f}")
        for text, probability in item.step.alternatives
    )
    probability = f"{item.step.probability:.2f}"
    return t(
        "live_token", step=item.index + 1, token=shown(item.step.token), probability=probability, alternatives=others
    )


def beam_lines(view: ViewState, item: LiveBeams) -> str:
    """The running beams after a step, best first, each with its score."""
    t = tr(view)
    lines = [t("live_beams", step=item.step)]
    for rank, beam in enumerate(item.beams[:BEAMS_SHOWN], start=1):
        lines.append(t("live_beam", rank=rank, text=beam.text or "…", score=f"{beam.score:.2f}"))
    return "\n\n".join(lines)
