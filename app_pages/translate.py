"""Translate & align: cross-attention from every target token back to the source, as an alignment and a heatmap."""

import streamlit as st

from app_pages import common
from attnviz import figures, views

view = common.state()
t = common.tr(view)
st.title(t("translate_title"))
st.caption(t("translate_intro"))
common.link_warnings(view)

left, right = st.columns([3, 2])
with left:
    common.bound(st.text_input, "text", t("source_text"), placeholder=t("source_placeholder"))
with right:
    common.bound(
        st.radio, "mode", t("mode"), options=views.MODES, format_func=lambda m: t(f"mode_{m}"), horizontal=True
    )
    if view.mode == "pair":
        common.bound(st.text_input, "target", t("target_text"), placeholder=t("target_placeholder"))

with common.shown_errors(view):
    handle, result = common.analysis(view)
    result = views.whole_capture(result, ["cross"])  # a long source: its cross map is still small (target rows)
    if "cross" not in result.maps:
        st.info(t("no_cross", model=view.model), icon=":material/info:")
    else:
        if view.mode == "generate":
            st.markdown(t("translation_line", text=result.source_text, translation=result.target_text))
        cross = result["cross"]
        controls = st.columns([2, 1, 1, 2, 2])
        common.bound(
            controls[0].selectbox,
            "view",
            t("aggregation"),
            options=views.AGGREGATIONS,
            format_func=lambda a: t(f"aggregation_{a}"),
            help=t("aggregation_help"),
        )
        common.bound(
            controls[1].selectbox,
            "layer",
            t("layer"),
            options=range(cross.num_layers),
            disabled=view.view not in ("head", "layer"),
        )
        common.bound(
            controls[2].selectbox, "head", t("head"), options=range(cross.num_heads), disabled=view.view != "head"
        )
        common.link_controls(controls[3], controls[4], t, lowest=0.0)

        written = views.prepare_map(result, "cross", hide=view.hide, words=view.words)
        steps = views.step_count(written)
        step = common.replay_slider(view, steps)
        amap = views.replay(written, step)
        selection = views.head_selection(
            amap, view.view, view.layer, view.head, handle.alignment_heads, words=common.alignment_words(view)
        )
        common.step_focus(view, selection, step or steps, steps)

        options = common.figure_options(selection, view)
        heatmap = figures.heatmap(selection.amap, **options)
        alignment = figures.alignment(
            selection.amap,
            **common.figure_options(selection, view, height=heatmap.layout.height),
            threshold=view.threshold,
        )  # side by side at one height, so their export buttons line up
        figure_left, figure_right = st.columns(2)
        with figure_left:
            common.figure(alignment, "alignment", "translate_alignment", view, data=amap, model=view.model)
        with figure_right:
            common.figure(heatmap, "heatmap", "translate_heatmap", view, data=amap, model=view.model)
