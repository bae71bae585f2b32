"""Plotly figures of attention: pure functions `(AttentionMap, its own keyword options, style) -> go.Figure`.

Every figure takes `style=FigureStyle(...)`: `lang` ("en" default, or "zh") and `labels` (a mapping overriding any
string in `LABELS[lang]`, for the app's i18n), `model` (named in the title), `title` (replaces the built title) and
`width`/`height` (replace the size the figure chooses for its content).
Selections follow `attnviz.maps.analysis.aggregate`: `layers`/`heads` are an index, a list, or None for all.
`effect_grid` (each head's exact effect, `attnviz.measures.head_effects`), `qk_space` (a head's queries and keys in one plane, `attnviz.maps.projection`), `explainer` (the walk-through's steps,
`attnviz.attention.walkthrough`) and `sentence_steps` (the explainer's steps for one token of a real head) take what
they draw instead of a map: a figure only draws numbers it is given.
How wide text is, where labels stand, and a figure laid out again for a file's width: `attnviz.figures.layout`.
Maps too large to hold (`attnviz.attention.ondemand.LazyCapture`) draw through `pooled_heatmap` (a head pooled block by block)
and `statistic_grid(values=...)` (statistics streamed tile by tile).
`diff_heatmap` draws A − B of two compared maps (`attnviz.compare`) from numbers and labels.
"""

from attnviz.figures.alignment import (
    alignment,
    alignment_stands_alone,
    alignment_width,
    link_opacity,
    link_width,
    strongest_links,
)
from attnviz.figures.beside import beside
from attnviz.figures.common import FONT_FAMILY, LABELS, MASKED_COLOR, resolve_labels
from attnviz.figures.diff import diff_heatmap
from attnviz.figures.effects import effect_grid
from attnviz.figures.explainer import (
    SEED_K,
    SEED_MIXTURE,
    SEED_MIXTURE_QUERY,
    SEED_Q,
    SEED_V,
    explainer,
    mixture,
    seed_alignment_map,
)
from attnviz.figures.gold import gold_links, score_grid
from attnviz.figures.grid import clickable_heads, grid, statistic_grid
from attnviz.figures.heatmap import heatmap, pooled_heatmap, selected_ranges
from attnviz.figures.lines import head_lines
from attnviz.figures.qkspace import qk_space
from attnviz.figures.sentence_steps import sentence_steps
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle

VIEWS = {"heatmap": heatmap, "alignment": alignment, "grid": grid, "lines": head_lines}

__all__ = [
    "DEFAULT_STYLE",
    "FigureStyle",
    "FONT_FAMILY",
    "LABELS",
    "MASKED_COLOR",
    "SEED_K",
    "SEED_MIXTURE",
    "SEED_MIXTURE_QUERY",
    "SEED_Q",
    "SEED_V",
    "VIEWS",
    "alignment",
    "alignment_stands_alone",
    "alignment_width",
    "beside",
    "clickable_heads",
    "diff_heatmap",
    "effect_grid",
    "explainer",
    "gold_links",
    "grid",
    "head_lines",
    "heatmap",
    "link_opacity",
    "link_width",
    "mixture",
    "pooled_heatmap",
    "qk_space",
    "resolve_labels",
    "score_grid",
    "seed_alignment_map",
    "selected_ranges",
    "sentence_steps",
    "statistic_grid",
    "strongest_links",
]
