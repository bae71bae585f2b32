"""`python -m attnviz lens` and `decoder-lens` write what the library computes: CSV and JSON rows equal to
`logit_lens_rows`, a PNG grid, DecoderLens JSON per encoder layer; a model without next-token prediction is one line
on stderr and exit code 2, in the language asked for."""

import csv
import json

import pytest

from attnviz.cli import main
from attnviz.measures.lens_results import logit_lens_rows
from attnviz.measures.logit_lens import logit_lens
from attnviz.model.load import load_model

TEXT = "早上好！Good morning"


def test_lens_csv_and_json_hold_the_librarys_rows(tmp_path, tiny_folder):
    folder = tiny_folder("llama")
    expected = logit_lens_rows(logit_lens(load_model(folder, "cpu"), TEXT, top_k=3))
    assert main(["lens", "--model", folder, "--text", TEXT, "--top-k", "3", "-o", str(tmp_path / "l.csv")]) == 0
    with open(tmp_path / "l.csv", encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == len(expected)
    assert [(r["token"], r["top1_token"], int(r["final_rank"])) for r in rows] == [
        (r["token"], r["top1_token"], r["final_rank"]) for r in expected
    ]
    assert float(rows[-1]["top1_probability"]) == pytest.approx(expected[-1]["top1_probability"])
    assert main(["lens", "--model", folder, "--text", TEXT, "--top-k", "3", "-o", str(tmp_path / "l.json")]) == 0
    document = json.loads((tmp_path / "l.json").read_text(encoding="utf-8"))
    assert document["rows"] == expected and document["kind"] == "self"


def test_lens_png_and_decoder_lens_json(tmp_path, tiny_folder):
    folder = tiny_folder("marian")
    png = tmp_path / "l.png"
    args = ["--model", folder, "--text", TEXT, "--engine", "static"]
    assert main(["lens", *args, "--target", "Good morning!", "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = tmp_path / "d.json"
    assert main(["decoder-lens", *args, "--generate", "4", "--beams", "1", "-o", str(out)]) == 0
    layers = json.loads(out.read_text(encoding="utf-8"))["layers"]
    assert [layer["after_layer"] for layer in layers] == [None, 0, 1]  # numbered as the heads
    assert all(len(layer["tokens"]) <= 4 for layer in layers)


def test_an_encoder_is_refused_in_one_line(tmp_path, tiny_folder, capsys):
    code = main(["lens", "--model", tiny_folder("bert"), "--text", TEXT, "--lang", "zh", "-o", str(tmp_path / "x.csv")])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "不预测下一个词元" in err
    assert not (tmp_path / "x.csv").exists()
