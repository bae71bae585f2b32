"""The contributions command's value-zeroing and saliency methods (`attnviz.measuring.MEASURES`): each
writes the library's result to a file that reads back to the same numbers, tokens and provenance; what a model cannot
do is an InputError (the command line's one line and exit code 2)."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz import export
from attnviz.cli.commands import contributions
from attnviz.cli.request import Request
from attnviz.errors import InputError
from attnviz.export.saliency_file import load_saliency
from attnviz.measures.saliency import saliency
from attnviz.measures.value_zeroing import value_zeroing
from attnviz.model.load import load_model

TEXT, TARGET = "早上好！", "Good morning!"


def _request(folder, output, method, text=TEXT, target=TARGET) -> Request:
    return Request(
        command="contributions", model=folder, text=text, target=target, output=output, method=method, quiet=True
    )


@pytest.mark.parametrize("fmt", ["npz", "json"])
def test_value_zeroing_file_reads_back_as_the_measure(tiny_folder, tmp_path, fmt, capsys):
    folder = tiny_folder("marian")
    path = tmp_path / f"vz.{fmt}"
    assert contributions.run(_request(folder, path, "value-zeroing")) == 0
    assert capsys.readouterr().out.strip() == str(path)
    read = export.load_capture(path)
    expected = value_zeroing(load_model(folder), TEXT, TARGET)
    assert read.kinds == expected.kinds
    for kind in expected.kinds:
        np.testing.assert_array_equal(read[kind].weights, expected[kind].weights)
        assert read[kind].key_tokens == expected[kind].key_tokens
        assert read[kind].layer_names == expected[kind].layer_names
    assert read.provenance["measure"]["name"] == read.meta["measure"] == "value-zeroing"


@pytest.mark.parametrize("fmt", ["npz", "json"])
def test_saliency_file_reads_back_as_the_measure(tiny_folder, tmp_path, fmt):
    folder = tiny_folder("t5")
    assert contributions.run(_request(folder, tmp_path, "saliency")) == 0  # a folder: the file is named for it
    (path,) = tmp_path.iterdir()
    assert path.name.startswith("saliency_") and path.suffix == ".npz"
    assert contributions.run(_request(folder, tmp_path / f"s.{fmt}", "saliency")) == 0
    read = load_saliency(tmp_path / f"s.{fmt}")
    expected = saliency(load_model(folder), TEXT, TARGET)
    assert read.rows == expected.rows and read.explained == expected.explained
    assert read.source_tokens == expected.source_tokens and read.prefix_tokens == expected.prefix_tokens
    np.testing.assert_allclose(read.source, expected.source, rtol=1e-6)
    np.testing.assert_allclose(read.prefix, expected.prefix, rtol=1e-6)
    assert read.provenance["measure"]["name"] == "saliency"


def test_one_kind_of_map(tiny_folder, tmp_path):
    folder = tiny_folder("bart")
    request = Request(
        command="contributions",
        model=folder,
        text=TEXT,
        target=TARGET,
        output=tmp_path / "c.npz",
        kind="cross",
        method="value-zeroing",
    )
    assert contributions.run(request) == 0
    assert export.load_capture(tmp_path / "c.npz").kinds == ["cross"]


def test_what_a_model_cannot_do_is_said(tiny_folder, tmp_path):
    with pytest.raises(InputError) as raised:
        contributions.run(_request(tiny_folder("bert"), tmp_path / "s.json", "saliency", target=None))
    assert raised.value.key == "saliency_no_output"
    assert not (tmp_path / "s.json").exists()
