"""`python -m attnviz compare` as a user calls it: the ranking CSV equals the library's comparison, two models get a
head pairing, one model on one device or in two precisions reports parity, the diff figure and A's and B's diagrams
side by side are written, and bad input (empty B, a model B that reads another language, maps of different kinds, an
unknown suffix, a half precision the device cannot run, a figure asked of the ranking table) is one line with exit 2,
in English and in Chinese."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from app_pages.shared.state import ViewState
from attnviz.attention.capture import capture
from attnviz.compare import compare_captures
from attnviz.model import devices
from attnviz.model.load import load_model
from attnviz.view.selection import prepare_map
from tests.support import tiny
from tests.support.cli import one_line_error, run_cli
from tests.support.engines import HAS_BROWSER
from tests.support.figure_reading import links_by_hand

TEXT_A, TEXT_B = "the cat sat on the mat", "the big cat sat on the mat"


def read_rows(path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_ranking_csv_is_the_librarys_ranking_with_the_apps_defaults(capsys, tmp_path, tiny_folder):
    folder, out = tiny_folder("bert"), tmp_path / "ranking.csv"
    code, said, _ = run_cli(capsys, "compare", "--model", folder, "--text", TEXT_A, "--text-b", TEXT_B, "-o", str(out))
    assert code == 0 and str(out) in said and "most changed" in said
    rows = read_rows(out)
    handle = load_model(folder, "cpu")
    app = ViewState()  # what the Compare page compares with, untouched: [CLS] and [SEP] hidden
    shown = dict(weighting=app.weighting, hide_special=app.hide_special)
    expected = compare_captures(capture(handle, TEXT_A), capture(handle, TEXT_B), **shown).table()
    assert [(r["kind"], int(r["layer"]), int(r["head"]), int(r["layer_b"]), int(r["head_b"])) for r in rows] == [
        (e["kind"], e["layer"], e["head"], e["layer_b"], e["head_b"]) for e in expected
    ]
    np.testing.assert_allclose([float(r["js"]) for r in rows], [e["js"] for e in expected], rtol=1e-9)
    js = [float(r["js"]) for r in rows]
    assert js == sorted(js, reverse=True) and len(rows) == 2 * 4


def test_two_models_get_their_heads_paired(capsys, tmp_path, tiny_folder):
    other = tiny.save_tiny("bert", tmp_path / "other", seed=1)
    out = tmp_path / "r.csv"
    code, _, _ = run_cli(capsys, "compare", "-m", tiny_folder("bert"), "--model-b", other, "-t", TEXT_A, "-o", str(out))
    assert code == 0
    rows = read_rows(out)
    for layer in ("0", "1"):
        assert sorted(int(r["head_b"]) for r in rows if r["layer"] == layer) == [0, 1, 2, 3]  # a permutation


def test_one_model_on_one_device_twice_reports_parity_and_draws_a_zero_diff(capsys, tmp_path, tiny_folder):
    out = tmp_path / "diff.html"
    argv = ["compare", "-m", tiny_folder("gpt2"), "-t", TEXT_A, "--device", "cpu", "--device-b", "cpu", "-o", str(out)]
    code, said, _ = run_cli(capsys, *argv)
    assert code == 0 and "max |ΔP| 0.00e+00" in said and out.stat().st_size > 0
    assert "A − B" in out.read_text(encoding="utf-8")


def test_the_diff_figure_of_one_head_in_chinese(capsys, tmp_path, tiny_folder):
    out = tmp_path / "diff.svg"
    argv = ["compare", "-m", tiny_folder("bert"), "-t", TEXT_A, "--text-b", TEXT_B, "--layer", "1", "--head", "2"]
    code, said, _ = run_cli(capsys, *argv, "--lang", "zh", "--engine", "static", "-o", str(out))
    assert code == 0 and "变化最大" in said
    drawn = out.read_text(encoding="utf-8")
    assert "<svg" in drawn


def _heatmap_width_share(png: bytes) -> float:
    """The share of a diff PNG's width its coloured cells (red or blue) span."""
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)
    coloured = (pixels.max(-1) - pixels.min(-1) > 60).any(axis=0)
    columns = np.flatnonzero(coloured)
    return (columns[-1] - columns[0] + 1) / pixels.shape[1] if columns.size else 0.0


