"""`attnviz export --measure` draws a figure of any token × token measure, computed by the same function the app's
Measure choice calls (`attnviz.measuring.measured`), titled by the measure, recorded in the file; and the one
`contributions` command writes every --method."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz import export
from attnviz.cli.commands.export import figure as cli_figure
from attnviz.cli.parser import parse
from attnviz.measures.alti import alti
from attnviz.measures.value_zeroing import value_zeroing
from attnviz.measuring import measured
from attnviz.model.load import load_model
from tests.support.cli import one_line_error, run_cli

TEXT, TARGET = "早上好！", "Good morning!"
EVERY_TOKEN = ("--no-words", "--no-hide-special")  # every token, as the measures have them


def direct(measure: str, handle, target):
    """The measure through its own module, not through `measured`."""
    if measure == "value-zeroing":
        return value_zeroing(handle, TEXT, target)
    return alti(handle, TEXT, target, method=measure)


@pytest.mark.parametrize(
    "family, kind, measure",
    [
        ("marian", "cross", "alti"),
        ("marian", "encoder", "alti-rollout"),
        ("marian", "cross", "value-zeroing"),
        ("gpt2", "self", "value-zeroing"),
        ("bert", "self", "alti"),
    ],
)
def test_export_draws_the_measures_numbers_titled_by_the_measure(tiny_folder, family, kind, measure):
    folder = tiny_folder(family)
    handle = load_model(folder, "cpu")
    target = TARGET if family == "marian" else None
    pair = ["--target", TARGET] if target else []
    args = parse(
        ["export", "--model", folder, "--text", TEXT, *pair, "--measure", measure, "--kind", kind, "--layer", "1"]
        + [*EVERY_TOKEN, "-o", "x.html"]
    )
    result = measured(handle, TEXT, target, measure=measure)
    figure = cli_figure(result, args, handle)
    expected = direct(measure, handle, target)[kind].weights[1, 0]  # (queries, keys)
    drawn = np.nan_to_num(np.asarray(figure.data[0].z, dtype=float))
    np.testing.assert_allclose(drawn, expected, atol=1e-6)
    title = figure.layout.title.text
    assert {"alti": "ALTI contributions", "alti-rollout": "ALTI rollout", "value-zeroing": "value zeroing"}[
        measure
    ] in title
    assert "head 0" not in title


def test_export_writes_a_file_that_records_its_measure(capsys, tmp_path, tiny_folder):
    folder = tiny_folder("marian")
    path = tmp_path / "vz.html"
    argv = ["export", "--model", folder, "--text", TEXT, "--target", TARGET, "--measure", "value-zeroing"]
    code, out, err = run_cli(capsys, *argv, "-o", str(path))
    assert code == 0, err
    assert out.strip() == str(path)
    stamped = export.read_stamp(path.read_bytes(), "html")
    assert stamped["view"]["options"]["measure"] == "value-zeroing"
    assert stamped["measure"]["name"] == "value-zeroing"  # the capture's provenance names the paper too
    assert "value zeroing" in path.read_text(encoding="utf-8")


def test_a_measure_with_alignment_heads_is_one_line_and_exit_2(capsys, tmp_path, tiny_folder):
    folder = tiny_folder("marian")
    argv = ["export", "--model", folder, "--text", TEXT, "--target", TARGET, "--measure", "alti"]
    code, _, err = run_cli(capsys, *argv, "--aggregation", "alignment", "--lang", "zh", "-o", str(tmp_path / "a.png"))
    assert code == 2 and "对齐头" in one_line_error(err)


@pytest.mark.parametrize("method", ["alti", "alti-rollout", "value-zeroing", "saliency"])
def test_one_contributions_command_writes_every_method(capsys, tmp_path, tiny_folder, method):
    folder = tiny_folder("marian")
    path = tmp_path / f"{method}.npz"
    code, out, err = run_cli(
        capsys,
        "contributions",
        "--model",
        folder,
        "--text",
        TEXT,
        "--target",
        TARGET,
        "--method",
        method,
        "-o",
        str(path),
    )
    assert code == 0, err
    assert out.strip() == str(path) and path.stat().st_size > 0
