"""Atlas: every head of every layer of a long text, exact, as block maps — filtered and sorted by their patterns and
statistics, and any head opened on its block map and an exact window (`attnviz.atlas`)."""

import streamlit as st

from app_pages.atlas import panels
from app_pages.shared import session
from app_pages.shared.page_errors import shown_errors
from attnviz.maps import atlas_stats

view = session.state()
t = session.tr(view)
st.title(t("atlas_title"))
st.caption(t("atlas_intro"))

with shown_errors(view):
    text = panels.long_text(view)
    block = st.select_slider(t("atlas_block"), panels.BLOCKS, value=64, key="w_atlas_block", help=t("atlas_block_help"))
    truncate = st.toggle(t("atlas_truncate"), key="w_atlas_truncate", help=t("atlas_truncate_help"))
    panels.run(view, text, block, truncate)
    atlas = panels.current()
    if atlas is None:
        st.info(t("atlas_none"), icon=":material/info:")
    else:
        kind = st.selectbox(t("heads_map"), atlas.kinds, format_func=lambda k: t(f"kind_{k}"), key="w_atlas_kind")
        panels.summary(view, atlas, kind)
        labels = atlas.patterns(kind)
        shown = panels.overview(view, atlas, kind, labels)
        panels.table(view, atlas, kind, labels, shown)
        panels.zoom(view, atlas, kind)
        st.caption(t("atlas_definitions", sink=atlas[kind].sink_tokens, recall=atlas_stats.PATTERN_RECALL))
