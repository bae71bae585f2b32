"""`attnviz atlas`: the same numbers as the library, written as an .npz that reopens (with its windows) or as a poster
(png, pdf), a progress bar on stderr, and bad input said in one line with exit code 2."""

import numpy as np
import pytest

from attnviz.atlas import AtlasCapture, capture_atlas
from attnviz.export.atlas_file import read_atlas
from attnviz.model.load import load_model
from tests.support.cli import one_line_error, run_cli

TEXT = (
    "The cat sat on the mat, and the dog looked at the cat. 早上好！我喜欢学习。Attention lets every token look.\n" * 2
)


@pytest.fixture
def long_text(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def test_an_npz_holds_the_librarys_numbers_and_reopens_its_windows(tiny_folder, long_text, tmp_path, capsys):
    folder = tiny_folder("llama")
    out = tmp_path / "atlas.npz"
    code, said, err = run_cli(
        capsys, "atlas", "--model", folder, "--input", str(long_text), "-o", str(out), "--block", "4"
    )
    assert code == 0, err
    expected = capture_atlas(load_model(folder, "cpu"), TEXT, block=4)
    tokens = len(expected["self"].query_tokens)
    assert f"2 layers × 4 heads over {tokens:,} tokens, blocks of 4 → {out}" in said
    assert "kept for windows" in said and "layer" in err  # the size of the windows, and the progress bar
    atlas, windows = read_atlas(out)
    np.testing.assert_array_equal(atlas["self"].blocks, expected["self"].blocks)
    reopened = AtlasCapture.of_saved(atlas, windows)
    np.testing.assert_array_equal(reopened.row("self", 1, 2, -1), expected.row("self", 1, 2, -1))
    assert atlas.provenance["options"]["block"] == 4 and atlas.provenance["source_text"] == TEXT


@pytest.mark.parametrize("suffix", ["png", "pdf"])
def test_a_poster_of_every_head(tiny_folder, long_text, tmp_path, capsys, suffix):
    out = tmp_path / f"atlas.{suffix}"
    argv = ["atlas", "-m", tiny_folder("bart"), "-i", str(long_text), "--target", "Good morning!", "--kind", "cross"]
    code, said, err = run_cli(capsys, *argv, "-o", str(out), "--block", "4", "--engine", "static", "--quiet")
    assert code == 0, err
    assert err == ""  # --quiet: no bar
    assert out.read_bytes().startswith(b"\x89PNG" if suffix == "png" else b"%PDF")
    assert "2 layers × 4 heads" in said and "kept for windows" not in said


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--input", "missing.txt", "-o", "a.npz"], "does not exist"),
        (["--text", "Hello there.", "-o", "a.txt"], "npz, png, svg, pdf"),
        (["--text", "Hello there.", "-o", "a.npz", "--kind", "cross"], "cross"),
        (["--text", "Hello there.", "-o", "a.npz", "--block", "0"], "whole number of tokens"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tiny_folder, tmp_path, capsys, monkeypatch, argv, said):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "atlas", "--model", tiny_folder("gpt2"), *argv)
    assert code == 2
    assert said in one_line_error(err)
    assert not (tmp_path / "a.npz").exists()


def test_an_existing_file_is_kept_unless_forced(tiny_folder, tmp_path, capsys):
    out = tmp_path / "a.npz"
    out.write_bytes(b"mine")
    code, _, err = run_cli(capsys, "atlas", "-m", tiny_folder("gpt2"), "-t", "Hello there.", "-o", str(out))
    assert code == 2 and "exists" in one_line_error(err) and out.read_bytes() == b"mine"


def test_errors_in_chinese_with_lang_zh(tiny_folder, tmp_path, capsys):
    code, _, err = run_cli(
        capsys, "atlas", "-m", tiny_folder("gpt2"), "-i", str(tmp_path / "none.txt"), "-o", "a.npz", "--lang", "zh"
    )
    assert code == 2 and "不存在" in one_line_error(err)
