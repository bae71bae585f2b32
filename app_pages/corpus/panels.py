"""The Corpus page's parts: where a report comes from (a folder, uploaded files, or a small corpus run here with a
progress bar), and what it shows (the summary, the gold maps and best heads, head statistics, pairs, bad lines),
each head and pair one click from opening on the Translate & align page."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from app_pages.shared import caches, figure_export, navigation, uploader
from app_pages.shared.session import MODEL_CUSTOM, MODEL_PICK, VIEW, bound, held, reset_widgets, tr
from app_pages.shared.state import ViewState
from attnviz import figures, i18n
from attnviz.corpus.html_report import head_grid, report_figures
from attnviz.corpus.job import JobConfig, run_job
from attnviz.corpus.report import (
    REPORT_FILES,
    bad_lines_in,
    links_sentences,
    pair_view,
    read_report,
    read_report_files,
    report_options,
    unread_sentences,
)
from attnviz.corpus.shards import JobOptions
from attnviz.model.policy import Policy

REPORT = "attnviz_corpus_report"  # session key of the report shown
RUN = "attnviz_corpus_run"  # session key of the page's own choices (`CorpusRun`)
LIVE_LIMIT = 200  # lines a corpus run in the app may hold
GOLD_MAP = "chart_corpus_gold"
SCORE_COLUMNS = ("aer", "precision", "recall")


@dataclass
class CorpusRun:
    """The Corpus page's choices that are not part of a shareable view: kept in the session, so that the pasted lines
    and boxes outlive a switch of page or language (Streamlit forgets a widget it does not draw)."""

    corpus_source: str = "open"  # "open" a report, or "run" a small corpus here
    corpus_lines: str = ""
    corpus_has_gold: bool = False
    corpus_segmented: bool = False
    corpus_kind: str = ""  # the statistics' map ("" until a report offers its kinds: the first)
    corpus_stat: str = ""  # … and statistic


def choices() -> CorpusRun:
    return held(RUN, CorpusRun)


def source_choice(view: ViewState) -> str:
    t = tr(view)
    return bound(
        st.radio,
        "corpus_source",
        t("corpus_source"),
        ("open", "run"),
        holder=choices(),
        horizontal=True,
        format_func=lambda s: t(f"corpus_source_{s}"),
    )


def opened_folder(view: ViewState) -> None:
    """The report of the folder in the view (and its link), read once per folder."""
    if not view.corpus:
        return
    held = st.session_state.get(REPORT)
    if held is None or held.get("folder") != view.corpus:
        st.session_state.pop(REPORT, None)  # a folder that cannot be opened leaves no other report on show
        Policy.from_settings().check_folder(view.corpus)
        st.session_state[REPORT] = read_report(Path(view.corpus)) | {"folder": view.corpus}


def open_controls(view: ViewState) -> None:
    t = tr(view)
    bound(st.text_input, "corpus", t("corpus_folder"), help=t("corpus_folder_help"))
    uploaded = uploader.file_uploader(
        view,
        t("corpus_upload"),
        types=["json", "parquet"],
        multiple=True,
        key="corpus_upload",
        help=t("corpus_upload_help"),
    )
    if uploaded:
        files = {f.name: f.getvalue() for f in uploaded if f.name in REPORT_FILES}
        names = ", ".join(f.name for f in uploaded)  # named in the error when they make no report
        st.session_state[REPORT] = read_report_files(files, names) | {"folder": ""}
    opened_folder(view)


def run_controls(view: ViewState) -> None:
    t = tr(view)
    run = choices()
    lines = bound(
        st.text_area, "corpus_lines", t("corpus_lines"), holder=run, help=t("corpus_lines_help", limit=LIVE_LIMIT)
    )
    columns = st.columns(3, vertical_alignment="bottom")
    with columns[0]:
        gold = bound(st.checkbox, "corpus_has_gold", t("corpus_has_gold"), holder=run)
    with columns[1]:
        segmented = bound(
            st.checkbox, "corpus_segmented", t("corpus_is_segmented"), holder=run, help=t("corpus_is_segmented_help")
        )
    if columns[2].button(
        t("corpus_run", model=view.model), key="corpus_run", type="primary", disabled=not lines.strip()
    ):
        kept, cut = within_limit(lines.splitlines())
        st.session_state[REPORT] = run_live(view, "\n".join(kept) + "\n", JobOptions(gold=gold, segmented=segmented))
        if cut:
            st.session_state[REPORT]["cut"] = cut


def within_limit(lines: list[str]) -> tuple[list[str], int]:
    """(the lines up to the LIVE_LIMIT-th that is not blank, how many more are not blank): blank lines are no pairs,
    and they stay, so the line numbers of the report are the box's."""
    seen = 0
    for index, line in enumerate(lines):
        seen += bool(line.strip())
        if seen > LIVE_LIMIT:
            return lines[:index], sum(bool(rest.strip()) for rest in lines[index:])
    return lines, 0


