"""`attnviz.explore`: the notebook's controls redraw, on every change, the figure `attnviz.show` (`selection.show`)
draws for the same options, into an ipywidgets Output as the same mime bundle; each map offers only what it has;
ipywidgets is loaded only when `explore` is called."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import plotly.io as pio
import pytest
from plotly.offline import get_plotlyjs

import attnviz
from attnviz.errors import InputError
from attnviz.notebook import show as notebook
from attnviz.notebook.show import PLOTLY_MIME
from attnviz.view import viewing
from tests.support.maps import seq2seq_capture

REPO = Path(__file__).resolve().parents[2]


def _drawn(explorer) -> dict:
    """The plotly JSON the explorer's output holds now: its one figure, as a front end reads it."""
    (output,) = explorer.output.outputs
    assert output["output_type"] == "display_data" and "text/html" in output["data"]
    return output["data"][PLOTLY_MIME]


def _expected(capture, figure: str, **options) -> dict:
    shown = attnviz.show(capture, figure, display=False, **options)
    return json.loads(pio.to_json(shown.figures[figure]))


def test_changing_layer_and_head_redraws_what_show_draws_for_those_options():
    capture = seq2seq_capture()
    explorer = attnviz.explore(capture, lang="zh")
    assert explorer.options().kind == "cross" and explorer.aggregation.value == "alignment"  # as the app opens
    assert _drawn(explorer) == _expected(capture, "heatmap", kind="cross", aggregation="alignment", lang="zh")
    explorer.aggregation.value = "head"
    for layer, head in [(1, 0), (1, 1), (0, 1)]:
        explorer.layer.value, explorer.head.value = layer, head
        options = {"kind": "cross", "aggregation": "head", "layer": layer, "head": head, "lang": "zh"}
        assert explorer.shown.selection.pairs == ((layer, head),)
        assert _drawn(explorer) == _expected(capture, "heatmap", **options)
    explorer.figure.value = "alignment"
    assert _drawn(explorer) == _expected(capture, "alignment", **options)
    explorer.aggregation.value = "layer"
    assert explorer.head.disabled and not explorer.layer.disabled  # a layer's mean has no one head
    assert _drawn(explorer) == _expected(capture, "alignment", **{**options, "aggregation": "layer"})
    assert "早上" in json.dumps(_drawn(explorer), ensure_ascii=False)  # Chinese labels as they are


def test_another_map_offers_its_own_aggregations_and_figures():
    capture = seq2seq_capture()
    explorer = attnviz.explore(capture, "alignment", kind="cross", aggregation="all")
    assert [value for _, value in explorer.kind.options] == ["encoder", "cross"]  # the maps it holds
    assert explorer.layer.disabled and explorer.head.disabled
    explorer.kind.value = "encoder"
    assert [value for _, value in explorer.aggregation.options] == list(viewing.SELF_AGGREGATIONS)
    assert "alignment" not in [value for _, value in explorer.figure.options]  # links between two texts only
    assert explorer.aggregation.value == "all" and explorer.figure.value == "heatmap"
    assert _drawn(explorer) == _expected(capture, "heatmap", kind="encoder", aggregation="all")
    explorer.aggregation.value = "rollout"
    assert explorer.shown.selection.aggregation == viewing.ROLLOUT
    assert _drawn(explorer) == _expected(capture, "heatmap", kind="encoder", aggregation="rollout")
    explorer.kind.value = "cross"  # no rollout of cross-attention: back to what it opens on
    assert explorer.aggregation.value == "alignment"


def test_each_change_redraws_once_and_options_given_by_name_hold():
    capture = seq2seq_capture()
    explorer = attnviz.explore(capture, "grid", kind="encoder", words=False, hide_special=False)
    drawn = []
    redraw = explorer.redraw
    explorer.redraw = lambda: (drawn.append(explorer.kind.value), redraw())
    explorer.kind.value = "cross"  # the aggregation, sliders and figure follow: one redraw for all of them
    assert drawn == ["cross"]
    expected = _expected(capture, "grid", kind="cross", aggregation="alignment", words=False, hide_special=False)
    assert _drawn(explorer) == expected


