"""The options of a figure on the command line, as the app's controls set them and with the app's defaults
(`ViewOptions`): which map and heads, how they are drawn, the file's format and renderer, and its size."""

from __future__ import annotations

import argparse

from attnviz.export.sizing import PRESETS
from attnviz.measures import names as measure_view
from attnviz.view import viewing
from attnviz.view.viewing import ViewOptions

KINDS = ("self", "encoder", "decoder", "cross")


def add_view_arguments(parser: argparse.ArgumentParser) -> None:
    """The export's view options: the app's controls, with the app's defaults (ViewOptions), then the CLI's own."""
    view = parser.add_argument_group("view")
    _add_head_arguments(view)
    _add_drawing_arguments(view)
    _add_file_arguments(view)
    add_size_arguments(parser)


def _add_head_arguments(view) -> None:
    """Which figure of which map, and which heads and layers it shows (the app's View menu)."""
    view.add_argument("--view", choices=viewing.FIGURES, default="heatmap", help="the figure (default heatmap)")
    view.add_argument("--kind", choices=KINDS, help="which map (default: cross for translation pairs, else self)")
    view.add_argument(
        "--aggregation",
        choices=(*viewing.AGGREGATIONS, viewing.ROLLOUT),
        help="which heads, as the app's View menu: the model's alignment heads (cross-attention), one "
        "head (--layer, --head), the mean of --layer's heads, or of all, or the attention rollout "
        "of self-attention through --rollout-layers (default: alignment for cross-attention, else "
        "head 0 of layer 0)",
    )
    view.add_argument(
        "--rollout-layers",
        default=None,
        metavar="FIRST-LAST",
        help="rollout: the layers rolled through, both included, e.g. 0-3 (default: all)",
    )
    view.add_argument(
        "--residual",
        action=argparse.BooleanOptionalAction,
        default=ViewOptions.residual,
        help="rollout: each layer's map as 0.5·A + 0.5·I, the skip connection (Abnar & Zuidema "
        "2020; default on, as in the app)",
    )
    view.add_argument(
        "--layer",
        default=None,
        help="layer index; without --aggregation also a list (0,2) or 'all' (default: the app's view; "
        "all when only --head is given)",
    )
    view.add_argument(
        "--head",
        default=None,
        help="head index; without --aggregation also a list (0,2), 'all', 'mean' or 'max' (default: "
        "the app's view; mean when only --layer is given)",
    )
    view.add_argument(
        "--aggregate", choices=("mean", "max"), default=None, help="how listed heads are combined (default mean)"
    )
    view.add_argument("--layer-aggregate", choices=("mean", "max"), default="mean", help="how layers are combined")


def _add_drawing_arguments(view) -> None:
    """How the chosen heads are drawn: words or pieces, hidden tokens, what is drawn and its colours, the language."""
    view.add_argument(
        "--words",
        action=argparse.BooleanOptionalAction,
        default=ViewOptions.words,
        help="merge subword pieces into words (default on, as in the app)",
    )
    view.add_argument(
        "--hide-special",
        action=argparse.BooleanOptionalAction,
        default=ViewOptions.hide_special,
        help="hide special tokens (</s>, [CLS], ...) (default on, as in the app)",
    )
    view.add_argument("--hide-first", action="store_true", help="hide the first token (attention sink)")
    view.add_argument("--renormalize", action="store_true", help="renormalise rows after hiding tokens")
    view.add_argument("--log-scale", action="store_true", help="heatmap: logarithmic colour scale")
    view.add_argument(
        "--weighting",
        choices=viewing.WEIGHTINGS,
        default=ViewOptions.weighting,
        help="weights, or value-norm: each weight × its key's value norm ‖f(x)‖, rows summing to 1",
    )
    view.add_argument(
        "--measure",
        choices=measure_view.MEASURES,
        help="what the figure draws: attention weights (the default), value-norm (as --weighting value-norm), or "
        "what each layer uses: alti, alti-rollout (Ferrando et al. 2022) or value-zeroing (Mohebbi et al. 2023), "
        "one map per layer, computed by running the model",
    )
    view.add_argument(
        "--color-scale",
        choices=viewing.COLOR_SCALES,
        default=ViewOptions.color_scale,
        help="heatmap/grid colours: unit (0–1 on every head, the default, as in the app), shared (0 to "
        "the largest weight of any head) or head (each figure its own max)",
    )
    view.add_argument(
        "--threshold",
        type=float,
        default=ViewOptions.threshold,
        help="alignment/lines: smallest weight drawn (default 0.1)",
    )
    view.add_argument("--top-k", type=int, default=ViewOptions.top_k, help="alignment: links per target token (3)")
    view.add_argument(
        "--step",
        type=int,
        default=ViewOptions.step,
        help="replay: the map after N target tokens were written (default 0: all)",
    )
    view.add_argument(
        "--lang", choices=("en", "zh"), default=ViewOptions.lang, help="language of titles, labels and error messages"
    )


def _add_file_arguments(view) -> None:
    """The CLI's own: the file's format and renderer, and gold links drawn over the alignment."""
    view.add_argument("--format", choices=("png", "svg", "pdf", "html"), help="default: from the output suffix")
    view.add_argument(
        "--gold",
        metavar="LINKS",
        help="gold links of the pair, Pharaoh 'i-j' / 'i?j' (0-based words as the word view draws "
        "them), drawn over the alignment; with --input, a third column",
    )
    view.add_argument(
        "--reverse-model",
        metavar="M2",
        help="with gold links: a model translating the other way; only the links both directions "
        "find are scored and drawn (as the app's 'Check the links with a model translating back')",
    )
    view.add_argument(
        "--engine",
        choices=("auto", "kaleido", "static"),
        default="auto",
        help="png/svg/pdf renderer: kaleido (Chromium) or static (matplotlib, no browser)",
    )


def add_size_arguments(parser: argparse.ArgumentParser) -> None:
    """The figure's size and resolution: `attnviz.export.resolve_size`'s options, checked before any model loads."""
    size = parser.add_argument_group("size")
    size.add_argument("--width", type=int, help="figure width in px, 1/96 in (100–5000; default: the figure's own)")
    size.add_argument("--height", type=int, help="figure height in px (100–5000; default: the figure's own)")
    resolution = size.add_mutually_exclusive_group()
    resolution.add_argument("--scale", type=float, help="PNG pixels per figure pixel, 1–4 (default 1)")
    resolution.add_argument("--dpi", type=float, help="PNG resolution in dots per inch, 96–384 (instead of --scale)")
    presets = "; ".join(f"{p.name}: {p.width_in:g} in at {p.dpi:g} dpi" for p in PRESETS.values())
    size.add_argument(
        "--preset",
        choices=tuple(PRESETS),
        help=f"a print size ({presets}); keeps the figure's "
        "proportions unless --height is given (an alignment's labels and a long title are laid out "
        "again for a narrow width)",
    )
