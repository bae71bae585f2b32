"""Attention in a notebook: `attnviz.show(result, view="heatmap", layer=2, head=1, lang="zh")` draws the figures that
the app and the command line draw for the same options (`attnviz.view.selection.show`), inline in Jupyter, JupyterLab and
VS Code, offline.

Offline means no CDN: the first figure the kernel shows carries plotly.js itself, and later ones use it (plotly's
"notebook_connected" renderer fetches it from a CDN, and its "notebook" renderer still asks one for MathJax). Each
figure goes out as a mime bundle: plotly's own JSON type, which JupyterLab and VS Code draw natively, and HTML for
the other front ends. IPython is imported only when a figure is displayed (`pip install attnviz[notebook]`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields

import plotly.graph_objects as go
import plotly.io as pio

from attnviz.errors import InputError
from attnviz.provenance import alignment_heads_of, knows_alignment_heads
from attnviz.types import AttentionCapture
from attnviz.view import selection
from attnviz.view.viewing import Shown, ViewOptions

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
    """Draw `view` (one of `viewing.FIGURES`, or several) of a capture, with the app's view options given by name
    (`kind`, `aggregation`, `layer`, `head`, `words`, `lang`, `weighting` … as `viewing.ViewOptions`), and display
    the figures inline (`display=False`: only return them). Returns the `Shown` (the map as drawn, its heads, the
    figures by name). `alignment_heads` default to those the capture recorded."""
    chosen = view_options(options)
    names = (view,) if isinstance(view, str) else tuple(view)
    result = whole(result)
    shown = selection.show(result, chosen, alignment_heads_for(result, alignment_heads), names)
    if display:
        display_figures(list(shown.figures.values()))
    return shown


def view_options(options: Mapping[str, object]) -> ViewOptions:
    """`ViewOptions` from options given by name; an option it does not have is refused with the list of those it has.

    A `layer` or `head` named without an `aggregation` asks for that head (the "head" aggregation): left to the app's
    default, a cross-attention map would open on its alignment heads, where neither index means anything."""
    unknown = sorted(set(options) - set(_OPTION_NAMES))
    if unknown:
        raise InputError("notebook_option_unknown", option=unknown[0], options=", ".join(_OPTION_NAMES))
    if options.get("aggregation") is None and ("layer" in options or "head" in options):
        options = {**options, "aggregation": "head"}
    return ViewOptions(**options)


def alignment_heads_for(result, given: Sequence[tuple[int, int]] | None) -> tuple[tuple[int, int], ...] | None:
    """The alignment heads to draw `result` with: those `given`, else those it recorded (its model's, none when the
    model has none), else None: not known, which the alignment view then says (`selection.head_selection`)."""
    if given is not None:
        return tuple(given)
    return tuple(alignment_heads_of(result)) if knows_alignment_heads(result) else None


def whole(result) -> AttentionCapture:
    """A capture with every head: an on-demand capture computes them now; a capture is itself."""
    if not isinstance(result, AttentionCapture) and callable(getattr(result, "to_capture", None)):
        return result.to_capture()
    return result


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
    # plotly's JSON as a front end reads it (arrays as lists or typed arrays): plain JSON, so a widget can send it
    return {PLOTLY_MIME: json.loads(pio.to_json(figure, validate=False)), "text/html": html}


def bundles(figures: Iterable[go.Figure]) -> list[dict[str, object]]:
    """The mime bundles of `figures`, plotly.js carried by the first this kernel sends (`attnviz.show` or
    `attnviz.explore`, whichever draws first)."""
    sent = []
    for figure in figures:
        sent.append(mimebundle(figure, with_plotlyjs=not _Kernel.plotlyjs_sent))
        _Kernel.plotlyjs_sent = True
    return sent


def display_figures(figures: list[go.Figure]) -> None:
    """Display each figure inline, plotly.js embedded with the first of this kernel."""
    try:
        from IPython import display as ipython_display
    except ModuleNotFoundError as error:
        raise InputError("notebook_needs_ipython", extra="pip install 'attnviz[notebook]'") from error
    for bundle in bundles(figures):
        ipython_display.display(bundle, raw=True)