def test_weighting_by_value_norm_where_the_capture_has_norms():
    capture = seq2seq_capture()
    cross = capture["cross"]
    norms = np.random.default_rng(3).random((cross.num_layers, cross.num_heads, len(cross.key_tokens)))
    capture = replace(capture, maps={**capture.maps, "cross": replace(cross, value_norms=norms.astype(np.float32))})
    explorer = attnviz.explore(capture, aggregation="head", layer=1, head=1)
    assert not explorer.weighting.disabled
    explorer.weighting.value = "value-norm"
    options = {"kind": "cross", "aggregation": "head", "layer": 1, "head": 1, "weighting": "value-norm"}
    assert _drawn(explorer) == _expected(capture, "heatmap", **options)
    explorer.kind.value = "encoder"  # recorded without value norms: weights only
    assert explorer.weighting.disabled and explorer.weighting.value == "weights"


def test_plotlyjs_is_embedded_once_per_kernel_with_show(monkeypatch):
    monkeypatch.setattr(notebook._Kernel, "plotlyjs_sent", False)
    explorer = attnviz.explore(seq2seq_capture(), aggregation="head")
    first = explorer.output.outputs[0]["data"]["text/html"]
    explorer.layer.value = 1
    later = explorer.output.outputs[0]["data"]["text/html"]
    script = get_plotlyjs()[:2000]
    assert script in first and script not in later
    assert notebook._Kernel.plotlyjs_sent  # a later attnviz.show sends none either
    assert not any(re.search(r"<script[^>]*\bsrc=", html) for html in (first, later))  # nothing fetched: no CDN


def test_bad_options_and_a_missing_ipywidgets_are_sentences(monkeypatch):
    with pytest.raises(InputError) as refused:
        attnviz.explore(seq2seq_capture(), layers_to_show=2)
    assert refused.value.key == "notebook_option_unknown"
    with pytest.raises(InputError) as refused:
        attnviz.explore(seq2seq_capture(), "sankey")
    assert refused.value.key == "figure_unknown"
    with pytest.raises(InputError) as refused:
        attnviz.explore(seq2seq_capture(), kind="decoder")  # a map the capture does not hold
    assert "encoder" in str(refused.value)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # as if not installed
    with pytest.raises(InputError) as refused:
        attnviz.explore(seq2seq_capture())
    assert refused.value.key == "notebook_needs_ipywidgets"
    assert "attnviz[notebook]" in refused.value.message("zh") and "ipywidgets" in str(refused.value)


@pytest.mark.parametrize(
    "options",
    [
        {"weighting": "bogus"},
        {"aggregation": "bogus"},
        {"weighting": "value-norm"},  # the capture holds no value norms
        {"kind": "encoder", "aggregation": "alignment"},
        {"step": 99},
    ],
)
def test_an_option_show_refuses_is_refused_with_the_same_sentence(options):
    capture = seq2seq_capture()
    with pytest.raises(InputError) as shown:
        attnviz.show(capture, display=False, **options)
    with pytest.raises(InputError) as explored:
        attnviz.explore(capture, **options)
    assert explored.value.key == shown.value.key
    assert explored.value.message("zh") == shown.value.message("zh")


def test_an_aggregation_no_control_offers_is_refused_with_those_offered():
    with pytest.raises(InputError) as refused:
        attnviz.explore(seq2seq_capture(), kind="encoder", aggregation="custom")  # `show` draws it; no control can
    assert refused.value.key == "view_unknown"
    assert ", ".join(viewing.SELF_AGGREGATIONS) in str(refused.value)


def test_reading_attnviz_explore_imports_neither_ipywidgets_nor_torch():
    probe = "import sys, attnviz; attnviz.explore; print(any(m in sys.modules for m in ('ipywidgets', 'torch')))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.split() == ["False"], done.stderr


def test_a_layer_and_head_named_alone_open_on_that_head():
    """`explore(result, layer=1, head=1)` opens its controls on that head (as `attnviz.show` draws it), not on the
    alignment heads the app opens cross-attention on."""
    capture = seq2seq_capture()
    explorer = attnviz.explore(capture, layer=1, head=1)
    assert explorer.aggregation.value == "head" and (explorer.layer.value, explorer.head.value) == (1, 1)
    assert explorer.shown.selection.pairs == ((1, 1),)
    assert _drawn(explorer) == _expected(capture, "heatmap", layer=1, head=1)
