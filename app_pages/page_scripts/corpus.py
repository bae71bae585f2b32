"""Corpus: a corpus job's report (opened from a folder or files, or run here on a small corpus): which heads align,
and every head's statistics over the pairs."""

import streamlit as st

from app_pages.corpus import panels
from app_pages.shared import session
from app_pages.shared.page_errors import shown_errors

view, t = session.page_start("corpus_title", "corpus_intro")
with shown_errors(view):
    if panels.source_choice(view) == "open":
        panels.open_controls(view)
    else:
        panels.run_controls(view)

report = st.session_state.get(panels.REPORT)
if report is None:
    st.info(t("corpus_none"), icon=":material/info:")
else:
    with shown_errors(view):
        panels.show_report(view, report)
