"""`python -m attnviz faithfulness`: the file holds what the library computes (scores, verdict, the detached flag of
a translation), a figure carries its provenance, and bad input is one line on stderr and exit code 2."""

import json

import numpy as np
import pandas as pd

from attnviz.export.stamp import read_stamp
from attnviz.maps.faithfulness_verdict import verdict, verdict_sentence
from attnviz.measures.faithfulness import faithfulness
from attnviz.model.load import load_model
from tests.support.cli import one_line_error, run_cli

TEXT, TARGET = "早上好！Good morning!", "Good morning, 我喜欢学习。"


def test_csv_holds_the_librarys_scores_and_the_header_its_verdict(capsys, tmp_path, tiny_folder):
    folder = tiny_folder("marian")
    output = tmp_path / "scores.csv"
    argv = ["faithfulness", "-m", folder, "-t", TEXT, "--target", TARGET, "--row", "1", "-o", str(output)]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    board = faithfulness(load_model(folder), TEXT, TARGET, row=1)
    found = verdict(board)
    assert verdict_sentence(found) in out and "Source share" in out
    table = pd.read_csv(output)
    expected = pd.DataFrame(board.table())
    assert list(table["measure"]) == list(expected["measure"])
    np.testing.assert_allclose(table["faithfulness"], expected["faithfulness"], atol=1e-9)
    header = json.loads((tmp_path / "scores.header.json").read_text(encoding="utf-8"))
    assert header["verdict"]["ranking"] == found.ranking and header["table_file"] == "scores.csv"
    assert header["rows"] == [1] and header["detached"]["source_share"] > 0
    assert header["provenance"]["measure"]["name"] == "faithfulness"
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and str(output) in one_line_error(err)  # kept unless --force


def test_json_of_a_decoder_and_a_figure_with_provenance(capsys, tmp_path, tiny_folder):
    folder = tiny_folder("gpt2")
    output = tmp_path / "scores.json"
    code, _, err = run_cli(capsys, "faithfulness", "-m", folder, "-t", TEXT, "--measures", "alti", "-o", str(output))
    assert code == 0, err
    scores = json.loads(output.read_text(encoding="utf-8"))
    assert scores["schema"] == "attnviz.faithfulness" and scores["detached"] is None
    assert set(scores["relevance"]) == {"weights", "alti"}  # the weights are always scored
    assert len(scores["curves"]["mask"]["weights"]["deletion"]) == sum(scores["removable"]) + 1
    figure = tmp_path / "scores.svg"
    code, out, err = run_cli(capsys, "faithfulness", "-m", folder, "-t", TEXT, "--lang", "zh", "-o", str(figure))
    assert code == 0, err
    stamp = read_stamp(figure.read_bytes(), "svg")
    assert stamp["view"]["name"] == "faithfulness" and stamp["measure"]["name"] == "faithfulness"
    assert "ranking" in stamp["view"]["options"]


def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, tiny_folder):
    folder = tiny_folder("bert")
    cases = [
        (["--measures", "attention-flow", "-o", str(tmp_path / "a.csv")], "attention-flow"),
        (["--row", "2", "-o", str(tmp_path / "b.csv")], "row"),
        (["-o", str(tmp_path / "c.txt")], ".csv"),
        (["--random-orders", "0", "-o", str(tmp_path / "d.csv")], "random orders"),
    ]
    for extra, said in cases:
        code, _, err = run_cli(capsys, "faithfulness", "-m", folder, "-t", TEXT, *extra)
        assert code == 2 and said in one_line_error(err)
    code, _, err = run_cli(
        capsys, "faithfulness", "-m", folder, "-t", TEXT, "--row", "2", "--lang", "zh", "-o", "x.csv"
    )
    assert code == 2 and "不是翻译模型" in one_line_error(err)
