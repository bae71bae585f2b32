"""Figures on a page: a plotly chart with a download button per format, each file made when its button is clicked,
named after the model (`attnviz.selection.as_file`, as the command line writes it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from app_pages.state import ViewState
from attnviz import i18n, selection

EXPORT_FORMATS = ("png", "svg", "pdf", "html", "json")
MIME_TYPES = {
    "png": "image/png",
    "svg": "image/svg+xml",
    "pdf": "application/pdf",
    "html": "text/html",
    "json": "application/json",
}


def figure(fig, name: str, key: str, view: ViewState, data=None, model: str | None = None) -> None:
    """A plotly figure (its modebar saves PNG) with a download button per format; files are made on click.

    JSON is the attention data the figure draws (`data`: an AttentionMap, in attnviz's capture schema) when given,
    else the plotly figure itself. On the page the sidebar names the model; an exported file names it in its title.
    """
    st.plotly_chart(
        fig,
        key=f"chart_{key}",
        width="stretch",
        config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "filename": name, "scale": 2}},
    )
    with st.container(horizontal=True, gap="small"):
        for fmt in EXPORT_FORMATS:
            st.download_button(
                fmt.upper(),
                data=_exporter(fig, fmt, data, model),
                file_name=f"{name}.{fmt}",
                mime=MIME_TYPES[fmt],
                key=f"export_{key}_{fmt}",
                on_click="ignore",
                help=i18n.t("export_help", view.lang, format=fmt.upper()),
                icon=":material/download:",
                type="tertiary",
            )


def shown_figures(view: ViewState, shown: selection.Shown, charts: Sequence[tuple[str, str, str]]) -> None:
    """Figures of one view side by side, one column each: (figure name, file name, key) per chart; their data is the
    map they draw."""
    for column, (name, file_name, key) in zip(st.columns(len(charts)), charts):
        with column:
            figure(shown.figures[name], file_name, key, view, data=shown.amap, model=view.model)


def _exporter(fig, fmt: str, data, model: str | None) -> Callable[[], bytes]:
    """The bytes of one export, made only when its button is clicked (a static image takes a browser render)."""
    from attnviz import export

    if fmt == "json":
        return lambda: (export.capture_to_json(data) if data is not None else fig.to_json()).encode("utf-8")
    return lambda: export.figure_bytes(selection.as_file(fig, model), fmt)
