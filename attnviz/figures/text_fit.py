"""How wide text is and how a title fits a file: every width measured one way (`text_width`: the text plotly draws,
in the font figures are drawn with, `attnviz.figures.fonts`), a title broken to a file's width (`fit_title`), and a
figure as a file draws it (`as_file`: the model named in the title, the figure widened for it). The label plans that
use these widths are `attnviz.figures.layout`."""

from __future__ import annotations

import re
from collections.abc import Sequence

import plotly.graph_objects as go

from attnviz.figures.fonts import plain_text
from attnviz.figures.fonts import text_width as font_text_width

# ----------------------------------------------------------------------------------------------------------------------
# How wide text is


def text_width(label: str, size: float) -> float:
    """How many px a plotly label (HTML: escaped, maybe styled, <br> a new line) takes at font size `size` px: the
    text it draws, measured in the font figures are drawn with."""
    return font_text_width(plain_text(label), size)


def label_widths(labels: Sequence[str], size: float) -> list[float]:
    """Each label's width in px at `size` (see `text_width`)."""
    return [text_width(label, size) for label in labels]


TITLE_SIZE = 16  # px: the title's first line (`FigureStyle.layout`)
NOTE_SHARE = 0.7  # plotly draws <sup> (a title's notes) at 70% of the title's size
TITLE_LINE = 22  # px a wrapped title line adds to the top margin
TITLE_X = 0.02  # the title starts this share of the width from the left (`FigureStyle.layout`)
TITLE_END_PX = 10  # px kept free right of the title


def title_width(title: str, font_px: float = TITLE_SIZE) -> int:
    """How many px the widest line of a title takes: its first line at `font_px`, the notes below it (<sup>) at
    plotly's `NOTE_SHARE` of that."""
    first, *notes = title.split("<br>")
    return int(max([text_width(first, font_px), *(text_width(note, NOTE_SHARE * font_px) for note in notes)]))


# A line may break at a space or beside a CJK character (Chinese is written without spaces), never inside a word.
_BREAKABLE = re.compile(r"\s+|[\u3000-\u9fff\uff00-\uffef]|[^\s\u3000-\u9fff\uff00-\uffef]+")


def wrap_notes(notes: Sequence[str], width: float, font_px: float = TITLE_SIZE) -> list[str]:
    """A title's note lines (drawn in <sup>, at `NOTE_SHARE` of `font_px`) broken so that none is wider than `width`
    px, at spaces or between Chinese characters; a single word wider than `width` stays whole."""
    size = NOTE_SHARE * font_px
    lines: list[str] = []
    for note in notes:
        current = ""
        for part in _BREAKABLE.findall(note):
            if current.strip() and not part.isspace() and text_width(current + part, size) > width:
                lines.append(current.rstrip())
                current = ""
            current = current + part if current or not part.isspace() else ""
        lines.append(current.rstrip())
    return lines


# ----------------------------------------------------------------------------------------------------------------------
# Titles in a file


def fit_title(fig: go.Figure, width: int) -> go.Figure:
    """`fig` with its title's first line broken at its " · " parts where it is wider than a figure `width` px wide
    (a paper's column), its top margin grown by `TITLE_LINE` px a line added; `fig` itself when the title fits."""
    title = fig.layout.title.text or ""
    first, _, rest = title.partition("<br>")
    room = width * (1 - TITLE_X) - TITLE_END_PX
    if text_width(first, TITLE_SIZE) <= room or " · " not in first:
        return fig
    lines = [""]
    for part in first.split(" · "):
        joined = f"{lines[-1]} · {part}" if lines[-1] else part
        fits = text_width(joined, TITLE_SIZE) <= room
        lines[-1:] = [joined] if fits or not lines[-1] else [lines[-1], part]
    wrapped = "<br>".join(lines) + (f"<br>{rest}" if rest else "")
    top = (fig.layout.margin.t if fig.layout.margin.t is not None else 80) + (len(lines) - 1) * TITLE_LINE
    return go.Figure(fig).update_layout(title_text=wrapped, margin_t=top)


def exported_title(title: str, model: str | None) -> str:
    """A figure title for a file: the page's title with the model named on its small second line.

    On the page the sidebar names the model; a file that leaves the app must name it itself.
    """
    if not model:
        return title
    if "<br><sup>" in title:
        return title.replace("<br><sup>", f"<br><sup>{model} · ", 1)
    return f"{title}<br><sup>{model}</sup>"


def export_size(title: str, width: int | None, height: int | None, margin: int = 80) -> tuple[int | None, int | None]:
    """The figure's size for a file, widened when its title would not fit (files have no column to stretch into)."""
    if width is None:
        return width, height
    return max(width, title_width(title) + margin), height


def as_file(fig: go.Figure, model: str | None) -> go.Figure:
    """The figure a file holds: as on the page, with the model named in its title and room for that title."""
    title = exported_title(fig.layout.title.text or "", model)
    width, height = export_size(title, fig.layout.width, fig.layout.height)
    return go.Figure(fig).update_layout(title_text=title, width=width, height=height)


def file_layout(fig: go.Figure, model: str | None) -> go.Figure:
    """`as_file` without the traces: the layout a file gives the figure (its title, its size), which is all that a
    label check (`file_labels`, `attnviz.export.small_labels`) reads, for a fraction of what copying every trace
    costs (a page checks each figure on every rerun)."""
    title = exported_title(fig.layout.title.text or "", model)
    width, height = export_size(title, fig.layout.width, fig.layout.height)
    laid = fig.layout.to_plotly_json()
    laid.update(width=width, height=height, title={**laid.get("title", {}), "text": title})
    return go.Figure(layout=laid)
