"""Attention in a notebook, with controls: `attnviz.explore(result)` shows which map, which heads (one head, a layer's
mean, all heads, the alignment heads or a rollout, as `head_choice.offered_aggregations` offers them), the layer, the
head, the figure and the weighting as ipywidgets, and redraws the figure on every change through the same selection
code as `attnviz.show`, the app and the command line (`selection.show`): the same options give the same figure.

The figure goes into an `ipywidgets.Output` as the mime bundle `attnviz.show` displays (`notebook.bundles`: plotly's
JSON and HTML, plotly.js embedded once per kernel, never a CDN). An Output needs no extension of its own: it works
in Jupyter, JupyterLab and VS Code, where a `go.FigureWidget` would need anywidget. ipywidgets is imported only when
`explore` is called (`pip install attnviz[notebook]`), so `import attnviz` never loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import replace

from attnviz import i18n
from attnviz.errors import AttnvizError, InputError
from attnviz.measures.names import held_measure
from attnviz.notebook import show as notebook
from attnviz.types import MAP_KINDS, AttentionCapture
from attnviz.view import head_choice, selection, viewing
from attnviz.view.viewing import Shown, ViewOptions

FIGURE_KINDS = {"alignment": ("cross",)}  # a figure drawn only for these maps (links between two texts); others: all


def explore(
    result,
    figure: str = "heatmap",
    *,
    alignment_heads: Sequence[tuple[int, int]] | None = None,
    **options,
) -> Explorer:
    """Controls for a capture (or an on-demand capture, every head then computed) and the figure they choose,
    starting from `figure` (one of `viewing.FIGURES`) and the view options given by name (`kind`, `aggregation`,
    `layer`, `head`, `weighting`, `lang`, `words` … as `attnviz.show` takes them). The controls set the first five;
    the others hold as given; an option `attnviz.show` refuses is refused with its InputError. Displayed when it is
    a cell's last value; `Explorer.shown` is what it draws."""
    try:
        import ipywidgets  # the notebook extra, loaded only here: `import attnviz` stays free of it
    except ModuleNotFoundError as error:
        raise InputError("notebook_needs_ipywidgets", extra="pip install 'attnviz[notebook]'") from error
    if figure not in viewing.FIGURES:
        raise InputError("figure_unknown", figure=figure, figures=", ".join(viewing.FIGURES))
    chosen = notebook.view_options(options)
    result = notebook.whole(result)
    heads = notebook.alignment_heads_for(result, alignment_heads)
    _check(result, chosen, heads)
    return Explorer(ipywidgets, result, chosen, figure, heads)


def _check(result: AttentionCapture, options: ViewOptions, alignment_heads) -> None:
    """Refuse what `attnviz.show` refuses, with its sentence (`selection.show`, no figure drawn), before a control
    holds it: a control would otherwise raise a widget's own error (an unknown weighting) or open on something else
    (an unknown aggregation, value norms the map lacks). An aggregation `show` draws but no control offers (a custom
    selection) is refused with those offered."""
    selection.show(result, options, alignment_heads, ())
    kind = options.kind or selection.default_kind(result)
    offered = head_choice.offered_aggregations(kind, held_measure(result))
    if options.aggregation is not None and options.aggregation not in offered:
        raise InputError("view_unknown", view=options.aggregation, views=", ".join(offered))


