"""Finding a head on the Self-attention page: pick a query and a key token (two selectors, or a click on either
column of the head-line view), every layer × head ranked by that weight (`find_head.rank_heads`), each one click
from opening; a click on the layer × head grid opens that head; a click on a token isolates its head lines."""

from __future__ import annotations

import streamlit as st

from app_pages.shared import figure_export
from app_pages.shared.session import VIEW, bound, reset_widgets, tr
from app_pages.shared.state import ViewState
from attnviz.view import find_head, viewing

LINES_KEY, GRID_KEY = "self_lines", "self_grid"  # the charts whose clicks this module reads (figure_export keys)
TOP = 6  # heads offered as buttons; the rest are in the ranking's table


CHOICES = "attnviz_token_choices"  # session key: the choices last made, per side, and the result they were made of


def choices(view: ViewState, result, kind: str, side: str) -> list[find_head.TokenChoice]:
    """The tokens of one side a person can pick, as the view draws them (words, hidden special tokens).

    Kept for the session while the result object stays the same (a long text's capture is shared, not copied, so
    each control change would otherwise merge its thousands of pieces into words again)."""
    made = st.session_state.setdefault(CHOICES, {})
    key = (side, kind, view.words, view.hide_special)
    kept = made.get(key)
    if kept is not None and kept[0] is result:
        return kept[1]
    found = find_head.token_choices(result, kind, side, words=view.words, hide_special=view.hide_special)
    made[key] = (result, found)  # holding the result: its id cannot pass to another object meanwhile
    return found


def picked(view: ViewState, options: list[find_head.TokenChoice], label: str) -> find_head.TokenChoice | None:
    return next((choice for choice in options if choice.label == label), None)


def lines_query(view: ViewState, result, kind: str) -> int | None:
    """The row of the drawn map whose head lines alone are shown, or None for every line."""
    choice = picked(view, choices(view, result, kind, "query"), view.lines_token)
    return None if choice is None else choice.index


def open_head(layer: int, head: int) -> None:
    """Show (layer, head) in this page's figures (a callback: the selectors start from the view on the next run)."""
    view = st.session_state[VIEW]
    view.layer, view.head, view.self_aggregation = int(layer), int(head), "head"
    reset_widgets("layer", "head", "self_aggregation")


def grid_clicked() -> None:
    """The grid's click callback: open the clicked head."""
    points = figure_export.clicked_points(GRID_KEY)
    if points and points[0].get("customdata"):
        layer, head = points[0]["customdata"][:2]
        open_head(layer, head)


def lines_clicked(query_labels: list[str], key_labels: list[str]) -> None:
    """The head lines' click callback: a token of the left column (a query) shows only its lines and becomes the
    search's query; one of the right column becomes its key; a click that selects nothing shows every line."""
    view = st.session_state[VIEW]
    points = figure_export.clicked_points(LINES_KEY)
    data = points[0].get("customdata") if points else None
    if not data:
        view.lines_token = ""
        return
    side, index = data[0], int(data[1])
    if side == "query" and index < len(query_labels):
        view.lines_token = view.find_query = query_labels[index]
    elif side == "key" and index < len(key_labels):
        view.find_key = key_labels[index]
    reset_widgets("find_query", "find_key")


def lines_note(view: ViewState) -> None:
    """Under the head lines: how to click them, and a way back to every line when one token's are shown."""
    t = tr(view)
    if not view.lines_token:
        st.caption(t("find_lines_hint"))
        return
    st.caption(t("find_lines_isolated", token=view.lines_token))
    st.button(t("find_lines_show_all"), key="lines_show_all", on_click=_show_every_line, icon=":material/clear_all:")


def _show_every_line() -> None:
    st.session_state[VIEW].lines_token = ""


