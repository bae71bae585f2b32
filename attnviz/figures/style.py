"""The options every figure shares: the language and words it is drawn in, the model it names, its title and size."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from attnviz.figures._common import FONT_FAMILY, figure_title, resolve_labels


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
            title=dict(text=shown, x=0.02, xanchor="left", font=dict(size=16)),
            template=white_template(),
            font=dict(family=FONT_FAMILY, size=12, color="#222222"),
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
    import plotly.graph_objects as go
    import plotly.io as pio

    white = pio.templates["plotly_white"]
    layout = {key: value for key, value in white.layout.to_plotly_json().items() if key not in UNDRAWN_LAYOUT}
    return go.layout.Template(layout=layout, data={name: white.data[name] for name in DRAWN_TRACES})


TITLE_SIZE = 16  # px: the title's first line (`FigureStyle.layout`)
TITLE_LINE = 22  # px a wrapped title line adds to the top margin


def fit_title(fig, width: int):
    """`fig` with its title's first line broken at its " · " parts where it is wider than a figure `width` px wide
    (a paper's column), its top margin grown by `TITLE_LINE` px a line added; `fig` itself when the title fits."""
    import plotly.graph_objects as go

    from attnviz.fonts import plain_text, text_width

    title = fig.layout.title.text or ""
    first, _, rest = title.partition("<br>")
    room = width * (1 - 0.02) - 10  # the title starts at x = 0.02 of the width
    if text_width(plain_text(first), TITLE_SIZE) <= room or " · " not in first:
        return fig
    lines = [""]
    for part in first.split(" · "):
        joined = f"{lines[-1]} · {part}" if lines[-1] else part
        fits = text_width(plain_text(joined), TITLE_SIZE) <= room
        lines[-1:] = [joined] if fits or not lines[-1] else [lines[-1], part]
    wrapped = "<br>".join(lines) + (f"<br>{rest}" if rest else "")
    top = (fig.layout.margin.t if fig.layout.margin.t is not None else 80) + (len(lines) - 1) * TITLE_LINE
    return go.Figure(fig).update_layout(title_text=wrapped, margin_t=top)
