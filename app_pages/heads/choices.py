"""The Heads page's choices, without Streamlit: which statistics have values, which head a table row is, and where
a chosen head opens."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from attnviz.maps import head_stats
from attnviz.view import viewing


def defined_statistics(values: Mapping[str, np.ndarray]) -> list[str]:
    """The statistics with a value for some head (`head_stats.head_statistics`, or a lazy capture's streamed ones)."""
    return [name for name in head_stats.STATISTICS if np.isfinite(values[name]).any()]


def head_at(row: int, num_heads: int) -> tuple[int, int]:
    """(layer, head) of a row of `head_stats.statistics_table` (rows run layer by layer)."""
    return divmod(int(row), num_heads)


def page_for_head(kind: str) -> tuple[str, dict]:
    """Where a head of a `kind` map opens ("translate" or "self_attention") and the view changes that show exactly that head."""
    if kind == "cross":
        return "translate", {"cross_aggregation": "head"}
    if kind in viewing.STACKS:
        return "self_attention", {"self_aggregation": "head", "stack": kind}
    return "self_attention", {"self_aggregation": "head"}
