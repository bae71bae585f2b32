"""The Atlas page's parts: the long text (typed or a .txt), the run with its progress bar and stop button, the poster
of every head filtered by pattern, the table of statistics (sortable; a row opens its head) and the zoom into one
head's block map and an exact window of it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import streamlit as st

from app_pages.shared import caches, figure_export, session, uploader
from app_pages.shared.state import ViewState
from attnviz import figures
from attnviz.atlas import AtlasCapture, capture_atlas
from attnviz.errors import InputError
from attnviz.export.atlas_file import atlas_npz_bytes
from attnviz.figures.atlas import atlas_poster, block_map
from attnviz.maps import atlas_stats
from attnviz.view import selection

BLOCKS = (16, 32, 64, 128)  # tokens per block the page offers (64: the library's and the command line's default)
WINDOWS = (32, 64, 128, 256)  # tokens per side of an exact window
ATLAS = "attnviz_atlas"  # session key: (what it was computed from, the AtlasCapture)
RUNNING = "attnviz_atlas_running"  # set while a run is in flight: still set on the next run, the run was stopped
CHOSEN = "attnviz_atlas_head"  # session key: the (layer, head) the zoom shows
SHOWN_STATISTICS = ("sink", "local", "entropy_ratio", *atlas_stats.PATTERNS)


@dataclass(frozen=True)
class Asked:
    """What an atlas is computed from: the model, device, text, block size and truncation."""

    model: str
    device: str
    text_hash: str
    block: int
    truncate: bool


def long_text(view: ViewState) -> str:
    """The text of the atlas: the page's own text area, or an uploaded .txt file, which replaces it."""
    t = session.tr(view)
    upload = uploader.file_uploader(view, t("atlas_upload"), key="w_atlas_upload", types=["txt"])
    if upload is not None:
        try:
            return upload.getvalue().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("cli_input_not_text", path=upload.name, detail="UTF-8") from None
    return st.text_area(t("atlas_text"), value=view.text, height=160, key="w_atlas_text")


def run(view: ViewState, text: str, block: int, truncate: bool) -> None:
    """Compute the atlas when asked (a progress bar per attention call, a stop button), kept for this session."""
    t = session.tr(view)
    buttons = st.columns([1, 1, 4])
    start = buttons[0].button(t("atlas_run"), key="atlas_run", type="primary", icon=":material/play_arrow:")
    # Any click reruns the page, which ends the run in flight at its next progress update: the stop button is one.
    buttons[1].button(t("atlas_stop"), key="atlas_stop", help=t("atlas_stop_help"), icon=":material/stop:")
    if st.session_state.pop(RUNNING, False):
        st.info(t("atlas_stopped"), icon=":material/stop_circle:")
    if not start:
        return
    if not text.strip():
        raise InputError("text_empty", what=t("atlas_text"))
    handle = caches.model(view)
    bar = st.progress(0.0, text=t("atlas_progress", done=0, total="…"))

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=t("atlas_progress", done=done, total=total))

    st.session_state[RUNNING] = True
    atlas = capture_atlas(handle, text, block=block, truncate=truncate, progress=progress)
    st.session_state[RUNNING] = False
    bar.empty()
    asked = Asked(view.model, view.device, hashlib.sha256(text.encode()).hexdigest(), block, truncate)
    st.session_state[ATLAS] = (asked, atlas)
    st.session_state.pop(CHOSEN, None)


def current() -> AtlasCapture | None:
    """This session's atlas, if one was computed."""
    kept = st.session_state.get(ATLAS)
    return None if kept is None else kept[1]


def summary(view: ViewState, atlas: AtlasCapture, kind: str) -> None:
    """What the atlas holds, how it was computed (routes) and what it keeps, and its file."""
    t = session.tr(view)
    amap = atlas[kind]
    said = t(
        "atlas_done",
        layers=amap.num_layers,
        heads=amap.num_heads,
        tokens=len(amap.query_tokens),
        block=amap.block,
        size=f"{atlas.window_bytes / 2**20:,.0f} MiB",
    )
    st.success(said, icon=":material/check_circle:")
    refused = sorted({entry["refused"] for entry in atlas.atlas.provenance["routes"] if "refused" in entry})
    if refused:
        st.warning(t("atlas_fell_back", routes=", ".join(refused)), icon=":material/warning:")
    st.download_button(
        t("atlas_download"),
        data=lambda: atlas_npz_bytes(atlas.atlas),
        file_name="atlas.npz",
        mime="application/octet-stream",
        key="atlas_download",
        help=t("atlas_download_help"),
        icon=":material/download:",
    )


