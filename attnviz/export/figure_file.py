"""A figure as a file that says where it came from: the bytes of a PNG, SVG, PDF or HTML file (`figure_bytes`) with
the provenance of the capture it shows, the view's name and options, what more it draws (gold links) and its size.
The app's download buttons and the command line's files are both made here, so the same view gives the same file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import plotly.graph_objects as go

from attnviz.export import figure_bytes
from attnviz.export.files import refuse_existing, write_atomic
from attnviz.provenance import view_provenance
from attnviz.types import AttentionCapture
from attnviz.view.selection import recorded_options


def figure_file_bytes(
    figure,
    fmt: str,
    view: str,
    capture=None,
    options=None,
    recorded: Mapping | None = None,
    size: Mapping | None = None,
    engine: str = "auto",
    provenance: Mapping | None = None,
) -> bytes:
    """The file of `figure` (as a file shows it: `selection.as_file`) in `fmt` (a figure format, or "json": the
    plotly figure), at `size` (`figure_bytes`'s width, height, scale, dpi or preset), recording the provenance of
    `capture` (an AttentionCapture; a map or none records the versions alone, unless `provenance` gives the capture
    it was cut from), the view `view` with the options it uses (`selection.recorded_options`) and `recorded` (more
    that it draws)."""
    size = dict(size or {})
    shown = {**(recorded_options(options) if options else {}), **(recorded or {}), "export": size}
    own = (capture.provenance or None) if isinstance(capture, AttentionCapture) else None
    own = dict(provenance) if provenance else own  # a map cut from a capture: that capture's provenance
    provenance = view_provenance(own, view, shown)
    if fmt == "json":
        return _figure_json(figure, provenance)
    return figure_bytes(figure, fmt, engine=engine, provenance=provenance, **size)


def _figure_json(figure, provenance: dict) -> bytes:
    """The plotly figure as JSON (`plotly.io.read_json` opens it), its provenance in its layout's meta."""
    meta = figure.layout.meta if isinstance(figure.layout.meta, dict) else {}
    return go.Figure(figure).update_layout(meta={**meta, "provenance": provenance}).to_json().encode("utf-8")


def write_figure_file(
    path: str | os.PathLike, figure, fmt: str, view: str, overwrite: bool = False, **described
) -> Path:
    """`figure_file_bytes` written to `path` atomically; an existing file is kept unless `overwrite` (refused before
    the figure is rendered). `described`: the other arguments of `figure_file_bytes`."""
    refuse_existing(path, overwrite)
    return write_atomic(path, figure_file_bytes(figure, fmt, view, **described), overwrite=overwrite)
