"""Compare: A (the sidebar's model and text) beside B (its own model, text and target), the heads ranked by how
much their attention changed, and the difference A − B drawn on the words both share."""

import streamlit as st

from app_pages.compare import runs
from app_pages.shared import figure_export, session
from app_pages.shared.page_errors import shown_errors
from app_pages.shared.state import COMPARE_SCOPES
from attnviz import figures
from attnviz.model.catalogue import model_name

view, t = session.page_start("compare_title", "compare_intro")

with shown_errors(view):
    side_a, side_b = st.columns(2)
    with side_a:
        st.markdown(f"**{t('compare_side', side='A', model=view.model)}**")
        session.bound(st.text_input, "text", t("compare_text", side="A"))
    with side_b:
        session.bound(st.text_input, "model_b", t("compare_model_b"), placeholder=t("compare_same_model"))
        session.bound(st.text_input, "text_b", t("compare_text", side="B"))
        precision, device = st.columns(2)
        session.bound(
            precision.selectbox,
            "dtype_b",
            t("compare_dtype_b"),
            options=runs.dtypes_b(view),
            format_func=lambda dtype: dtype or t("compare_dtype_same"),
            help=t("compare_dtype_b_help"),
        )
        session.bound(
            device.selectbox,
            "device_b",
            t("compare_device_b"),
            options=runs.devices_b(),
            format_func=lambda name: (
                t(f"device_{name}") if name else t("compare_device_same", device=t(f"device_{view.device}"))
            ),
        )
    both, translates = runs.comparison(view)
    compared, parity = both.comparison, both.parity
    if translates:  # a translation model force-decodes a target on each side
        session.bound(side_a.text_input, "target", t("compare_target", side="A"))
        session.bound(side_b.text_input, "target_b", t("compare_target", side="B"), help=t("compare_target_b_help"))

    controls = st.columns([2, 1, 1])
    layers, heads = compared.diff.shape[:2]
    session.bound(
        controls[0].segmented_control,
        "compare_scope",
        t("compare_scope"),
        options=COMPARE_SCOPES,
        format_func=lambda scope: t(f"compare_scope_{scope}"),
    )
    scope = view.compare_scope or "all"
    layer = session.bound(controls[1].selectbox, "layer", t("layer"), options=range(layers))
    head = session.bound(controls[2].selectbox, "head", t("head"), options=range(heads))
    picked = runs.scoped(scope, layer, head)
    shown, said = compared.diff_view(*picked), compared.heads_said(*picked, lang=view.lang)
    drawn = (shown.values, shown.row_labels, shown.col_labels, shown.row_status, shown.col_status)
    style = figures.FigureStyle(lang=view.lang)
    fig = figures.diff_heatmap(*drawn, kind=compared.kind, selection=said, style=style)
    named = f"{model_name(view.model)} · {model_name(runs.named_b(view))}"  # a folder by its name, never its path
    diff_heads = {"layer": picked[0], "head": picked[1]}
    in_name = {"model": model_name(view.model), "model_b": runs.file_model_b(view), "text_b": view.text_b, **diff_heads}
    figure_export.figure(fig, "compare", "compare_diff", view, figure_export.Source(named=in_name), model=named)

    st.subheader(t("compare_alignments"))
    drawn_sides = runs.alignments(view, both, picked)
    sides = (
        ("A", view.model, both.a, drawn_sides.a, drawn_sides.options_a, {}),
        ("B", runs.named_b(view), both.b, drawn_sides.b, drawn_sides.options_b, {"text": view.text_b}),
    )
    for column, (side, model, capture, shown, options, own) in zip(st.columns(2), sides):
        with column:
            st.markdown(f"**{t('compare_side', side=side, model=model)}**")
            source = figure_export.Source(capture, options, shown.selection.file_heads(), named=own)
            figure_export.figure(
                shown.figures["alignment"],
                f"compare-alignment-{side.lower()}",
                f"compare_alignment_{side.lower()}",
                view,
                source,
                model=model,
            )

    if parity is not None:
        st.subheader(t("compare_parity_title"))
        st.caption(
            t(
                "compare_parity",
                max=parity.max_difference,
                layer=parity.worst_layer,
                head=parity.worst_head,
                rows=parity.row_sum_error,
            )
        )
    elif view.dtype_b or view.device_b:  # a precision or device asked for B, but two inputs: nothing to hold equal
        st.info(t("compare_parity_needs_same"), icon=":material/info:")
    st.subheader(t("compare_ranking"))
    if runs.model_b(view) != view.model:
        st.caption(t("compare_paired_note"))
    # the map's name in the page's language
    table = [{**row, "kind": t(f"kind_{row['kind']}")} for row in compared.table()]
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "kind": st.column_config.TextColumn(t("compare_kind")),
            "layer": st.column_config.NumberColumn(t("layer"), format="%d"),
            "head": st.column_config.NumberColumn(t("head"), format="%d"),
            "layer_b": st.column_config.NumberColumn(t("compare_layer_b"), format="%d"),
            "head_b": st.column_config.NumberColumn(t("compare_head_b"), format="%d"),
            # three significant digits: one model in two precisions moves JS by 1e-6, never shown as 0.0000
            "js": st.column_config.NumberColumn(t("compare_js"), format="%.3g"),
        },
        width="stretch",
        height=min(420, 38 + 35 * layers * heads),
    )
