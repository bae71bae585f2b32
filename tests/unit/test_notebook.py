"""`attnviz.show` in a notebook: the figures the app and the CLI draw for the same options (`selection.show`), sent
as mime bundles that carry plotly.js once per kernel and never name a CDN; IPython loaded only when displaying."""

from __future__ import annotations

import re
import subprocess
import sys
import types
from pathlib import Path

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