def overview(view: ViewState, atlas: AtlasCapture, kind: str, labels: np.ndarray) -> np.ndarray:
    """The poster of every head, those of the patterns chosen coloured; returns bool (layers, heads) of those shown."""
    t = session.tr(view)
    amap = atlas[kind]
    choices = [label for label in atlas_stats.LABELS if (labels == label).any()]
    chosen = st.multiselect(
        t("atlas_filter"),
        choices,
        default=choices,
        format_func=lambda label: t(f"atlas.pattern_{label}"),
        key="w_atlas_filter",
        help=t("atlas_pattern_rule", recall=atlas_stats.PATTERN_RECALL, budget=atlas_stats.PATTERN_BUDGET),
    )
    shown = np.isin(labels, chosen)
    poster = atlas_poster(amap, shown=shown, style=figures.FigureStyle(lang=view.lang, model=view.model))
    source = figure_export.Source(provenance=atlas.atlas.provenance)
    figure_export.figure(poster, "atlas", "atlas_poster", view, source, model=view.model)
    return shown


def table(view: ViewState, atlas: AtlasCapture, kind: str, labels: np.ndarray, shown: np.ndarray) -> None:
    """The heads shown, one row each with their pattern and statistics; a selected row opens its head below."""
    t = session.tr(view)
    stats = atlas.statistics(kind)
    heads = [(layer, head) for layer, head in zip(*np.nonzero(shown))]
    rows = [
        {
            "layer": int(layer),
            "head": int(head),
            "pattern": t(f"atlas.pattern_{labels[layer, head]}"),
            **{name: float(stats[name][layer, head]) for name in SHOWN_STATISTICS},
        }
        for layer, head in heads
    ]
    st.dataframe(
        rows,
        key="w_atlas_table",
        on_select="rerun",
        selection_mode="single-row",
        hide_index=True,
        column_config={
            "layer": st.column_config.NumberColumn(t("layer"), format="%d", width="small"),
            "head": st.column_config.NumberColumn(t("head"), format="%d", width="small"),
            "pattern": st.column_config.TextColumn(t("atlas_pattern")),
            **{
                name: st.column_config.NumberColumn(
                    t(f"atlas.stat_{name}"), format="%.3f", help=t(f"atlas_help_{name}")
                )
                for name in SHOWN_STATISTICS
            },
        },
        width="stretch",
        height=min(420, 38 + 35 * max(len(rows), 1)),
    )
    st.caption(t("atlas_table_hint"))
    picked = st.session_state.get("w_atlas_table", {}).get("selection", {}).get("rows", [])
    if picked and picked[0] < len(heads):
        st.session_state[CHOSEN] = tuple(int(i) for i in heads[picked[0]])


def zoom(view: ViewState, atlas: AtlasCapture, kind: str) -> None:
    """One head: its block map, and an exact window of it chosen by its first query row and first key."""
    t = session.tr(view)
    amap = atlas[kind]
    layer, head = st.session_state.get(CHOSEN, (0, 0))
    st.subheader(t("atlas_zoom_title", layer=layer, head=head))
    style = figures.FigureStyle(lang=view.lang, model=view.model)
    source = figure_export.Source(provenance=atlas.atlas.provenance)
    figure_export.figure(
        block_map(amap, layer, head, style=style), "atlas-head", "atlas_head", view, source, view.model
    )
    if not atlas.layers[kind][layer].opens:
        return
    queries, keys = len(amap.query_tokens), len(amap.key_tokens)
    choice = st.columns(3)
    size = choice[0].selectbox(t("atlas_window_size"), WINDOWS, index=2, key="w_atlas_window")
    row = choice[1].number_input(t("long_first_row"), 0, queries - 1, 0, step=size // 2, key="w_atlas_row")
    key = choice[2].number_input(t("long_first_key"), 0, keys - 1, 0, step=size // 2, key="w_atlas_key")
    rows, columns = selection.token_window(queries, int(row), size), selection.token_window(keys, int(key), size)
    window = atlas.window_map(kind, layer, head, rows, columns)
    spans = {"rows": f"{rows[0]}–{rows[1] - 1}", "keys": f"{columns[0]}–{columns[1] - 1}"}
    title = t("long_block_figure", layer=layer, head=head, **spans)
    heatmap = figures.heatmap(window, color_scale="head", style=figures.FigureStyle(lang=view.lang, title=title))
    figure_export.figure(
        heatmap,
        "atlas-window",
        "atlas_window",
        view,
        figure_export.Source(window, provenance=atlas.atlas.provenance),
        view.model,
    )
    st.caption(t("atlas_window_note"))
