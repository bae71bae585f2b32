"""Row tiles: how much attention on-demand capture computes at once, which bounds the memory of every computation."""

from __future__ import annotations

TILE_CELLS = 2**22  # cells of attention computed at once (16 MB in fp32)


def tile_rows(cells_per_row: int, multiple: int = 1) -> int:
    """Query rows per tile so that a tile holds about TILE_CELLS cells; a multiple of `multiple` (pooling blocks)."""
    rows = max(1, TILE_CELLS // max(cells_per_row, 1))
    return max(multiple, rows // multiple * multiple)


def spans(start: int, stop: int, step: int):
    """(first, last) of each tile of `step` rows from `start` to `stop`."""
    for first in range(start, stop, step):
        yield first, min(first + step, stop)
