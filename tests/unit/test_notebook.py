"""`attnviz.show` in a notebook: the figures the app and the CLI draw for the same options (`selection.show`), sent
as mime bundles that carry plotly.js once per kernel and never name a CDN; IPython loaded only when displaying."""

from __future__ import annotations

import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from plotly.offline import get_plotlyjs

import attnviz
from attnviz.errors import InputError
from attnviz.notebook import show as notebook
from attnviz.view import selection, viewing
from tests.support.maps import seq2seq_capture

REPO = Path(__file__).resolve().parents[2]


def test_show_draws_what_selection_show_draws_for_the_same_options():
    capture = seq2seq_capture()
    shown = attnviz.show(
        capture, ["heatmap", "grid"], kind="cross", aggregation="head", layer=1, head=0, lang="zh", display=False
    )
    same = selection.show(
        capture,
        viewing.ViewOptions(kind="cross", aggregation="head", layer=1, head=0, lang="zh"),
        (),
        ("heatmap", "grid"),
    )
    assert shown.figures.keys() == {"heatmap", "grid"}
    for name in shown.figures:
        assert shown.figures[name].to_plotly_json() == same.figures[name].to_plotly_json()
    assert "早上" in str(shown.figures["heatmap"].to_plotly_json())  # Chinese labels as they are


def test_plotlyjs_goes_into_the_first_figure_only_and_no_cdn_is_named(monkeypatch):
    shown = []
    fake = types.ModuleType("IPython.display")
    fake.display = lambda bundle, raw: shown.append((bundle, raw))
    monkeypatch.setitem(sys.modules, "IPython", types.ModuleType("IPython"))
    monkeypatch.setitem(sys.modules, "IPython.display", fake)
    sys.modules["IPython"].display = fake
    monkeypatch.setattr(notebook._Kernel, "plotlyjs_sent", False)
    attnviz.show(seq2seq_capture(), ["heatmap", "alignment"])
    attnviz.show(seq2seq_capture(), "lines")
    assert len(shown) == 3 and all(raw for _, raw in shown)
    script = get_plotlyjs()[:2000]
    htmls = [bundle["text/html"] for bundle, _ in shown]
    assert script in htmls[0] and not any(script in html for html in htmls[1:])
    assert not any(re.search(r"<script[^>]*\bsrc=", html) for html in htmls)  # nothing fetched: no CDN
    assert all(bundle[notebook.PLOTLY_MIME]["data"] for bundle, _ in shown)


def test_without_ipython_displaying_is_a_sentence_and_display_false_still_works(monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython", None)  # as if not installed
    with pytest.raises(InputError) as refused:
        attnviz.show(seq2seq_capture())
    assert refused.value.key == "notebook_needs_ipython" and "attnviz[notebook]" in refused.value.message("zh")
    assert attnviz.show(seq2seq_capture(), display=False).figures


def test_an_unknown_option_is_refused():
    with pytest.raises(InputError) as refused:
        attnviz.show(seq2seq_capture(), layers_to_show=3, display=False)
    assert refused.value.key == "notebook_option_unknown" and "layer" in str(refused.value)


def test_reading_attnviz_show_imports_neither_ipython_nor_ipywidgets_nor_torch():
    probe = (
        "import sys, attnviz; attnviz.show; print(any(m in sys.modules for m in ('IPython', 'ipywidgets', 'torch')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.split() == ["False"], done.stderr


def test_a_layer_and_head_named_alone_draw_that_head_not_the_alignment_heads():
    """`attnviz.show(result, view="heatmap", layer=1, head=1, lang="zh")` on a capture with cross-attention: the app
    opens cross-attention on its alignment heads, where a layer and head mean nothing; named, they choose the head."""
    capture = seq2seq_capture()
    shown = attnviz.show(capture, view="heatmap", layer=1, head=1, lang="zh", display=False)
    assert shown.selection.aggregation == "head" and shown.selection.pairs == ((1, 1),)
    assert shown.amap.kind == "cross"
    raw = attnviz.show(capture, layer=1, head=1, words=False, hide_special=False, display=False)
    drawn = np.asarray(raw.figures["heatmap"].data[0].z, dtype=np.float32)  # (target, source) as drawn
    np.testing.assert_allclose(drawn, capture["cross"].weights[1, 1], atol=1e-6)  # that head's own weights
    only_head = attnviz.show(capture, head=1, display=False)
    assert only_head.selection.pairs == ((0, 1),)
    as_asked = attnviz.show(capture, aggregation="layer", layer=1, display=False)  # an aggregation given is kept
    assert as_asked.selection.aggregation == "layer" and as_asked.selection.layers == 1
    assert attnviz.show(capture, display=False).selection.aggregation == "alignment"  # nothing named: the app's view
