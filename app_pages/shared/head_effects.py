"""Which heads matter, on the pages: the "Does it matter?" grid (Heads, Self-attention) of every head's exact effect
on the model's output when it is removed, and Find a head by effect (Self-attention, Translate & align), which ranks
the heads of a map by their effect on one target token. Both run the model (`caches.head_effects`), so both start
from a button; whether they are shown is the view's `effects` field, part of the page's link."""

from __future__ import annotations

import math

import streamlit as st

from app_pages.heads.choices import page_for_head
from app_pages.shared import caches, figure_export, navigation
from app_pages.shared.page_errors import shown_errors
from app_pages.shared.session import VIEW, bound, tr
from app_pages.shared.state import ViewState
from attnviz import figures
from attnviz.view import find_head

TOP = 6  # heads offered as buttons; the rest are in the ranking's table
AGREE, PARTLY = 0.7, 0.4  # Spearman ρ from which the estimate is said to agree, or to agree partly


def _shown(shown: bool) -> None:
    st.session_state[VIEW].effects = shown


def _compute_button(view: ViewState, key: str) -> None:
    st.button(
        tr(view)("effects_button"),
        key=key,
        help=tr(view)("effects_button_help"),
        on_click=_shown,
        args=(True,),
        type="primary",
        icon=":material/science:",
    )


def section(view: ViewState, name: str, kind: str, chart: str) -> None:
    """The "Does it matter?" section for the heads of map `kind` with model `name`: what it measures, a button,
    then the grid (a click on a head opens it where its map is shown), what the numbers mean and the estimate's
    agreement. `chart`: the grid's key, unique on the page."""
    t = tr(view)
    st.subheader(t("effects_title"))
    st.caption(t("effects_intro"))
    if not view.effects:
        _compute_button(view, f"{chart}_compute")
        return
    with shown_errors(view):
        effects, rhos = caches.head_effects(view, name)
        if kind not in effects.total:
            st.info(t("effects_stack_missing", kind=t(f"kind_{kind}")), icon=":material/info:")
            return
        style = figures.FigureStyle(lang=view.lang)
        grid = figures.effect_grid(effects.total[kind], effects.metric, kind=kind, style=style)
        page, changes = page_for_head(kind)
        figure_export.figure(
            grid,
            "head-effects",
            chart,
            view,
            figure_export.Source(provenance=effects.provenance),
            model=name,
            on_select=lambda: navigation.grid_opens_head(chart, page, changes),
            screen=figures.clickable_heads(grid, style),
        )
        st.caption(t("find_grid_hint"))
        st.markdown(_meaning(view, effects))
        st.caption(_agreement(view, rhos.get(kind, math.nan)))  # this grid's heads, not every stack's
    st.button(t("effects_hide"), key=f"{chart}_hide", on_click=_shown, args=(False,), icon=":material/visibility_off:")


def _meaning(view: ViewState, effects) -> str:
    """What each number of the grid is, for the metric the effects measured."""
    t = tr(view)
    if effects.metric == "cosine":
        return t("effects_meaning_cosine")
    target = effects.provenance.get("target_text") or ""
    said = t("effects_meaning_log_prob", target=target, count=len(effects.target_tokens))
    return said + (" " + t("effects_written") if effects.provenance["options"].get("generated") else "")


def _agreement(view: ViewState, rho: float) -> str:
    """The fast estimate's rank agreement with the exact effects, in words."""
    t = tr(view)
    if not math.isfinite(rho):
        return t("effects_agreement_none")
    verdict = "effects_agree" if rho >= AGREE else "effects_agree_partly" if rho >= PARTLY else "effects_disagree"
    return t("effects_agreement", rho=f"{rho:.2f}", verdict=t(verdict))


def find_by_effect(view: ViewState, handle, name: str, kind: str) -> None:
    """Find a head by effect: pick a target token, the heads of map `kind` ranked by the exact change in its
    log-probability when each is removed, each one click from opening. An encoder writes no target: said so."""
    t = tr(view)
    st.subheader(t("effects_find_title"))
    if handle.kind == "encoder":
        st.caption(t("effects_find_encoder", model=name))  # a plain note: nothing went wrong, there is no target
        return
    st.caption(t("effects_find_intro"))
    if not view.effects:
        st.caption(t("effects_find_needs"))
        _compute_button(view, f"find_effect_{kind}_compute")
        return
    with shown_errors(view):
        effects, _ = caches.head_effects(view, name)
        target = effects.provenance.get("target_text")  # the text the target tokens' offsets point into
        choices = find_head.effect_choices(effects.target_tokens, target, view.words, view.hide_special)  # as drawn
        labels = ["", *(choice.label for choice in choices)]
        pick = {"options": labels, "format_func": lambda label: label or t("find_pick")}
        label = bound(st.selectbox, "find_effect", t("effects_find_token"), **pick)
        if view.words:
            st.caption(t("effects_find_words"))
        token = next((choice for choice in choices if choice.label == label), None)
        if token is None:
            return
        ranked = find_head.rank_heads_by_effect(effects.per_token, token, stacks=[kind])
        _buttons(view, ranked, token, kind)
        _table(view, ranked, token)


def _buttons(view: ViewState, ranked: list[find_head.EffectMatch], token, kind: str) -> None:
    """The heads whose removal lowers the token's log-probability most, as buttons that open them; the top one said."""
    t = tr(view)
    page, changes = page_for_head(kind)
    for rank, (column, match) in enumerate(zip(st.columns(TOP), ranked), start=1):
        effect = f"{match.effect:+.3f}"
        column.button(
            t("effects_find_open", layer=match.layer, head=match.head, effect=effect),
            key=f"find_effect_open_{rank}",
            help=t("effects_find_open_help", layer=match.layer, head=match.head, token=token.text, effect=effect),
            on_click=navigation.open_head,
            args=(page, match.layer, match.head),
            kwargs=changes,
            type="primary" if rank == 1 else "secondary",
            width="stretch",
        )
    top = ranked[0]
    factor = f"{math.exp(top.effect):.3g}"
    said = t(
        "effects_find_said",
        layer=top.layer,
        head=top.head,
        token=token.text,
        effect=f"{top.effect:+.3f}",
        factor=factor,
    )
    st.markdown(said)


def _table(view: ViewState, ranked: list[find_head.EffectMatch], token) -> None:
    """Every head of the map, ranked by effect."""
    t = tr(view)
    rows = [{"rank": rank, "layer": m.layer, "head": m.head, "effect": m.effect} for rank, m in enumerate(ranked, 1)]
    with st.expander(t("effects_find_ranking", count=len(rows))):
        st.dataframe(
            rows,
            key="w_find_effect_table",
            hide_index=True,
            column_config={
                "rank": st.column_config.NumberColumn(t("find_rank"), format="%d"),
                "layer": st.column_config.NumberColumn(t("layer"), format="%d"),
                "head": st.column_config.NumberColumn(t("head"), format="%d"),
                "effect": st.column_config.NumberColumn(
                    t("effects_find_column", token=token.text), format="%.4f", help=t("effects_find_column_help")
                ),
            },
            width="stretch",
            height=min(420, 38 + 35 * len(rows)),
        )
