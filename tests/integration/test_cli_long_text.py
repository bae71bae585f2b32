"""A long text on the command line is captured by the app's rule (`attnviz.run.capture_kind`): on demand, so that an
export of one head computes that head alone, and draws what a whole capture of the same text draws."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz import export
from attnviz.attention.ondemand import LazyCapture
from attnviz.cli import batch
from attnviz.cli.commands.export import figure
from attnviz.cli.inputs import examples
from attnviz.cli.options import view_options
from attnviz.cli.parser import parse
from attnviz.model.load import load_model
from attnviz.run import RunRequest, run_recorded
from attnviz.view import selection
from tests.support.cli import run_cli as run

# About 100 tokens for the tiny models (which read 128), made a long text by ATTNVIZ_LAZY_FROM_TOKENS (`long_text`).
TEXT = "the cat sat on the mat and looked at the dog " * 5
ONE_HEAD = {  # the two ways the command line names one head
    "aggregation": ["--aggregation", "head", "--layer", "1", "--head", "2"],
    "lists": ["--layer", "1", "--head", "2"],
}


def arguments(folder: str, kind: str, view: str, heads: list[str], out: str = "unused.svg"):
    return parse(["export", "--model", folder, "--text", TEXT, "--kind", kind, "--view", view, *heads, "-o", out])


@pytest.fixture(autouse=True)
def long_text(monkeypatch):
    """Texts of 64 tokens or more are captured on demand, as the app's rule says of longer ones by default."""
    monkeypatch.setenv("ATTNVIZ_LAZY_FROM_TOKENS", "64")


@pytest.fixture
def built(monkeypatch):
    """Every map an on-demand capture computes during the test: (kind, layers, heads) of each call."""
    calls, real = [], LazyCapture.map

    def recorded(self, kind, layers=None, heads=None, queries=None, keys=None):
        calls.append((kind, layers, heads))
        return real(self, kind, layers, heads, queries, keys)

    monkeypatch.setattr(LazyCapture, "map", recorded)
    return calls


@pytest.mark.parametrize("named", ONE_HEAD)
@pytest.mark.parametrize(("family", "kind"), [("gpt2", "self"), ("bert", "self"), ("marian", "encoder")])
@pytest.mark.parametrize("view", ["heatmap", "lines"])
def test_one_head_of_a_long_text_is_that_head_alone_and_what_a_whole_capture_draws(
    tiny_folder, built, family, kind, view, named
):
    folder = tiny_folder(family)
    args = arguments(folder, kind, view, ONE_HEAD[named])
    handle = load_model(folder, "cpu")
    result = batch.capture(handle, examples(args)[0], args)
    assert not result.is_complete  # the app's rule: a long text is captured on demand
    drawn = figure(result, args, handle)
    assert built == [(kind, [1], [2])]  # one head computed, no other
    whole = run_recorded(handle, RunRequest(TEXT, capture="full"))
    expected = figure(whole, args, handle)
    assert drawn.layout.title.text == expected.layout.title.text  # named by the model's layer and head
    for ours, theirs in zip(drawn.data, expected.data, strict=True):
        for axis in ("x", "y", "z"):
            if getattr(theirs, axis, None) is not None:
                got, want = np.asarray(getattr(ours, axis)), np.asarray(getattr(theirs, axis))
                if want.dtype.kind == "f":
                    np.testing.assert_allclose(got.astype(float), want.astype(float), atol=1e-6)
                else:
                    assert got.tolist() == want.tolist()


def test_a_view_of_every_head_of_a_long_text_reads_every_head(tiny_folder, built):
    folder = tiny_folder("gpt2")
    args = arguments(folder, "self", "heatmap", ["--aggregation", "all"])  # the mean of every head
    handle = load_model(folder, "cpu")
    result = batch.capture(handle, examples(args)[0], args)
    whole, _ = selection.view_capture(result, view_options(args, result))
    assert whole.is_complete and built == [("self", None, None)]
    assert np.allclose(whole["self"].weights, run_recorded(handle, RunRequest(TEXT))["self"].weights, atol=1e-6)


def test_the_file_of_one_head_of_a_long_text_is_named_by_it_and_records_its_capture(tiny_folder, tmp_path, capsys):
    folder = tiny_folder("gpt2")
    heads = ONE_HEAD["aggregation"]
    code, out, err = run(
        capsys, "export", "--model", folder, "--text", TEXT, *heads, "-o", str(tmp_path), "--format", "svg"
    )
    assert code == 0, err
    written = tmp_path / out.strip().splitlines()[-1].split("/")[-1]
    assert "L1H2" in written.name
    stamped = export.read_stamp(written.read_bytes(), "svg")
    assert stamped["source_text"] == TEXT and stamped["options"]["mode"] == "lazy"  # the on-demand capture's record
    assert (stamped["view"]["options"]["layer"], stamped["view"]["options"]["head"]) == (1, 2)  # as asked


def test_the_capture_command_writes_every_weight_of_a_long_text(tiny_folder, tmp_path, capsys):
    folder = tiny_folder("gpt2")
    target = tmp_path / "long.npz"
    code, _, _ = run(capsys, "capture", "--model", folder, "--text", TEXT, "-o", str(target))
    assert code == 0
    with np.load(target) as saved:
        held = [name for name in saved.files if "weights" in name]
        assert held and saved[held[0]].ndim == 4
        assert np.allclose(saved[held[0]], run_recorded(load_model(folder, "cpu"), RunRequest(TEXT))["self"].weights)


@pytest.mark.parametrize(("lang", "said"), [("en", "does not continue it"), ("zh", "不再续写")])
def test_a_long_prompt_the_model_reads_instead_of_continuing_is_said(tiny_folder, tmp_path, capsys, lang, said):
    folder = tiny_folder("gpt2")
    argv = ["--model", folder, "--text", TEXT, "--generate", "4", "--lang", lang, "-o", str(tmp_path / "a.svg")]
    code, _, err = run(capsys, "export", *argv)
    assert code == 0 and said in err  # --generate asked for, and a warning line says why nothing was written
