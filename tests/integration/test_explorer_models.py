"""The explorer file with real models: `attnviz explorer` on a 30-token pair of demo-zh-en stays under 5 MB and says
its size before it writes; its figures are the app's figures for the same choices (the running pages under
AppTest); a measure put in is the measure the library computes; a file too large is refused with what to drop; and
the pages' button makes the file and says its size."""

from __future__ import annotations

import contextlib
import io
import json

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from app_pages.shared import explorer_download
from attnviz import cli
from attnviz.export import explorer_file as ef
from attnviz.export.explorer_page import read_page
from attnviz.measuring import measured
from attnviz.model.load import load_model
from attnviz.run import RunRequest, run_recorded
from attnviz.view import selection, viewing
from tests.support.app import (
    assert_page_ok,
    chart_specs,
    one_torch_thread,  # noqa: F401 - a fixture: torch on one thread, as in the app
    open_by_link,
)

MODEL = "demo-zh-en"
SOURCE = "我们明天早上去北京的大学图书馆看书，然后一起吃午饭，晚上再回家休息，好吗？"
TARGET = (
    "Tomorrow morning we will go to the university library in Beijing to read books, then have lunch together and "
    "go home to rest in the evening, all right?"
)
FIVE_MB = 5_000_000


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """(the explorer file `attnviz explorer` wrote for the 30-token pair, what it printed on stderr)."""
    path = tmp_path_factory.mktemp("explorer") / "explorer.html"
    argv = ["explorer", "--model", MODEL, "--device", "cpu", "--text", SOURCE, "--target", TARGET, "-o", str(path)]
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        assert cli.main([*argv, "--quiet"]) == 0
    return path, said.getvalue()


@pytest.fixture(scope="module")
def capture():
    handle = load_model(MODEL, "cpu")
    return handle, run_recorded(handle, RunRequest(SOURCE, TARGET, "pair"))


def normalised(figure: dict) -> dict:
    """A figure as plotly reads it (the app's chart spec and the file's JSON alike)."""
    return json.loads(pio.to_json(go.Figure(figure), validate=False))


@pytest.mark.slow
def test_a_30_token_pair_makes_a_file_under_5_mb_said_before_it_is_written(written, capture):
    path, said = written
    _, result = capture
    assert len(result["encoder"].key_tokens) >= 30 and len(result["cross"].query_tokens) >= 30
    size = path.stat().st_size
    assert size < FIVE_MB, size
    planned = len(ef.plan(result, {}, ef.ExplorerContent().checked()))
    assert said.strip() == f"explorer.html: {size / 1e6:.1f} MB, {planned} figures"
    info, payload = read_page(path.read_bytes())
    assert len(payload["figures"]) == planned and info["langs"] == ["en", "zh"]


# (page, link fields, figure): choices on the running pages whose charts the file must hold as they are
APP_CHOICES = [
    ("translate", {"cross_aggregation": "alignment"}, "alignment", "cross"),
    (
        "translate",
        {"cross_aggregation": "head", "layer": 1, "head": 2, "lang": "zh", "threshold": 0.3},
        "alignment",
        "cross",
    ),
    ("translate", {"cross_aggregation": "layer", "layer": 2, "words": 0}, "heatmap", "cross"),
    ("self", {"self_aggregation": "head", "head": 3, "threshold": 0.2, "lang": "zh"}, "lines", "encoder"),
    ("self", {"self_aggregation": "all", "words": 0}, "heatmap", "encoder"),
    ("self", {"self_aggregation": "rollout", "stack": "decoder"}, "grid", "decoder"),
]


@pytest.mark.slow
@pytest.mark.parametrize("page, link, view, kind", APP_CHOICES)
def test_the_files_figures_are_the_apps_for_the_same_choices(written, page, link, view, kind):
    path, _ = written
    _, payload = read_page(path.read_bytes())
    at = open_by_link(
        "page_scripts/self_attention.py" if page == "self" else None,
        model=MODEL,
        device="cpu",
        text=SOURCE,
        target=TARGET,
        mode="pair",
        **link,
    )
    assert_page_ok(at)
    shown = {spec["layout"]["meta"]["view"]: spec for spec in chart_specs(at) if "meta" in spec.get("layout", {})}
    aggregation = link.get("cross_aggregation") or link.get("self_aggregation")
    choice = ef.Choice(
        "weights",
        kind,
        view,
        aggregation,
        link.get("layer", 0),
        link.get("head", 0),
        bool(link.get("words", 1)),
        link.get("threshold", 0.1),
        link.get("lang", "en"),
    ).normalised()
    assert normalised(ef.resolved(payload, choice.key())) == normalised(shown[view])


@pytest.mark.slow
def test_a_measure_put_in_is_the_measure_the_library_computes(capture):
    handle, result = capture
    alti = measured(handle, result.source_text, result.target_text, measure="alti")
    content = ef.ExplorerContent(measures=("alti",), kinds=("cross",), langs=("en",), words=(True,), thresholds=(0.1,))
    info, payload = read_page(ef.explorer_file(result, handle.alignment_heads, {"alti": alti}, content).data)
    assert set(info["menu"]) == {"weights", "alti"}
    assert info["menu"]["alti"]["cross"]["aggregations"] == ["head", "layer", "all"]
    options = viewing.ViewOptions(kind="cross", aggregation="layer", layer=1, measure="alti")
    expected = selection.show(alti, options, handle.alignment_heads, ("heatmap",)).figures["heatmap"]
    key = ef.Choice("alti", "cross", "heatmap", "layer", 1, None, True, None, "en").key()
    assert ef.resolved(payload, key) == json.loads(pio.to_json(expected))


def test_the_command_refuses_a_file_too_large_saying_what_to_drop(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ef, "MAX_FIGURES", 100)
    path = tmp_path / "x.html"
    argv = ["explorer", "--model", MODEL, "--device", "cpu", "--text", "早上好！", "-o", str(path), "--lang", "zh"]
    assert cli.main(argv) == 2
    said = capsys.readouterr().err
    assert said.startswith("attnviz: error: 浏览文件将包含") and "超过上限 100 张" in said and "再去掉" in said
    assert not path.exists()


@pytest.mark.slow
def test_the_pages_button_makes_the_file_and_says_its_size(tiny_folder):
    at = open_by_link("page_scripts/self_attention.py", model=tiny_folder("bert"), text="Good morning!", lang="zh")
    at.button(key="explorer_make").click().run(timeout=600)
    assert_page_ok(at)
    made = at.session_state[explorer_download.MADE]
    said = [caption.value for caption in at.caption if made.name in caption.value]
    assert said == [f"{made.name}：{made.file.megabytes:.1f} MB，{made.file.figures:,} 张图。"]
    info, payload = read_page(made.file.data)
    assert info["default"]["lang"] == "zh" and len(payload["figures"]) == made.file.figures
    assert at.get("download_button")
