"""`python -m attnviz head-effects`: the file holds what the library computes, one row per stack, layer and head;
bad input is one line on stderr and exit code 2."""

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy import stats

from attnviz.export.head_effects import COLUMNS
from attnviz.measures.head_effects import head_effects
from attnviz.model.load import load_model
from tests.support.cli import one_line_error, run_cli

TEXT, TARGET = "早上好！", "Good morning!"


def test_csv_holds_the_librarys_effects(capsys, tmp_path, tiny_folder):
    folder = tiny_folder("marian")
    output = tmp_path / "effects.csv"
    code, out, err = run_cli(capsys, "head-effects", "-m", folder, "-t", TEXT, "--target", TARGET, "-o", str(output))
    assert code == 0, err
    assert "Spearman" in out
    table = pd.read_csv(output)
    exact = head_effects(load_model(folder), TEXT, TARGET)
    assert list(table.columns[: len(COLUMNS)]) == list(COLUMNS)
    assert len(table) == sum(total.size for total in exact.total.values())
    for stack, total in exact.total.items():
        rows = table[table["stack"] == stack].sort_values(["layer", "head"])
        np.testing.assert_allclose(rows["effect"].to_numpy().reshape(total.shape), total, atol=1e-9)
        per_token = rows.iloc[:, len(COLUMNS) :].to_numpy().reshape(exact.per_token[stack].shape)
        np.testing.assert_allclose(per_token, exact.per_token[stack], atol=1e-9)
        assert np.isfinite(rows["estimate"]).all()
    header = json.loads((tmp_path / "effects.header.json").read_text(encoding="utf-8"))
    assert header["metric"] == "log-prob" and header["table_file"] == "effects.csv"
    assert [t["text"] for t in header["target_tokens"]] == [t.text for t in exact.target_tokens]
    for stack in exact.total:  # each stack's own ρ, recorded and printed beside the pooled one
        rows = table[table["stack"] == stack]
        own = stats.spearmanr(rows["effect"], rows["estimate"]).statistic
        assert header["spearman_per_stack"][stack] == pytest.approx(own, abs=1e-9)
        assert f"{stack} {own:.3f}" in out
    code, _, err = run_cli(capsys, "head-effects", "-m", folder, "-t", TEXT, "--target", TARGET, "-o", str(output))
    assert code == 2 and str(output) in one_line_error(err)  # kept unless --force


def test_parquet_of_an_encoder_carries_its_header(capsys, tmp_path, tiny_folder):
    output = tmp_path / "effects.parquet"
    code, _, err = run_cli(
        capsys, "head-effects", "-m", tiny_folder("bert"), "-t", TEXT, "--no-estimate", "-o", str(output)
    )
    assert code == 0, err
    file = pq.read_table(output)
    header = json.loads(file.schema.metadata[b"attnviz"])
    assert header["metric"] == "cosine" and header["estimate"] is None
    table = file.to_pandas()
    assert table["estimate"].isna().all() and (table["effect"] >= -1e-9).all()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["-t", TEXT, "-o", "effects.txt"], ".parquet"),
        (["-t", TEXT, "--target", TARGET, "-o", "effects.csv"], "no target side"),
    ],
)
def test_bad_input_is_one_line(capsys, tmp_path, tiny_folder, monkeypatch, argv, said):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "head-effects", "-m", tiny_folder("bert"), *argv)
    assert code == 2 and said in one_line_error(err)
