"""Two figures in one, side by side: each keeps its plot, its margins and its size in px, so that two diagrams laid
out alike (`attnviz.compare.side_by_side`) line up in one file as they do on the page; each one's title stands
above its half, and the file's own title above both.

The two are read as plain data (`to_plotly_json`) and written into one figure: the left's axes stay x and y, the
right's become x2 and y2, each axis' domain the share of the paper its plot takes. Annotations on data coordinates
follow their axes; annotations on the paper are moved into their half.
"""

from __future__ import annotations

import plotly.graph_objects as go

from attnviz.figures.text_fit import TITLE_LINE, TITLE_SIZE, TITLE_X, title_width

PLOTLY_MARGIN = {"l": 80, "r": 80, "t": 100, "b": 80}  # plotly's own margins, where a figure sets none
TITLE_GAP_PX = 8  # px between a half's title and the top of its plot
TITLE_ROOM_PX = 20  # px kept free right of a half's title


def beside(left: go.Figure, right: go.Figure, title: str, titles: tuple[str, str] | None = None) -> go.Figure:
    """`left` and `right` in one figure, side by side at their own sizes (the taller sets the height), `title` on
    top; `titles`: each half's title (default: each figure's own). A half whose title is wider than it is widened on
    its right (its plot drawn as it was)."""
    sides = [fig.to_plotly_json() for fig in (left, right)]
    titles = titles or tuple((side["layout"].get("title") or {}).get("text", "") for side in sides)
    margins = [{**PLOTLY_MARGIN, **side["layout"].get("margin", {})} for side in sides]
    widths = [
        max(int(side["layout"].get("width") or 700), int(title_width(heading) / (1 - TITLE_X)) + TITLE_ROOM_PX)
        for side, heading in zip(sides, titles)
    ]
    heading_px = max(heading.count("<br>") + 1 for heading in titles) * TITLE_LINE + TITLE_GAP_PX
    top = max(margin["t"] for margin in margins) + TITLE_LINE + heading_px  # the file's title, then the halves'
    bottom = max(margin["b"] for margin in margins)
    plot_height = max(int(side["layout"].get("height") or 500) - m["t"] - m["b"] for side, m in zip(sides, margins))
    paper = sum(widths) - margins[0]["l"] - margins[1]["r"]  # px of the paper: between the outer margins
    starts = (0, widths[0])  # px where each half begins
    domains = [
        (
            (start + margin["l"] - margins[0]["l"]) / paper,
            (start + int(side["layout"].get("width") or 700) - margin["r"] - margins[0]["l"]) / paper,
        )
        for start, side, margin in zip(starts, sides, margins)
    ]
    layout = {**sides[0]["layout"]}
    layout.update(
        title={**layout.get("title", {}), "text": title},
        width=sum(widths),
        height=top + plot_height + bottom,
        margin={"l": margins[0]["l"], "r": margins[1]["r"], "t": top, "b": bottom},
        meta={"view": "beside", "sides": [side["layout"].get("meta") for side in sides]},
        annotations=[],
    )
    for index, (side, domain, heading) in enumerate(zip(sides, domains, titles)):
        suffix = "" if index == 0 else "2"
        own = side["layout"]
        layout[f"xaxis{suffix}"] = {**own.get("xaxis", {}), "domain": list(domain), "anchor": f"y{suffix}"}
        layout[f"yaxis{suffix}"] = {**own.get("yaxis", {}), "domain": [0, 1], "anchor": f"x{suffix}"}
        layout["annotations"] += [_moved(note, suffix, domain) for note in own.get("annotations", ())]
        layout["annotations"].append(_heading(heading, domain[0], margins[index]["l"], paper, widths[index]))
    traces = [{**trace, "xaxis": "x", "yaxis": "y"} for trace in sides[0]["data"]]
    traces += [{**trace, "xaxis": "x2", "yaxis": "y2"} for trace in sides[1]["data"]]
    return go.Figure({"data": traces, "layout": layout})


def _moved(note: dict, suffix: str, domain: tuple[float, float]) -> dict:
    """An annotation of one half, in the joined figure: on its half's axes, or moved into its half of the paper."""
    moved = dict(note)
    xref, yref = note.get("xref", "x"), note.get("yref", "y")
    if xref == "paper":
        moved["x"] = domain[0] + note.get("x", 0.5) * (domain[1] - domain[0])
    elif suffix:
        moved["xref"] = xref.replace("x", f"x{suffix}", 1)  # "x" → "x2", "x domain" → "x2 domain"
    if yref != "paper" and suffix:
        moved["yref"] = yref.replace("y", f"y{suffix}", 1)
    return moved


def _heading(text: str, start: float, left_px: int, paper_px: int, width_px: int) -> dict:
    """A half's title above its plot, indented in its half as a figure's own title is (`TITLE_X`)."""
    return dict(
        text=text,
        x=start - left_px / paper_px,
        y=1,
        xref="paper",
        yref="paper",
        xanchor="left",
        yanchor="bottom",
        xshift=TITLE_X * width_px,
        yshift=TITLE_GAP_PX,
        align="left",
        showarrow=False,
        font=dict(size=TITLE_SIZE),
        name="heading",
    )
