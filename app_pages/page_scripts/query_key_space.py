"""Query–key space: one head's queries and keys in one plane; a picked point outlines its row or column in the map."""

import streamlit as st

from app_pages.query_key_space.choices import picked_from_field, picked_to_field, selection_of
from app_pages.shared import caches, figure_export, opened, session
from app_pages.shared.page_errors import shown_errors
from attnviz import figures
from attnviz.attention.vectors import head_vectors
from attnviz.figures import qkspace
from attnviz.maps.projection import project_queries_keys
from attnviz.view import selection, viewing

view = session.state()
t = session.tr(view)
session.text_page_top(view, t("qk_title"), t("qk_intro"))

with shown_errors(view):
    if opened.current(view) is not None:
        st.info(t("qk_needs_model"), icon=":material/info:")
    else:
        handle, result = caches.analysis(view)
        # a long text's capture already keeps every query and key; a short one's keeps weights, so run once more
        lazy = result if not result.is_complete else caches.vectors(view, handle, result).lazy
        columns = st.columns([2, 1, 1, 2, 2])
        session.bound(
            columns[0].selectbox, "kind", t("heads_map"), options=lazy.kinds, format_func=lambda k: t(f"kind_{k}")
        )
        layers, heads, queries, keys = lazy.shape(view.kind)
        session.bound(columns[1].selectbox, "layer", t("layer"), options=range(layers))
        session.bound(columns[2].selectbox, "head", t("head"), options=range(heads))
        session.bound(
            columns[3].radio,
            "qk_color",
            t("qk_color"),
            options=qkspace.COLOR_BY,
            horizontal=True,
            format_func=lambda c: t(f"qk_color_{c}"),
        )
        with columns[4]:
            session.bound(st.toggle, "qk_norm", t("qk_norm"), help=t("qk_norm_help"))

        vectors = head_vectors(lazy, view.kind, view.layer, view.head)
        projection = project_queries_keys(vectors.queries, vectors.keys, normalise=view.qk_norm)
        event = st.session_state.get("chart_qk_space")  # the selection the chart holds since the last pick
        chosen = qkspace.picked_point(selection_of(event))
        if chosen is not None:
            view.qk_point = picked_to_field(chosen)
        picked = picked_from_field(view.qk_point, queries, keys)
        style = figures.FigureStyle(lang=view.lang)
        space = qkspace.qk_space(
            projection,
            vectors.query_tokens,
            vectors.key_tokens,
            color_by=view.qk_color,
            selected=picked,
            kind=view.kind,
            layer=view.layer,
            head=view.head,
            style=style,
        )
        file_heads = {"layer": view.layer, "head": view.head}
        st.caption(t("qk_pick_hint"))
        figure_export.figure(
            space,
            "qk-space",
            "qk_space",
            view,
            figure_export.Source(heads=file_heads),
            model=view.model,
            select_points=True,
        )

        st.subheader(t("qk_map_title"))
        role, index = picked if picked is not None else ("query", 0)
        rows = selection.token_window(queries, index - viewing.LONG_WINDOW // 2 if role == "query" else 0)
        cols = selection.token_window(keys, index - viewing.LONG_WINDOW // 2 if role == "key" else 0)
        block = lazy.map(view.kind, layers=view.layer, heads=view.head, queries=rows, keys=cols)  # (1, 1, rows, cols)
        drawn = figures.heatmap(block, style=style)
        if picked is not None:
            drawn = qkspace.highlight(drawn, role, index - (rows[0] if role == "query" else cols[0]))
            token = (vectors.query_tokens if role == "query" else vectors.key_tokens)[index]
            st.markdown(t(f"qk_picked_{role}", token=token.text, index=index))
        if (rows[1] - rows[0], cols[1] - cols[0]) != (queries, keys):
            st.caption(t("qk_map_window", rows=f"{rows[0]}–{rows[1] - 1}", keys=f"{cols[0]}–{cols[1] - 1}"))
        figure_export.figure(
            drawn,
            "qk-space-heatmap",
            "qk_heatmap",
            view,
            figure_export.Source(block, heads=file_heads, provenance=result.provenance),
            model=view.model,
        )
