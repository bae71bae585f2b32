"""The options every figure shares: the language and words it is drawn in, the model it names, its title and size."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio

from attnviz.figures.common import FONT_FAMILY, figure_title, resolve_labels
from attnviz.figures.layout import TICK_SIZE
from attnviz.figures.text_fit import TITLE_SIZE, TITLE_X


@dataclass(frozen=True)
class FigureStyle:
    """How a figure speaks and how large it is, apart from what it draws (each figure's own keywords).

    `lang` picks the built-in strings ("en" or "zh"); `labels` overrides any of them (the app passes its i18n
    strings); `model` is named in the title; `title` replaces the built title; `width`/`height` (px) replace the
    size the figure would choose for its content; `notes` are said under the title beside the figure's own (what
    the caller did to the map before the figure drew it, e.g. tokens hidden).
    """

    lang: str = "en"
    labels: Mapping[str, str] | None = None
    model: str | None = None
    title: str | None = None
    width: int | None = None
    height: int | None = None
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        resolve_labels(self.lang, self.labels)  # an unknown language is refused where it enters

    def words(self) -> dict[str, str]:
        """Every string a figure shows, in this style's language with its overrides."""
        return resolve_labels(self.lang, self.labels)

    def heading(self, kind: str | None, selection: str | None, notes: Sequence[str] = ()) -> str:
        """The title a figure builds: this style's model · the map's kind · the selection, notes on the lines below
        (see `figure_title`); `title` replaces it in `layout`."""
        return figure_title(self.model, kind, selection, self.words(), [*notes, *self.notes])

    def layout(self, title: str, width: int, height: int, **extra) -> dict:
        """The layout every attnviz figure starts from: white template, one font stack, margins, and this style's
        title and size where it gives them (else the `title`, `width` and `height` the figure built)."""
        shown = self.title if self.title is not None else title
        layout = dict(
            title=dict(text=shown, x=TITLE_X, xanchor="left", font=dict(size=TITLE_SIZE)),
            template=white_template(),
            font=dict(family=FONT_FAMILY, size=TICK_SIZE, color="#222222"),
            width=self.width or width,
            height=self.height or height,
            margin=dict(l=90, r=40, t=80, b=80),
            paper_bgcolor="white",
            plot_bgcolor="white",
        )
        layout.update(extra)
        return layout


DEFAULT_STYLE = FigureStyle()


DRAWN_TRACES = ("heatmap", "scatter", "bar")  # the trace types attnviz figures draw
UNDRAWN_LAYOUT = ("polar", "ternary", "scene", "geo")  # subplot kinds no attnviz figure has


@functools.cache
def white_template():
    """plotly's "plotly_white" template cut to what attnviz figures draw: the same look, but a figure copies and
    validates a third of it (the whole template cost ~12 ms a figure on this machine's CPU, per rerun)."""
    white = pio.templates["plotly_white"]
    layout = {key: value for key, value in white.layout.to_plotly_json().items() if key not in UNDRAWN_LAYOUT}
    return go.layout.Template(layout=layout, data={name: white.data[name] for name in DRAWN_TRACES})