def opened_weight(view: ViewState, shown: viewing.Shown, result, kind: str) -> None:
    """Under the figures: the searched pair's weight as the opened view draws it."""
    query = picked(view, choices(view, result, kind, "query"), view.find_query)
    key = picked(view, choices(view, result, kind, "key"), view.find_key)
    if query is None or key is None:
        return
    t = tr(view)
    weight = find_head.pair_weight(shown.selection, query, key)
    if weight is None:
        st.caption(t("find_not_drawn", query=query.text, looked_at=key.text))
        return
    drawn = shown.figures["heatmap"].layout.title.text.split("<br>")[0]
    st.markdown(t("find_opened", selection=drawn, query=query.text, looked_at=key.text, weight=f"{weight:.2f}"))


@st.cache_data(show_spinner=False, max_entries=32)
def _ranked(
    _result, identity: tuple, kind: str, query: find_head.TokenChoice, key: find_head.TokenChoice, weighting: str
):
    """`find_head.rank_heads`, once per input, pair and weighting (`identity` names the input; the result is not
    hashed)."""
    return find_head.rank_heads(_result, kind, query, key, weighting)


def section(view: ViewState, result, kind: str) -> None:
    """Find a head: the two selectors, the strongest heads as buttons, every head in a table."""
    t = tr(view)
    st.subheader(t("find_title"))
    st.caption(t("find_intro"))
    queries, keys = choices(view, result, kind, "query"), choices(view, result, kind, "key")
    columns = st.columns(2)
    pick = {"format_func": lambda label: label or t("find_pick")}
    bound(columns[0].selectbox, "find_query", t("find_query"), options=["", *(c.label for c in queries)], **pick)
    bound(columns[1].selectbox, "find_key", t("find_key"), options=["", *(c.label for c in keys)], **pick)
    query, key = picked(view, queries, view.find_query), picked(view, keys, view.find_key)
    if query is None or key is None:
        return
    identity = (view.model, view.device, view.text, view.target, view.mode, result.is_complete)
    ranked = _ranked(result, identity, kind, query, key, view.weighting)
    st.caption(t(f"find_ranked_by_{view.weighting.replace('-', '_')}"))  # what the buttons and the table rank
    buttons = st.columns(TOP)
    for rank, (column, match) in enumerate(zip(buttons, ranked), start=1):
        column.button(
            t("find_open", layer=match.layer, head=match.head, weight=f"{match.weight:.2f}"),
            key=f"find_open_{rank}",
            help=t("find_open_help", layer=match.layer, head=match.head),
            on_click=open_head,
            args=(match.layer, match.head),
            type="primary" if rank == 1 else "secondary",
            width="stretch",
        )
    _table(view, ranked, query, key)


def _table(view: ViewState, ranked: list[find_head.HeadMatch], query, key) -> None:
    """Every head, ranked, sortable; a click on a row opens that head."""
    t = tr(view)
    rows = [{"rank": rank, "layer": m.layer, "head": m.head, "weight": m.weight} for rank, m in enumerate(ranked, 1)]
    with st.expander(t("find_ranking", count=len(rows))):
        st.dataframe(
            rows,
            key="w_find_table",
            on_select=lambda: _table_opens(ranked),
            selection_mode="single-row",
            hide_index=True,
            column_config={
                "rank": st.column_config.NumberColumn(t("find_rank"), format="%d"),
                "layer": st.column_config.NumberColumn(t("layer"), format="%d"),
                "head": st.column_config.NumberColumn(t("head"), format="%d"),
                "weight": st.column_config.NumberColumn(
                    t("find_weight", query=query.text, looked_at=key.text), format="%.3f", help=t("find_weight_help")
                ),
            },
            width="stretch",
            height=min(420, 38 + 35 * len(rows)),
        )
        st.caption(t("find_table_hint"))


def _table_opens(ranked: list[find_head.HeadMatch]) -> None:
    rows = st.session_state["w_find_table"]["selection"]["rows"]
    if rows:
        match = ranked[rows[0]]
        open_head(match.layer, match.head)
