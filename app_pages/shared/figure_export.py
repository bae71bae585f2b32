"""Figures on a page and their files: a plotly chart with a download button per format, each file made when its
button is clicked, at the size chosen once for every download (`download_size_control`, in the sidebar), named
after what it holds (`attnviz.export.figure_filename`) and carrying its provenance. JSON and NPZ save the capture
the figure was drawn from, with its provenance, so that the app's own file opens again on the Open a capture page."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace

import streamlit as st

from app_pages.shared.session import bound, held, tr
from app_pages.shared.state import ViewState
from attnviz import export, i18n
from attnviz.errors import AttnvizError
from attnviz.export.figure_file import figure_file_bytes
from attnviz.export.sizing import MAX_SCALE, MAX_SIDE, MIN_SIDE, PRESETS
from attnviz.figures.text_fit import as_file, export_size, exported_title, file_layout
from attnviz.model.catalogue import model_name
from attnviz.types import AttentionCapture, AttentionMap
from attnviz.view import selection, viewing

FIGURE_FORMATS = ("png", "svg", "pdf", "html")
CAPTURE_FORMATS = ("json", "npz")  # the capture itself, as `python -m attnviz capture` writes it
MIME_TYPES = {
    "png": "image/png",
    "svg": "image/svg+xml",
    "pdf": "application/pdf",
    "html": "text/html",
    "json": "application/json",
    "npz": "application/octet-stream",
}
SIZE = "attnviz_download_size"  # session key of this session's DownloadSize
SCALES = tuple(range(1, int(MAX_SCALE) + 1))  # PNG pixels per figure pixel offered: 1× … 4×


@dataclass
class DownloadSize:
    """The size every figure download is made at (`attnviz.export.resolve_size`): the figure's own size or a width
    and height in plotly px (1/96 in) at a PNG scale, or a print preset (its printed width and dpi)."""

    download_preset: str | None = None
    download_scale: int = 1
    download_width: int | None = None
    download_height: int | None = None

    def options(self) -> dict:
        """The size keyword arguments of `attnviz.export.figure_bytes`."""
        if self.download_preset:
            return {"preset": self.download_preset, "height": self.download_height}
        return {"scale": self.download_scale, "width": self.download_width, "height": self.download_height}


@dataclass(frozen=True)
class Source:
    """What a figure was drawn from, for its files: the capture (or one map) its JSON/NPZ downloads save and whose
    provenance its files carry, the view's options (recorded with them), and the heads it shows (`HeadSelection.file_heads`,
    named in its file name)."""

    capture: AttentionCapture | AttentionMap | None = None
    options: viewing.ViewOptions | None = None
    heads: Mapping = field(default_factory=dict)
    recorded: Mapping = field(default_factory=dict)  # more of what it shows, for its files (gold links drawn on it)
    named: Mapping = field(default_factory=dict)  # more of its file name (`export.figure_filename`): B's model, text
    provenance: Mapping | None = None  # where a single map came from (the capture it was cut from), for its files


@dataclass(frozen=True)
class Download:
    """One download button: its format, file name, the bytes it makes when clicked and what its tooltip says."""

    fmt: str
    file_name: str
    make: Callable[[], bytes]
    help_key: str = "export_help"
    disabled: bool = False


def download_size() -> DownloadSize:
    """This session's download size, holding what its widgets hold now (as `session.state` does for the view)."""
    return held(SIZE, DownloadSize)


def download_size_control(view: ViewState) -> None:
    """The size of every download, chosen once (in the sidebar): a print preset, or a PNG scale and a width and
    height (empty: the figure's own)."""
    t = tr(view)
    size = download_size()
    with st.popover(t("download_size"), icon=":material/photo_size_select_large:", width="stretch"):
        presets = [None, *PRESETS]
        bound(
            st.selectbox,
            "download_preset",
            t("download_preset"),
            options=presets,
            holder=size,
            format_func=lambda name: t(f"preset_{name}") if name else t("preset_screen"),
        )
        preset = PRESETS.get(size.download_preset)
        bound(
            st.segmented_control,
            "download_scale",
            t("download_scale"),
            options=SCALES,
            holder=size,
            format_func=lambda scale: f"{scale}×",
            selection_mode="single",
            required=True,
            disabled=preset is not None,
        )
        sides = {"min_value": MIN_SIDE, "max_value": MAX_SIDE, "step": 10, "placeholder": t("download_own_size")}
        bound(st.number_input, "download_width", t("download_width"), holder=size, disabled=preset is not None, **sides)
        bound(st.number_input, "download_height", t("download_height"), holder=size, **sides)
        if preset is not None:
            st.caption(
                t(
                    "download_preset_note",
                    inches=f"{preset.width_in:g}",
                    dpi=f"{preset.dpi:g}",
                    pixels=round(preset.width_in * preset.dpi),
                )
            )
        else:
            st.caption(t("download_scale_note", scale=size.download_scale, dpi=round(96 * size.download_scale)))