def test_a_special_tokens_row_and_column_are_labelled_in_every_file(capsys, tmp_path):
    import pypdf

    argv = [
        "compare",
        "--model",
        "demo-zh-en",
        "--text",
        "早上好！",
        "--text-b",
        "晚上好！",
        "--target",
        "Good morning!",
    ]
    argv += ["--target-b", "Good evening!", "--no-hide-special"]
    code, _, _ = run_cli(capsys, *argv, "-o", str(tmp_path / "diff.json"))
    layout = json.loads((tmp_path / "diff.json").read_text(encoding="utf-8"))["layout"]
    assert code == 0
    for axis in ("xaxis", "yaxis"):  # escaped, so that plotly draws it rather than reading a closing tag
        assert layout[axis]["ticktext"][-1] == "&lt;/s&gt;"
    code, _, _ = run_cli(capsys, *argv, "--engine", "static", "-o", str(tmp_path / "diff.pdf"))
    text = pypdf.PdfReader(tmp_path / "diff.pdf").pages[0].extract_text()
    assert code == 0 and text.count("</s>") == 2  # the row's label and the column's
    if HAS_BROWSER:  # the unescaped tag also shrank Chromium's heatmap to a corner of the file
        code, _, _ = run_cli(capsys, *argv, "--engine", "kaleido", "-o", str(tmp_path / "diff.png"))
        assert code == 0 and _heatmap_width_share((tmp_path / "diff.png").read_bytes()) > 0.5


@pytest.mark.parametrize("lang, words", [("en", "Text B is empty"), ("zh", "文本 B 是空的")])
def test_an_empty_b_is_one_line_in_either_language(capsys, tmp_path, lang, words):
    argv = ["compare", "-m", "x", "-t", "hi", "--text-b", " ", "--lang", lang, "-o", str(tmp_path / "r.csv")]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and words in one_line_error(err)


@pytest.mark.parametrize("lang, words", [("en", "does not read"), ("zh", "读不懂")])
def test_a_model_b_that_reads_another_language_is_refused_before_it_loads(capsys, tmp_path, lang, words):
    argv = ["compare", "-m", "x", "--model-b", "demo-zh-en", "-t", "the cat sat", "--lang", lang]
    code, _, err = run_cli(capsys, *argv, "-o", str(tmp_path / "r.csv"))
    assert code == 2 and words in one_line_error(err)


def test_maps_of_different_kinds_and_unknown_suffixes_are_refused(capsys, tmp_path, tiny_folder):
    argv = ["compare", "-m", tiny_folder("bart"), "-t", TEXT_A, "--target", "Good morning!", "--kind", "cross"]
    code, _, err = run_cli(capsys, *argv, "--kind-b", "encoder", "-o", str(tmp_path / "r.csv"))
    assert code == 2 and "different tokens" in one_line_error(err)
    code, _, err = run_cli(capsys, *argv, "--kind-b", "encoder", "--lang", "zh", "-o", str(tmp_path / "r.csv"))
    assert code == 2 and "不同的词元" in one_line_error(err)
    code, _, err = run_cli(capsys, "compare", "-m", "x", "-t", "a", "-o", str(tmp_path / "r.gif"))
    assert code == 2 and ".csv" in one_line_error(err)


def said_parity(said: str) -> tuple[float, int, int, float]:
    """max |ΔP|, its layer and head, and the row-sum error, as stdout's parity line says them."""
    found = re.search(r"max \|ΔP\| (\S+) \(layer (\d+), head (\d+)\); row-sum error (\S+)", said)
    assert found, said
    return float(found[1]), int(found[2]), int(found[3]), float(found[4])


@pytest.mark.parametrize("family, dtype", [("gpt2", "bfloat16"), ("bert", "float16")])
def test_one_model_in_two_precisions_reports_the_parity_numbers(
    capsys, monkeypatch, tmp_path, tiny_folder, family, dtype
):
    # a comparison of precisions: the CPU runs B in half precision (the policy's `compared`), no patch needed
    folder, out = tiny_folder(family), tmp_path / "r.csv"
    argv = ["compare", "-m", folder, "-t", TEXT_A, "--device", "cpu", "--dtype-b", dtype, "-o", str(out)]
    code, said, _ = run_cli(capsys, *argv)
    assert code == 0
    most, layer, head, rows = said_parity(said)
    # independently: the fp32 model cast by torch itself (not through load_model's dtype), the weights diffed in numpy
    full, half = load_model(folder, "cpu"), load_model(folder, "cpu")
    half.model.to(getattr(torch, dtype))
    weights = [capture(handle, TEXT_A)["self"].weights.astype(np.float64) for handle in (full, half)]
    per_head = np.abs(weights[0] - weights[1]).max(axis=(2, 3))  # (layers, heads)
    assert 0 < per_head.max() < 0.1  # half precision moves the weights, a little
    assert most == pytest.approx(per_head.max(), rel=0.01)  # stdout rounds to 3 digits
    assert (layer, head) == np.unravel_index(np.argmax(per_head), per_head.shape)
    assert rows == pytest.approx(max(np.abs(w.sum(-1) - 1).max() for w in weights), rel=0.01, abs=1e-12)