class Explorer:
    """The controls of one capture, the figure they choose and the `Shown` it was drawn from."""

    def __init__(self, widgets, result: AttentionCapture, base: ViewOptions, figure: str, alignment_heads) -> None:
        self.result, self.base, self.alignment_heads = result, base, alignment_heads
        self.shown: Shown | None = None  # what the figure shows now (None while an option is refused)
        lang = base.lang
        kinds = [kind for kind in MAP_KINDS if kind in result.kinds]
        kind = base.kind or selection.default_kind(result)  # one the capture holds (`_check`)

        def said(key: str) -> str:
            return i18n.t(key, lang)

        self.kind = widgets.Dropdown(options=[(said(f"kind_{k}"), k) for k in kinds], value=kind)
        self.aggregation = widgets.Dropdown()
        self.layer = widgets.IntSlider(min=0, max=0, continuous_update=False)
        self.head = widgets.IntSlider(min=0, max=0, continuous_update=False)
        self.figure = widgets.ToggleButtons()
        self.weighting = widgets.ToggleButtons(
            options=[(said(f"values_weighting_{w.replace('-', '_')}"), w) for w in viewing.WEIGHTINGS],
            value=base.weighting,
        )
        self.output = widgets.Output()
        for control, key in self._labelled():
            control.description = said(key)
        self._holding = False
        self._fit(base.aggregation, base.layer, base.head, figure)
        for control, _ in self._labelled():
            control.observe(self._changed, names="value")
        rows = [[self.kind, self.aggregation], [self.layer, self.head], [self.figure], [self.weighting]]
        self.widget = widgets.VBox([*(widgets.HBox(row) for row in rows), self.output])
        self.redraw()

    def _labelled(self):
        """Each control and the catalogue key of its label."""
        return [
            (self.kind, "explore_kind"),
            (self.aggregation, "aggregation"),
            (self.layer, "layer"),
            (self.head, "head"),
            (self.figure, "explore_figure"),
            (self.weighting, "values_weighting"),
        ]

    @contextmanager
    def _held(self):
        """Controls changed together (another map's choices) redraw once, after all of them."""
        self._holding = True
        try:
            yield
        finally:
            self._holding = False

    def _fit(self, aggregation: str | None, layer: int, head: int, figure: str) -> None:
        """The choices the chosen map offers: its aggregations, layers, heads, figures and weightings; the values
        asked for where the map has them, else the ones it opens on."""
        lang, kind = self.base.lang, self.kind.value
        amap = self.result[kind]
        offered = head_choice.offered_aggregations(kind, held_measure(self.result))
        figures = [name for name in viewing.FIGURES if kind in FIGURE_KINDS.get(name, (kind,))]
        with self._held():
            self.aggregation.options = [(i18n.t(f"aggregation_{a}", lang), a) for a in offered]
            opens_on = selection.with_measure(self.result, replace(self.base, aggregation=None))
            self.aggregation.value = (
                aggregation if aggregation in offered else head_choice.aggregation_of(opens_on, kind)
            )
            self.layer.max, self.head.max = amap.num_layers - 1, amap.num_heads - 1
            self.layer.value = head_choice.clamp_index(layer, amap.num_layers)
            self.head.value = head_choice.clamp_index(head, amap.num_heads)
            self.figure.options = [(i18n.t(f"explore_figure_{name}", lang), name) for name in figures]
            self.figure.value = figure if figure in figures else figures[0]
            self.weighting.disabled = amap.value_norms is None  # value norms are recorded with the weights, or not
            if self.weighting.disabled:
                self.weighting.value = "weights"
            self._enable()

    def _enable(self) -> None:
        """The layer and head sliders open only where the aggregation uses them, as the app's selectors are."""
        aggregation = self.aggregation.value
        self.layer.disabled = aggregation not in ("head", "layer")
        self.head.disabled = aggregation != "head"

    def _changed(self, change) -> None:
        if self._holding:
            return
        if change["owner"] is self.kind:
            self._fit(self.aggregation.value, self.layer.value, self.head.value, self.figure.value)
        self._enable()
        self.redraw()

    def options(self) -> ViewOptions:
        """The view options the controls hold now (those they do not set as `explore` was given them)."""
        return replace(
            self.base,
            kind=self.kind.value,
            aggregation=self.aggregation.value,
            layer=self.layer.value,
            head=self.head.value,
            weighting=self.weighting.value,
        )

    def redraw(self) -> None:
        """Draw the figure the controls choose (`selection.show`) into the output, in place of the one there; an
        option the capture cannot show is said there instead, in the view's language."""
        try:
            self.shown = selection.show(self.result, self.options(), self.alignment_heads, (self.figure.value,))
        except AttnvizError as error:
            self.shown = None
            self.output.outputs = ({"output_type": "stream", "name": "stderr", "text": error.message(self.base.lang)},)
            return
        drawn = notebook.bundles(self.shown.figures.values())
        self.output.outputs = tuple({"output_type": "display_data", "data": data, "metadata": {}} for data in drawn)

    def _repr_mimebundle_(self, **kwargs):
        """A cell whose value is the explorer shows its controls and figure."""
        return self.widget._repr_mimebundle_(**kwargs)
