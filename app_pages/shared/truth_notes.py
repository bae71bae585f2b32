"""What a page says before its figures so that no one reads more into them than the model saw: the text is in a
language the model does not read (with buttons that switch to the models that do), the model read words as unknown
or was unsure of what it wrote (`attnviz.text.caveats`), and how sure it was at each step of a generation."""

from __future__ import annotations

import streamlit as st

from app_pages.shared.caches import catalogue_entries
from app_pages.shared.session import MODEL_CUSTOM, MODEL_PICK, VIEW, tr
from app_pages.shared.sidebar import model_label
from app_pages.shared.state import ViewState
from attnviz.maps import replay
from attnviz.text import caveats, language
from attnviz.text.tokens import shown


def _switch_model(name: str) -> None:
    """The button's callback: the view and the sidebar's picker move to `name` before the next run draws them."""
    st.session_state[VIEW].model = name
    st.session_state[MODEL_PICK] = name
    st.session_state[MODEL_CUSTOM] = ""


def language_check(view: ViewState) -> None:
    """Before the capture: a sentence when the text is in a script the chosen model does not read, and a button for
    each listed model that reads it (or a full model to load where none does)."""
    entries = catalogue_entries(view.lang)
    chosen = next((entry for entry in entries if entry.name == view.model), None)
    if chosen is None or not view.text.strip():
        return
    said = caveats.language_sentence(view.text, view.model, chosen.languages, view.lang)
    if said is None:
        return
    t = tr(view)
    st.warning(said, icon=":material/translate:")
    offered = [entry for entry in language.readers(entries, view.text) if entry.name != view.model]
    if not offered:
        st.caption(t("truth_language_none", suggestion=caveats.full_translator(view.text)))
        return
    st.markdown(t("truth_language_offer"))
    row = st.container(horizontal=True)  # each button as wide as its label, wrapping: no name cut to "Use Dem…"
    for entry in offered:
        row.button(
            t("truth_switch_model", model=model_label(view, entry.name, {e.name: e for e in entries})),
            key=f"w_truth_switch_{entry.name}",
            on_click=_switch_model,
            args=(entry.name,),
            help=entry.description,
        )


def caveat_notes(view: ViewState, result) -> None:
    """After the capture: one note per caveat (unknown words, unsure steps), in the page's language. A note, not
    `st.warning`, which the pages keep for what they could not do (an unreadable link, a text the model cannot read)."""
    for caveat in caveats.caveats(result):
        st.info(caveat.sentence(view.lang), icon=":material/report:")


def step_line(view: ViewState, scores: list[replay.StepScore], every: list[replay.StepScore] | None = None) -> None:
    """Under the replay slider: how sure the model was of the token(s) of the step shown, and what else it weighed."""
    t = tr(view)
    total = len(every) if every else max((score.step for score in scores), default=0)  # tokens written in all
    for score in scores:
        alternatives = t("truth_list_separator").join(
            t("truth_token_probability", token=text, probability=f"{probability:.2f}")
            for text, probability in score.alternatives
        )
        line = t(
            "truth_step_line",
            step=score.step,
            steps=total,
            token=f"“{shown(score.token)}”",
            probability=f"{score.probability:.2f}",
            alternatives=alternatives,
        )
        if not score.ranked_first:
            line += " " + t("truth_beam_chose")
        st.markdown(f"{line} **({t('truth_guess')})**" if score.unsure else line)


def beams_of(result) -> int:
    """The beams a generated result was written with, as its provenance records them (1: greedy or not recorded)."""
    options = (getattr(result, "provenance", None) or {}).get("options") or {}
    beams = options.get("num_beams", 1)
    return beams if isinstance(beams, int) and beams > 0 else 1


def step_table(view: ViewState, scores: list[replay.StepScore], beams: int = 1) -> None:
    """Every step's score in a table, opened by itself when the model guessed somewhere; with beam search, a
    sentence says why a written token need not be the step's most likely one."""
    if not scores:
        return
    t = tr(view)
    with st.expander(t("truth_steps_title"), expanded=any(score.unsure for score in scores)):
        st.caption(t("truth_steps_intro"))
        if beams > 1:
            st.caption(t("truth_steps_beams", beams=beams))
        rows = [
            {
                t("truth_column_step"): score.step,
                t("truth_column_token"): shown(score.token) + (f" ({t('truth_guess')})" if score.unsure else ""),
                t("truth_column_probability"): round(score.probability, 3),
                t("truth_column_alternatives"): t("truth_list_separator").join(
                    f"{text} {probability:.2f}" for text, probability in score.alternatives
                ),
            }
            for score in scores
        ]
        st.dataframe(rows, hide_index=True, key="w_truth_steps")