@pytest.mark.parametrize("lang, words", [("en", "not allowed on mps"), ("zh", "mps 上不能使用")])
def test_half_precision_where_the_device_cannot_run_it_is_one_line(capsys, monkeypatch, tmp_path, lang, words):
    # bfloat16 on mps: refused by the policy before any model loads (the device stood in for, none here)
    monkeypatch.setattr(devices, "resolve_device", lambda name: torch.device("mps"))
    argv = ["compare", "-m", "x", "-t", "hi", "--device-b", "mps", "--dtype-b", "bfloat16", "--lang", lang]
    code, _, err = run_cli(capsys, *argv, "-o", str(tmp_path / "r.csv"))
    assert code == 2 and words in one_line_error(err)


def drawn_links(traces) -> list[tuple[str, float]]:
    """(query → key, weight) of each link line among `traces` (plotly JSON), sorted."""
    return sorted((t["name"], round(float(t["customdata"][0]), 6)) for t in traces if t.get("mode") == "lines")


def test_the_sides_figure_holds_a_and_bs_diagrams_laid_out_alike(capsys, tmp_path, tiny_folder):
    folder, out = tiny_folder("bart"), tmp_path / "sides.json"
    argv = ["compare", "-m", folder, "-t", TEXT_A, "--text-b", TEXT_B, "--target", "Good morning!", "--hide-special"]
    code, said, _ = run_cli(capsys, *argv, "--figure", "sides", "--layer", "1", "--head", "2", "-o", str(out))
    assert code == 0 and str(out) in said
    drawn = json.loads(out.read_text(encoding="utf-8"))
    layout = drawn["layout"]
    handle = load_model(folder, "cpu")
    for text, axis in ((TEXT_A, "x"), (TEXT_B, "x2")):  # B is one model: its head 2 is set beside A's head 2
        amap = prepare_map(capture(handle, text, "Good morning!"), "cross", hide=True, words=True)
        expected = links_by_hand(amap, amap.weights[1, 2])
        assert expected and drawn_links(t for t in drawn["data"] if t.get("xaxis") == axis) == expected
    spans = [layout[name]["domain"][1] - layout[name]["domain"][0] for name in ("xaxis", "xaxis2")]
    assert spans[0] == pytest.approx(spans[1])  # one layout: the same plot width on each side
    headings = [note["text"] for note in layout["annotations"] if note.get("name") == "heading"]
    named = Path(folder).name  # a folder by its own name, never its path
    assert [heading.count(f"{side}: model {named}") for side, heading in zip("AB", headings)] == [1, 1]
    provenance = layout["meta"]["provenance"]
    assert provenance["view"]["name"] == "compare-sides" and provenance["source_text"] == TEXT_A
    assert provenance["view"]["options"]["compare"]["text_b"] == TEXT_B
    assert (provenance["view"]["options"]["layer"], provenance["view"]["options"]["head"]) == (1, 2)


def test_the_sides_figure_as_a_chinese_svg_and_refused_as_a_table(capsys, tmp_path, tiny_folder):
    out = tmp_path / "sides.svg"
    argv = ["compare", "-m", tiny_folder("bert"), "-t", TEXT_A, "--text-b", TEXT_B, "--figure", "sides", "--lang", "zh"]
    code, _, _ = run_cli(capsys, *argv, "--engine", "static", "-o", str(out))
    drawn = out.read_text(encoding="utf-8")
    assert code == 0 and "<svg" in drawn and "attnviz-provenance" in drawn
    for lang, words in (("en", "ranking table"), ("zh", "排序表")):
        code, _, err = run_cli(capsys, *argv[:-2], "--lang", lang, "-o", str(tmp_path / "r.csv"))
        assert code == 2 and words in one_line_error(err)
