"""Heads: statistics of every layer × head, sortable, and a way to open any head on the other pages."""

import streamlit as st

from app_pages.heads.choices import defined_statistics, page_for_head
from app_pages.shared import caches, faithfulness, figure_export, head_effects, long_text, navigation, session
from app_pages.shared.page_errors import shown_errors
from attnviz import figures
from attnviz.maps import head_stats

view = session.state()
t = session.tr(view)
st.title(t("heads_title"))
st.caption(t("heads_intro"))
session.link_warnings(view)

with shown_errors(view):
    model = long_text.page_model(view)  # a text longer than the chosen model reads: as on Self-attention
    tokens = long_text.truncate_choice(view, model)
    handle, result = caches.analysis(view, model)
    long_text.truncation_note(view, result, tokens)
    controls = st.columns([2, 2, 3])
    kinds = result.kinds
    session.bound(controls[0].selectbox, "kind", t("heads_map"), options=kinds, format_func=lambda k: t(f"kind_{k}"))
    if not result.is_complete:  # a long text: statistics streamed tile by tile, no map held
        amap, values = None, caches.lazy_statistics(view, view.kind, model)
        layer_names = result.layer_names(view.kind)
    else:
        amap = result[view.kind]
        values, layer_names = head_stats.head_statistics(amap), amap.layer_names
    num_layers, num_heads = next(iter(values.values())).shape
    statistics = defined_statistics(values)
    session.bound(
        controls[1].selectbox, "stat", t("statistic"), options=statistics, format_func=lambda s: t(f"stat_{s}")
    )
    controls[2].caption(t(f"stat_help_{view.stat}"))

    rows = head_stats.statistics_table(values, layer_names)
    for row in rows:  # the role in the page's language; "" (none) stays empty
        row["role"] = t(f"role_{row['role']}") if row["role"] else ""
    table, heatmap = st.container(), st.container()  # one above the other: every column and number readable
    with table:
        st.dataframe(
            rows,
            key="w_head_table",
            on_select=lambda: navigation.table_selects_head(num_heads),
            selection_mode="single-row",
            hide_index=True,
            column_order=["layer", "head", "role", *statistics],
            column_config={
                "layer": st.column_config.NumberColumn(t("layer"), format="%d", width="small"),
                "head": st.column_config.NumberColumn(t("head"), format="%d", width="small"),
                "role": st.column_config.TextColumn(t("role"), help=t("role_help", threshold=head_stats.ROLE_FROM)),
                **{
                    s: st.column_config.NumberColumn(t(f"stat_{s}"), format="%.3f", help=t(f"stat_help_{s}"))
                    for s in statistics
                },
            },
            width="stretch",
            height=min(420, 38 + 35 * num_layers * num_heads),
        )
        st.caption(t("role_rule", threshold=head_stats.ROLE_FROM) + " " + t("table_hint"))
    with heatmap:
        grid = figures.statistic_grid(
            values=values, statistic=view.stat, kind=view.kind, style=figures.FigureStyle(lang=view.lang)
        )
        source = figure_export.Source(None if amap is None else result)
        clickable = figures.clickable_heads(grid, figures.FigureStyle(lang=view.lang))
        page, changes = page_for_head(view.kind)
        figure_export.figure(
            grid,
            "head-statistics",
            "heads_statistic",
            view,
            source,
            model=model,
            on_select=lambda: navigation.grid_opens_head("heads_statistic", page, changes),
            screen=clickable,
        )
        st.caption(t("find_grid_hint"))

    head_effects.section(view, model, view.kind, "heads_effects")
    faithfulness.section(view, handle, result, long=not result.is_complete, key="heads_faithfulness")

    st.subheader(t("open_head_title"))
    chooser = st.columns([1, 1, 3], vertical_alignment="bottom")
    session.bound(chooser[0].selectbox, "layer", t("layer"), options=range(num_layers))
    session.bound(chooser[1].selectbox, "head", t("head"), options=range(num_heads))
    page, changes = page_for_head(view.kind)
    chooser[2].button(
        t(f"open_on_{page}", layer=view.layer, head=view.head),
        key="open_head",
        on_click=navigation.open_head,
        args=(page, view.layer, view.head),
        kwargs=changes,
        type="primary",
        icon=":material/open_in_new:",
    )
