"""The atlas poster: each head's square is its block map, pooled by the mean of the blocks a cell holds and drawn on a
log₁₀ scale, masked blocks left empty, one labelled tile per layer and head."""

import numpy as np
import pytest

from attnviz.figures.atlas import SMALLEST, atlas_poster, block_map, poster_tiles
from attnviz.figures.style import FigureStyle
from attnviz.figures.text_fit import NOTE_SHARE, TITLE_END_PX, TITLE_SIZE, TITLE_X, text_width
from attnviz.maps.atlas import AtlasMap
from tests.support.maps import tokens_from


def _amap(layers=2, heads=3, blocks=10, block=2, causal=True) -> AtlasMap:
    rng = np.random.default_rng(0)
    masses = (
        np.tril(rng.random((layers, heads, blocks, blocks))) if causal else rng.random((layers, heads, blocks, blocks))
    )
    masses /= masses.sum(-1, keepdims=True)
    tokens = tokens_from([f"t{i}" for i in range(blocks * block)])
    names = [f"layers.{i}" for i in range(layers)]
    return AtlasMap(
        "self",
        masses.astype(np.float32),
        block,
        tokens,
        tokens,
        names,
        causal,
        np.zeros((layers, heads), np.float32),
        4,
    )


def test_tiles_are_log_means_of_the_pooled_blocks():
    amap = _amap()
    tiles, factor = poster_tiles(amap, cells=4)
    assert factor == 3 and tiles.shape == (2, 3, 4, 4)
    pooled = amap.blocks[1, 2, 3:6, 0:3].astype(np.float64).mean()  # cell (1, 0): blocks 3–5 × 0–2, all seen
    assert tiles[1, 2, 1, 0] == pytest.approx(np.log10(pooled), abs=1e-6)
    seen = amap.blocks[0, 0, 0:3, 0:3][np.tril(np.ones((3, 3), bool))].astype(np.float64).mean()  # masked ones left out
    assert tiles[0, 0, 0, 0] == pytest.approx(np.log10(seen), abs=1e-6)
    assert np.isnan(tiles[0, 0, 0, 3])  # every block of the cell above the diagonal
    assert np.nanmin(tiles) >= np.log10(SMALLEST)


def test_the_poster_lays_out_every_head_once():
    amap = _amap()
    fig = atlas_poster(amap, cells=4, style=FigureStyle(lang="en", model="m"))
    (trace,) = fig.data
    z = np.asarray(trace.z, dtype=float)
    assert z.shape == (2 * 5 - 1, 3 * 5 - 1)  # 4 cells per tile and a gap of 1
    assert list(fig.layout.xaxis.ticktext) == ["H0", "H1", "H2"] and list(fig.layout.yaxis.ticktext) == ["L0", "L1"]
    tiles, _ = poster_tiles(amap, cells=4)
    np.testing.assert_array_equal(z[5:9, 10:14], tiles[1, 2])
    assert "2 layers × 3 heads, 20 tokens" in fig.layout.title.text
    chinese = atlas_poster(amap, cells=4, style=FigureStyle(lang="zh", model="m"))
    assert "个头" in chinese.layout.title.text


def test_one_heads_block_map_is_its_blocks_on_the_same_scale():
    amap = _amap()
    fig = block_map(amap, 1, 2, style=FigureStyle(lang="en"))
    (trace,) = fig.data
    z = np.asarray(trace.z, dtype=float)
    seen = np.tril(np.ones((10, 10), dtype=bool))
    np.testing.assert_allclose(z[seen], np.log10(np.maximum(amap.blocks[1, 2][seen], SMALLEST)), rtol=1e-6)
    assert np.isnan(z[~seen]).all()
    assert list(trace.x) == list(range(0, 20, 2)) and (trace.zmin, trace.zmax) == (np.log10(SMALLEST), 0)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("heads", [1, 3, 14])
def test_the_posters_heading_fits_its_width_in_both_languages(lang, heads):
    fig = atlas_poster(_amap(heads=heads), cells=4, style=FigureStyle(lang=lang, model="a-model-name"))
    first, *notes = fig.layout.title.text.replace("<sup>", "").replace("</sup>", "").split("<br>")
    room = fig.layout.width * (1 - TITLE_X) - TITLE_END_PX
    assert len(notes) >= 2 and all(text_width(note, NOTE_SHARE * TITLE_SIZE) <= room for note in notes)
    said = "".join(notes).replace(" ", "")
    assert "log₁₀" in said and "6×6" in said  # every word kept, only broken into lines (2-token blocks, 3 a cell)
    assert fig.layout.margin.t >= 130 + (len(notes) - 2) * 15  # the plot moved down for each line added
