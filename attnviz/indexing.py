"""Indices along a named axis of a map (layer, head, query, key): checked, normalised, and said in words when wrong.

The data (`attnviz.types`) and what is computed from it (`attnviz.maps.analysis`) both check indices this one way, so an
out-of-range head reads the same sentence wherever it was given.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attnviz.errors import InputError, Phrase


def is_index(value) -> bool:
    """An integer (Python or numpy), but not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def axis_phrase(what: str, size: int | None = None, index: int | None = None) -> Phrase:
    """An axis ("layer", "head", "key", "query", "query row") as a sentence names it: the word, `size` of them
    ("4 layers"), or one of them by `index` ("Layer 9")."""
    word = what.replace(" ", "_")
    if index is not None:
        return Phrase(f"analysis.axis_item.{word}", index=index)
    if size is not None:
        return Phrase(f"analysis.axis_count.{word}", count=size)
    return Phrase(f"analysis.axis.{word}")


def valid_range(size: int) -> Phrase:
    return Phrase("analysis.valid_range", last=size - 1, size=size)  # "0–3, or −4 to −1 counting from the end"


def indices(selection: int | Sequence[int] | None, size: int, what: str) -> list[int]:
    """Normalise an index, a list of indices or None (= all) to a list of non-negative indices below `size`; an
    InputError naming the valid range otherwise. `what` names the axis in that message ("layer", "head")."""
    if selection is None:
        return list(range(size))
    if is_index(selection):
        items = [selection]
    elif isinstance(selection, (str, bytes)) or not isinstance(selection, (Sequence, np.ndarray, range, set)):
        raise InputError("index_not_integer_or_list", what=axis_phrase(what), selection=selection)
    else:
        items = list(np.asarray(selection).ravel()) if isinstance(selection, np.ndarray) else list(selection)
    if not items:
        raise InputError(
            "index_none_chosen", what=axis_phrase(what), count=axis_phrase(what, size), valid=valid_range(size)
        )
    result = []
    for item in items:
        if not is_index(item):
            raise InputError("index_not_integer", what=axis_phrase(what), item=item)
        if not -size <= item < size:
            raise InputError(
                "index_missing",
                item=axis_phrase(what, index=item),
                count=axis_phrase(what, size),
                valid=valid_range(size),
            )
        result.append(int(item) % size)
    return result