def run_live(view: ViewState, lines: str, options: JobOptions) -> dict:
    """A small corpus run in this process on the view's model, with a progress bar; its report."""
    t = tr(view)
    handle = caches.model(view)
    folder = Path(tempfile.mkdtemp(prefix="attnviz-corpus-"))
    (folder / "pairs.tsv").write_text(lines, encoding="utf-8")
    bar = st.progress(0.0)

    def progress(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=t("corpus_running", done=done, total=total))

    config = JobConfig(view.model, folder / "pairs.tsv", folder / "report", options, view.device, shard_size=32)
    run_job(config, progress, handle=handle)
    bar.empty()
    return read_report(folder / "report") | {"folder": ""}


def _open_head_of(layer, head) -> None:
    navigation.open_head("translate", int(layer), int(head), cross_aggregation="head")


def _table_opens_head(key: str, rows_of) -> None:
    rows = st.session_state[key]["selection"]["rows"]
    if rows:
        layer, head = rows_of(rows[0])
        _open_head_of(layer, head)


def _gold_map_opens_head() -> None:
    points = st.session_state[GOLD_MAP]["selection"]["points"]
    if points:
        _open_head_of(int(points[0]["y"]), int(points[0]["x"]))


def gold_section(view: ViewState, report: dict, drawn: dict) -> None:
    t = tr(view)
    heads = report["heads"]
    st.subheader(t("corpus_gold_title"))
    for sentence in links_sentences(report["summary"], view.lang):
        st.markdown(sentence)
    left, right = st.columns([3, 2])
    with left:
        fig = figures.score_grid(head_grid(heads, "cross", "aer"), "aer", style=figures.FigureStyle(lang=view.lang))
        # model=None: a file named after the page's text would name a pair this figure does not show
        figure_export.figure(
            fig, "corpus-head-aer", GOLD_MAP.removeprefix("chart_"), view, on_select=_gold_map_opens_head
        )
        st.caption(t("corpus_gold_map_hint"))
        figure_export.figure(drawn["gold.layers"], "corpus-layer-aer", "corpus_layers", view)
    with right:
        best = heads[heads["kind"] == "cross"].sort_values("aer_rank")[["layer", "head", *SCORE_COLUMNS]]
        best = best.reset_index(drop=True)
        st.dataframe(
            best,
            key="corpus_best_heads",
            hide_index=True,
            selection_mode="single-row",
            on_select=lambda: _table_opens_head("corpus_best_heads", lambda r: tuple(best.iloc[r][:2])),
            column_config=_score_columns(view),
        )
        st.caption(t("corpus_head_table_hint"))


def _score_columns(view: ViewState) -> dict:
    t = tr(view)
    return {
        "layer": st.column_config.NumberColumn(t("corpus_column_layer"), format="%d"),
        "head": st.column_config.NumberColumn(t("corpus_column_head"), format="%d"),
        **{c: st.column_config.NumberColumn(t(f"corpus_stat_{c}"), format="%.3f") for c in SCORE_COLUMNS},
    }


def statistics_section(view: ViewState, report: dict, drawn: dict) -> None:
    t = tr(view)
    st.subheader(t("corpus_statistics_title"))
    kinds = report["summary"]["kinds"]
    choice = st.columns(2)
    with choice[0]:
        kind = bound(
            st.selectbox, "corpus_kind", t("corpus_map"), kinds, holder=choices(), format_func=lambda k: t(f"kind_{k}")
        )
    stats = [s for s in report["summary"]["statistics"] if f"{kind}.{s}" in drawn]
    with choice[1]:
        stat = bound(
            st.selectbox, "corpus_stat", t("statistic"), stats, holder=choices(), format_func=lambda s: t(f"stat_{s}")
        )
    if stat:
        figure_export.figure(drawn[f"{kind}.{stat}"], f"corpus-{kind}-{stat}", "corpus_statistic", view)


