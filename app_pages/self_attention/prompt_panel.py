"""Self-attention on a decoder-only model that continued the text: a line saying how many of the drawn tokens are
the user's and how many the model wrote, and a toggle that draws the user's text alone (`attnviz.view.prompt`:
exact, cut from the same capture, since the model is causal)."""

from __future__ import annotations

import streamlit as st

from app_pages.shared.session import bound, tr
from app_pages.shared.state import ViewState
from attnviz.view.prompt import continuation, prompt_alone


def prompt_choice(view: ViewState, result):
    """`result`, or the capture of the user's text alone when the view asks for it; the line that says which is
    drawn. Anything but a decoder-only model's continuation is returned as it is, with nothing said."""
    told = continuation(result)
    if told is None:
        return result
    t = tr(view)
    bound(st.toggle, "prompt_only", t("prompt_only"), help=t("prompt_only_help"))
    counts = {"prompt": told.prompt, "written": told.written, "shown": told.written - 1}
    if view.prompt_only:
        st.caption(t("prompt_only_line", **counts))
        return prompt_alone(result)
    st.caption(t("continuation_line", **counts))
    return result
