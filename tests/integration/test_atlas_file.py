"""A saved atlas reopens without the model: the same block maps, statistics, tokens and provenance, and — when the
file keeps the queries, keys and LSE (their size said in it) — the same exact windows."""

import json

import numpy as np
import pytest

from attnviz.atlas import AtlasCapture, capture_atlas
from attnviz.errors import InputError
from attnviz.export.atlas_file import read_atlas, save_atlas
from attnviz.maps import atlas_stats
from attnviz.model.load import load_model

TEXT = "The cat sat on the mat, and the dog looked at the cat. 早上好！我喜欢学习。Attention lets every token look."


@pytest.fixture(scope="module")
def bart_atlas(tiny_folder):
    handle = load_model(tiny_folder("bart"), "cpu")
    return capture_atlas(handle, TEXT, "Good morning! 我喜欢 studying.", block=3)


def test_a_saved_atlas_reopens_with_its_windows(bart_atlas, tmp_path):
    path = save_atlas(tmp_path / "a.npz", bart_atlas.atlas, bart_atlas.window_inputs())
    atlas, windows = read_atlas(path)
    reopened = AtlasCapture.of_saved(atlas, windows)
    assert atlas.kinds == ["encoder", "decoder", "cross"]
    assert atlas.provenance["routes"] == bart_atlas.atlas.provenance["routes"]
    assert atlas.source_text == TEXT
    for kind in atlas.kinds:
        original = bart_atlas[kind]
        np.testing.assert_array_equal(atlas[kind].blocks, original.blocks)
        np.testing.assert_array_equal(atlas[kind].sink_mass, original.sink_mass)
        assert atlas[kind].query_tokens == original.query_tokens and atlas[kind].key_tokens == original.key_tokens
        assert atlas[kind].layer_names == original.layer_names and atlas[kind].causal == original.causal
        np.testing.assert_array_equal(
            reopened.window(kind, 1, 2, rows=(0, 5), keys=(1, 6)), bart_atlas.window(kind, 1, 2, (0, 5), (1, 6))
        )
        np.testing.assert_array_equal(reopened.row(kind, 0, 3, -1), bart_atlas.row(kind, 0, 3, -1))
        np.testing.assert_array_equal(atlas_stats.pattern_labels(atlas[kind]), bart_atlas.patterns(kind))


def test_the_file_says_the_windows_size_and_keeps_statistics_for_any_reader(bart_atlas, tmp_path):
    path = save_atlas(tmp_path / "a.npz", bart_atlas.atlas, bart_atlas.window_inputs())
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        query = data["decoder.query"]
        local = data["encoder.stat.local"]
    assert meta["format"] == "attnviz-atlas/1"
    inputs = bart_atlas.window_inputs()
    assert meta["maps"]["decoder"]["windows"]["bytes"] == sum(layer.nbytes for layer in inputs["decoder"])
    assert query.shape == (2, 4, len(bart_atlas["decoder"].query_tokens), 8)
    np.testing.assert_array_equal(local, bart_atlas.statistics("encoder")["local"])


def test_an_atlas_saved_without_windows_reopens_without_them(bart_atlas, tmp_path):
    path = save_atlas(tmp_path / "a.npz", bart_atlas.atlas)
    atlas, windows = read_atlas(path)
    assert windows is None
    reopened = AtlasCapture.of_saved(atlas, windows)
    np.testing.assert_array_equal(reopened["cross"].blocks, bart_atlas["cross"].blocks)
    with pytest.raises(InputError, match="kept no queries"):
        reopened.window("cross", 0, 0)


def test_a_file_that_is_not_an_atlas_is_refused(tmp_path):
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    with pytest.raises(InputError, match="not an atlas file"):
        read_atlas(other)
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="cannot be read as an atlas"):
        read_atlas(broken)