def figure(
    fig,
    name: str,
    key: str,
    view: ViewState,
    source: Source | None = None,
    model: str | None = None,
    select_points: bool = False,
    on_select: Callable[[], None] | None = None,
    screen=None,
):
    """A plotly figure with a download button per format (the modebar's camera left out); files are made on click.

    `source`: what the figure was drawn from (its JSON/NPZ downloads save that capture; without one, JSON is the
    plotly figure). `model`: named in the files' titles and names (on the page the sidebar names it).
    `select_points`: picking points reruns the page, and the chart's selection is returned (else None).
    `on_select`: called when a point of the chart is clicked (its selection in `st.session_state[chart_key(key)]`);
    `screen`: the figure drawn on the page instead of `fig` (with click targets), the files still made from `fig`.
    """
    size = download_size()
    downloads, refusal = figure_downloads(fig, name, view, source or Source(), model, size)
    # No camera in the modebar: its PNG is the screen's pixels (a long title cut, no provenance); the PNG button's
    # file is sized to the figure and records where it came from.
    modebar = {"displaylogo": False, "modeBarButtonsToRemove": ["toImage"]}
    if on_select is not None:
        clicks = {"on_select": on_select, "selection_mode": "points"}
    else:
        clicks = {"on_select": "rerun", "selection_mode": ("points",)} if select_points else {}
    event = st.plotly_chart(
        fig if screen is None else screen, key=chart_key(key), width="stretch", config=modebar, **clicks
    )
    if refusal is not None:
        st.caption(i18n.error_sentence(refusal, view.lang))
    elif (illegible := _small_labels(fig, model, size)) is not None:
        st.caption(illegible.sentence(view.lang))
    with st.container(horizontal=True, gap="small"):
        for download in downloads:
            st.download_button(
                download.fmt.upper(),
                data=download.make,
                file_name=download.file_name,
                mime=MIME_TYPES[download.fmt],
                key=f"export_{key}_{download.fmt}",
                on_click="ignore",
                disabled=download.disabled,
                help=i18n.t(download.help_key, view.lang, format=download.fmt.upper()),
                icon=":material/download:",
                type="tertiary",
            )
    return event if select_points else None


def chart_key(key: str) -> str:
    """The session key of the chart `figure` draws under `key` (its selection, when it has `on_select`)."""
    return f"chart_{key}"


def clicked_points(key: str) -> list[dict]:
    """The points selected on the chart `figure` drew under `key` (each with its `customdata`), newest click first."""
    event = st.session_state.get(chart_key(key)) or {}
    return list((event.get("selection") or {}).get("points") or [])


def shown_figures(
    view: ViewState,
    shown: viewing.Shown,
    charts: Sequence[tuple[str, str, str]],
    capture: AttentionCapture | None = None,
    options: viewing.ViewOptions | None = None,
    model: str | None = None,
    clicks: Mapping[str, Callable[[], None]] | None = None,
    recorded: Mapping | None = None,
) -> None:
    """Figures of one view side by side, one column each: (figure name, file name, key) per chart, drawn from
    `capture` with `options` by `model` (default: the view's); `clicks`: the `on_select` callback of a chart, by its
    key; `recorded`: more that their files record (`Source.recorded`)."""
    heads = shown.selection.file_heads() if options else {}  # the measure too: a file says what its numbers are
    for row in _rows(shown, charts):
        for column, (name, file_name, key) in zip(st.columns(len(row)), row):
            with column:
                source = Source(capture, options, heads, recorded or {})
                figure(
                    shown.figures[name],
                    file_name,
                    key,
                    view,
                    source,
                    model=model or view.model,
                    on_select=(clicks or {}).get(key),
                )


