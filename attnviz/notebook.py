"""Attention in a notebook: `attnviz.show(result, view="heatmap", layer=2, head=1, lang="zh")` draws the figures that
the app and the command line draw for the same options (`attnviz.selection.show`), inline in Jupyter, JupyterLab and
VS Code, offline.

Offline means no CDN: the first figure the kernel shows carries plotly.js itself, and later ones use it (plotly's
"notebook_connected" renderer fetches it from a CDN, and its "notebook" renderer still asks one for MathJax). Each
figure goes out as a mime bundle: plotly's own JSON type, which JupyterLab and VS Code draw natively, and HTML for
the other front ends. IPython is imported only when a figure is displayed (`pip install attnviz[notebook]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

import plotly.graph_objects as go
import plotly.io as pio

from attnviz import selection
from attnviz.errors import InputError
from attnviz.provenance import alignment_heads_of
from attnviz.selection import Shown, ViewOptions
from attnviz.types import AttentionCapture

PLOTLY_MIME = "application/vnd.plotly.v1+json"
_OPTION_NAMES = tuple(field.name for field in fields(ViewOptions))


class _Kernel:
    """What this kernel has already sent: whether plotly.js is in the notebook yet."""

    plotlyjs_sent = False


def show(
    result,
    view: str | Sequence[str] = "heatmap",
    *,
    alignment_heads: Sequence[tuple[int, int]] | None = None,
    display: bool = True,
    **options,
) -> Shown:
    """Draw `view` (one of `selection.FIGURES`, or several) of a capture, with the app's view options given by name
    (`kind`, `aggregation`, `layer`, `head`, `words`, `lang`, `weighting` … as `selection.ViewOptions`), and display
    the figures inline (`display=False`: only return them). Returns the `Shown` (the map as drawn, its heads, the
    figures by name). `alignment_heads` default to those the capture recorded."""
    unknown = sorted(set(options) - set(_OPTION_NAMES))
    if unknown:
        raise InputError("notebook_option_unknown", option=unknown[0], options=", ".join(_OPTION_NAMES))
    names = (view,) if isinstance(view, str) else tuple(view)
    if not isinstance(result, AttentionCapture) and callable(getattr(result, "to_capture", None)):
        result = result.to_capture()  # an on-demand capture: every head computed
    heads = alignment_heads_of(result) if alignment_heads is None else alignment_heads
    shown = selection.show(result, ViewOptions(**options), heads, names)
    if display:
        display_figures(list(shown.figures.values()))
    return shown


def mimebundle(figure: go.Figure, with_plotlyjs: bool) -> dict[str, object]:
    """The figure as a notebook output: plotly's JSON, and HTML that carries plotly.js when `with_plotlyjs` (the
    first figure of a kernel) and otherwise relies on it being there; never a CDN, never MathJax."""
    html = pio.to_html(
        figure,
        include_plotlyjs=with_plotlyjs,
        include_mathjax=False,
        full_html=False,
        default_width="100%",
        validate=False,
    )
    return {PLOTLY_MIME: figure.to_plotly_json(), "text/html": html}


def display_figures(figures: list[go.Figure]) -> None:
    """Display each figure inline, plotly.js embedded with the first of this kernel."""
    try:
        from IPython import display as ipython_display
    except ModuleNotFoundError as error:
        raise InputError("notebook_needs_ipython", extra="pip install 'attnviz[notebook]'") from error
    for figure in figures:
        bundle = mimebundle(figure, with_plotlyjs=not _Kernel.plotlyjs_sent)
        ipython_display.display(bundle, raw=True)
        _Kernel.plotlyjs_sent = True