def _pair_opens(pairs) -> None:
    rows = st.session_state["corpus_pairs"]["selection"]["rows"]
    if rows:
        summary = st.session_state[REPORT]["summary"]
        view = st.session_state[VIEW]
        default = ViewState()  # the pair opens as the job scored it: its model's alignment view, not the last head
        changes = {
            "gold": "",
            "gold_reverse": "",
            "segmented": False,
            "cross_aggregation": default.cross_aggregation,
            "layer": default.layer,
            "head": default.head,
        }
        changes |= pair_view(summary["model"], pairs.iloc[rows[0]].to_dict(), report_options(summary))
        for name, value in changes.items():
            setattr(view, name, value)
        for key in (MODEL_PICK, MODEL_CUSTOM):  # the sidebar's picker starts again from the view's model
            st.session_state.pop(key, None)
        reset_widgets(*changes)
        st.session_state[navigation.GOTO] = navigation.PAGES["translate"]


PAIR_COLUMNS = (
    "line",
    "source",
    "target",
    "source_words",
    "target_words",
    "gold",
    "aer",
    "precision",
    "recall",
    "best_layer",
    "best_head",
    "best_aer",
    "both_aer",
    "source_tokens",
    "target_tokens",
)  # first, in this order; statistics follow


def pairs_section(view: ViewState, report: dict) -> None:
    t = tr(view)
    pairs = report["pairs"]
    st.subheader(t("corpus_pairs_title"))
    hidden = ("link", "source_read", "reverse_read")  # in the file, not the table
    first = [c for c in PAIR_COLUMNS if c in pairs.columns]
    rest = [c for c in pairs.columns if c not in first and c not in hidden]
    shown = pairs[first + rest].reset_index(drop=True)
    st.dataframe(
        shown,
        key="corpus_pairs",
        hide_index=True,
        selection_mode="single-row",
        on_select=lambda: _pair_opens(pairs.reset_index(drop=True)),
        height=320,
        column_config=_pair_columns(view, rest),
    )
    st.caption(t("corpus_pairs_hint"))


def _pair_columns(view: ViewState, statistics: list[str]) -> dict:
    """The pairs table's headings in the UI language: "encoder.entropy" reads "Encoder · entropy"."""
    t = tr(view)
    named = {c: t(f"corpus_pair_{c}") for c in PAIR_COLUMNS}
    for column in statistics:
        kind, _, name = column.partition(".")
        if i18n.has(f"kind_{kind}", view.lang) and i18n.has(f"stat_{name}", view.lang):
            named[column] = f"{t(f'kind_{kind}')} · {t(f'stat_{name}')}"
    return named


def bad_lines_section(view: ViewState, report: dict) -> None:
    t = tr(view)
    bad = report["bad_lines"]
    if len(bad):
        st.subheader(t("corpus_bad_lines", count=len(bad)))
        st.dataframe(
            bad_lines_in(bad, view.lang),
            key="corpus_bad",
            hide_index=True,
            column_config={
                "line": t("corpus_column_line"),
                "message": t("corpus_column_message"),
                "text": t("corpus_column_text"),
            },
        )


def _engine_name(t, summary: dict) -> str:
    engine = summary.get("engine", "")
    return t("corpus_engine_inprocess") if engine == "inprocess" else engine  # "ray" is a name in both languages


def show_report(view: ViewState, report: dict) -> None:
    t = tr(view)
    summary = report["summary"]
    st.success(
        t(
            "corpus_summary",
            model=summary["model"],
            pairs=summary["pairs"],
            bad=summary["bad_lines"],
            shards=summary["shards"],
            seconds=summary.get("seconds", "–"),
            engine=_engine_name(t, summary),
        ),
        icon=":material/dataset:",
    )
    if report.get("cut"):
        st.warning(t("corpus_lines_cut", limit=LIVE_LIMIT, cut=report["cut"]), icon=":material/content_cut:")
    for sentence in unread_sentences(summary, view.lang):
        st.warning(sentence, icon=":material/translate:")
    drawn = report_figures(report, view.lang)
    if "gold.aer" in drawn:
        gold_section(view, report, drawn)
    if summary["pairs"]:
        statistics_section(view, report, drawn)
        pairs_section(view, report)
    bad_lines_section(view, report)