def _rows(shown: selection.Shown, charts: Sequence[tuple[str, str, str]]) -> list[list[tuple[str, str, str]]]:
    """The charts in rows, in order: side by side, except a figure that stands alone (its meta's `column` "whole":
    an alignment whose labels need a whole column), which takes a row of its own."""
    rows: list[list[tuple[str, str, str]]] = []
    beside: list[tuple[str, str, str]] = []  # the row being filled
    for chart in charts:
        meta = shown.figures[chart[0]].layout.meta
        if isinstance(meta, dict) and meta.get("column") == "whole":
            rows += [beside, [chart]]
            beside = []
        else:
            beside.append(chart)
    rows.append(beside)
    return [row for row in rows if row]


def figure_downloads(
    fig, name: str, view: ViewState, source: Source, model: str | None, size: DownloadSize
) -> tuple[list[Download], AttnvizError | None]:
    """The downloads of one figure, and why its figure formats cannot be made at the chosen size (they are then
    disabled, and the page says why), or None. A model typed as a folder is named by the folder's own name."""
    model = model_name(model) if model else model
    title = exported_title(fig.layout.title.text or "", model)
    width, height = export_size(title, fig.layout.width, fig.layout.height)
    own_size = SimpleNamespace(layout=SimpleNamespace(width=width, height=height))  # all resolve_size reads
    text = view.text if model else None  # a figure of the page's input names it; the explainer's figures do not
    refusal = None
    try:
        export.resolve_size(own_size, **size.options())
    except AttnvizError as error:
        refusal = error
    named = {"model": model, "text": text, **source.heads, **source.named}  # what its file name says
    downloads = [
        Download(
            fmt,
            export.figure_filename(name, fmt, **named),
            figure_maker(lambda: as_file(fig, model), fmt, name, source, size.options()),
            disabled=refusal is not None,
        )
        for fmt in FIGURE_FORMATS
    ]
    if source.capture is None:
        plotly = export.figure_filename(f"{name}-plotly-figure", "json", **named)
        downloads.append(Download("json", plotly, lambda: fig.to_json().encode(), "export_plotly_help"))
        return downloads, refusal
    saved = _saved_capture(source.capture, model, view.text, source.provenance)
    for fmt in CAPTURE_FORMATS:
        downloads.append(
            Download(fmt, export.capture_filename(saved, fmt), _capture_maker(saved, fmt), "export_capture_help")
        )
    return downloads, refusal


def _small_labels(fig, model: str | None, size: DownloadSize):
    """`attnviz.export.SmallLabels` when an alignment's file at the chosen size would stand its labels too small to
    read (said before the click that makes it), else None."""
    return export.small_labels(file_layout(fig, model), **size.options())  # any figure whose labels it lays out


def figure_maker(drawn, fmt: str, name: str, source: Source, size: dict) -> Callable[[], bytes]:
    """The bytes of one figure file at `size` (`DownloadSize.options`), made only when its button is clicked (a
    static image takes a render), with the provenance of the capture it shows, the view's options and the time
    (`attnviz.export.figure_file`, as the command line writes its files). `drawn`: the figure as a file shows it
    (`attnviz.figures.text_fit.as_file`), or a function that makes it then."""

    def make() -> bytes:
        figure = drawn() if callable(drawn) else drawn
        return figure_file_bytes(
            figure, fmt, name, source.capture, source.options, source.recorded, size, provenance=source.provenance
        )

    return make


def _saved_capture(
    capture: AttentionCapture | AttentionMap, model: str | None, text: str, provenance: Mapping | None = None
) -> AttentionCapture:
    """The capture a JSON/NPZ download saves: the capture itself, or one map (a long text's exact block) wrapped
    with the provenance of the capture it was cut from."""
    return export.as_capture(capture, model=model or "", text=text, provenance=dict(provenance or {}))


def _capture_maker(capture: AttentionCapture, fmt: str) -> Callable[[], bytes]:
    return lambda: export.capture_bytes(capture, fmt)
