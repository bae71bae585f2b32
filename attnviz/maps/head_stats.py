"""Head statistics and roles from captured weights: entropy, distance, sink mass and the role scores (previous
token, induction, diagonal, positional), whole (`head_statistics`) or tile by tile for maps too large to hold
(`statistic_sums` / `statistic_means`); the roles read from them (`head_roles`) and their tables.

Numpy and plain Python; no torch."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attnviz.maps.analysis import SQUARE_KINDS, require_content
from attnviz.types import AttentionMap, Token

# Head statistics, in table column order. What each one means is said in the string catalogue (`stat_<name>`,
# `stat_help_<name>`), in English and 中文.
STATISTICS = ("entropy", "distance", "sink", "previous_token", "induction", "diagonal", "positional")
# The relative offsets (query − key) the "positional" score looks at: a head that keeps a fixed offset whatever the
# content (previous token, two back, itself …) scores high. Offsets further back are rare in real heads.
POSITIONAL_OFFSETS = 8


def sink_keys(key_tokens: Sequence[Token]) -> np.ndarray:
    """Boolean (keys,): the keys the "sink" statistic counts, special tokens and the first token."""
    sinks = np.array([t.special for t in key_tokens], dtype=bool)
    if len(sinks):
        sinks[0] = True
    return sinks


def induction_keys(tokens: Sequence[Token]) -> np.ndarray:
    """Boolean (queries, keys) over one sequence: key k is the token that followed an earlier copy of query q's token
    (k = j + 1 with tokens[j] the same text as tokens[q], j + 1 < q). An induction head (Olsson et al., 2022) puts
    its weight there: "last time this came, that came next". Special tokens never count as copies."""
    n = len(tokens)
    targets = np.zeros((n, n), dtype=bool)
    seen: dict[str, list[int]] = {}
    for q, token in enumerate(tokens):
        if token.special:
            continue
        earlier = [j + 1 for j in seen.get(token.text, []) if j + 1 < q]
        targets[q, earlier] = True
        seen.setdefault(token.text, []).append(q)
    return targets


def statistic_sums(
    weights: np.ndarray,
    first_row: int,
    total_queries: int,
    sinks: np.ndarray,
    square: bool,
    induction: np.ndarray | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The head statistics of some query rows, as sums: per statistic of `STATISTICS` that applies, (sum over the
    rows that count, number of rows that count), each of the leading shape of `weights` ("positional" has one more
    trailing axis, one per offset of `POSITIONAL_OFFSETS`).

    `weights` (..., rows, keys) holds query rows first_row … first_row + rows − 1 of maps with `total_queries` rows;
    `sinks` marks the sink keys (`sink_keys`); `square`: self-attention with queries = keys, the only maps with a
    distance, a previous token, an induction target and offsets; `induction`: the rows' part of `induction_keys`
    (rows, keys), or None to leave that score out. Rows with no attention (hidden to 0) do not count. The statistic
    of a whole map is sum / count over any split of its rows into tiles (`statistic_means`), so maps too large to
    hold are streamed.
    """
    w = weights.astype(np.float64)
    rows, keys = w.shape[-2:]
    q_pos = np.arange(first_row, first_row + rows)  # global query positions of these rows
    live = w.sum(axis=-1) > 0  # (..., rows)

    def sums(per_row: np.ndarray, use_rows: np.ndarray | None = None):
        use = live if use_rows is None else live & use_rows
        return np.where(use, per_row, 0.0).sum(axis=-1), use.sum(axis=-1)

    plogp = np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0)
    result = {"entropy": sums(-plogp.sum(axis=-1)), "sink": sums(w[..., sinks].sum(axis=-1))}
    if square:
        distance = np.abs(q_pos[:, None] - np.arange(keys)[None, :])  # (rows, keys)
        result["distance"] = sums((w * distance).sum(axis=-1))
        result["positional"] = _offset_sums(w, q_pos, live, POSITIONAL_OFFSETS)
        result["previous_token"] = tuple(part[..., 1] for part in result["positional"])  # offset 1: key q − 1
        if induction is not None:
            result["induction"] = sums((w * induction).sum(axis=-1), induction.any(axis=-1))
    # Proportional diagonal: for a square map it is the identity; for cross-attention it is the monotone alignment.
    if total_queries > 1:
        diagonal_keys = np.rint(q_pos * (keys - 1) / (total_queries - 1)).astype(int)
    else:
        diagonal_keys = np.zeros(rows, dtype=int)
    result["diagonal"] = sums(w[..., np.arange(rows), diagonal_keys])
    return result


def _offset_sums(w: np.ndarray, q_pos: np.ndarray, live: np.ndarray, offsets: int) -> tuple[np.ndarray, np.ndarray]:
    """Per offset d < `offsets`: the weight of each live row on key q − d, summed over the live rows that have that
    key (rows too close to the start have none). Returns (sums, counts), each (..., offsets); all offsets in one
    gather, since a map's statistics are computed per pair of a corpus."""
    keys = q_pos[None, :] - np.arange(offsets)[:, None]  # (offsets, rows): key q − d of each row
    has_key = keys >= 0
    at_offset = w[..., np.arange(len(q_pos))[None, :], np.maximum(keys, 0)]  # (..., offsets, rows)
    use = live[..., None, :] & has_key  # (..., offsets, rows)
    return np.where(use, at_offset, 0.0).sum(axis=-1), use.sum(axis=-1)


def statistic_means(sums: dict[str, tuple[np.ndarray, np.ndarray]], shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    """Each statistic in `STATISTICS` as float32 `shape`: sum / count from `statistic_sums` (added up over tiles),
    NaN for the statistics `sums` does not hold (they do not apply to the map). "positional" is the mean weight at
    the head's strongest offset."""
    means = {}
    for name in STATISTICS:
        if name not in sums:
            means[name] = np.full(shape, np.nan, dtype=np.float32)
            continue
        total, count = sums[name]
        mean = total / np.maximum(count, 1)
        if name == "induction":  # no token came twice: the score does not apply, rather than 0
            mean = np.where(count > 0, mean, np.nan)
        means[name] = (mean.max(axis=-1) if name == "positional" else mean).astype(np.float32)
    return means


def statistic_inputs(amap_kind: str, query_tokens: Sequence[Token], key_tokens: Sequence[Token]) -> dict:
    """What `statistic_sums` needs to know about a map besides its weights: {"total_queries", "sinks", "square",
    "induction"} (induction None when the map is not square self-attention)."""
    square = amap_kind in SQUARE_KINDS and len(query_tokens) == len(key_tokens)
    return {
        "total_queries": len(query_tokens),
        "sinks": sink_keys(key_tokens),
        "square": square,
        "induction": induction_keys(query_tokens) if square else None,
    }


def head_statistics(amap: AttentionMap) -> dict[str, np.ndarray]:
    """Each statistic in `STATISTICS` as a float32 (layers, heads) array; NaN where it does not apply.

    Averages are over query rows that carry any attention (rows hidden to 0 do not count): `statistic_sums` over
    the whole map as one tile.
    """
    require_content(amap)
    sums = statistic_sums(amap.weights, 0, **statistic_inputs(amap.kind, amap.query_tokens, amap.key_tokens))
    return statistic_means(sums, amap.weights.shape[:2])


def head_statistics_table(amap: AttentionMap) -> list[dict]:
    """One row per (layer, head): {"layer", "head", "layer_name", <each statistic>}; sortable by any column.

    A list of plain dicts: `st.dataframe`, `pandas.DataFrame` and `csv.DictWriter` all take it as it is.
    """
    return statistics_table(head_statistics(amap), amap.layer_names)


# The roles a head can be said to play, each by its score (`STATISTICS`), and the score from which it is said: a
# head plays the role of its highest such score at or above ROLE_FROM, else none. One threshold for every role, said
# on the page beside the table, so a reader can check each role against its score.
ROLES = ("previous_token", "induction", "diagonal", "positional", "sink")
ROLE_FROM = 0.5


def head_roles(stats: dict[str, np.ndarray], threshold: float = ROLE_FROM) -> np.ndarray:
    """(layers, heads) the role each head plays (one of `ROLES`, or "" for none): its highest role score, when that
    is at least `threshold`. A role whose score was not computed (induction needs a repeated token) is not named."""
    scored = [
        (role, np.nan_to_num(np.asarray(stats[role], dtype=np.float64), nan=-1.0)) for role in ROLES if role in stats
    ]
    layers, heads = next(iter(stats.values())).shape
    roles = np.full((layers, heads), "", dtype=object)
    if not scored:
        return roles
    scores = np.stack([values for _, values in scored])  # (roles, layers, heads)
    best = scores.argmax(axis=0)
    strong = scores.max(axis=0) >= threshold
    names = np.array([role for role, _ in scored], dtype=object)
    roles[strong] = names[best[strong]]
    return roles


def statistics_table(stats: dict[str, np.ndarray], layer_names: Sequence[str]) -> list[dict]:
    """The rows of `head_statistics_table` from statistics already computed (`head_statistics` or streamed ones)."""
    layers, heads = next(iter(stats.values())).shape
    roles = head_roles(stats)
    return [
        {"layer": layer, "head": head, "layer_name": layer_names[layer], "role": str(roles[layer, head])}
        | {name: float(values[layer, head]) for name, values in stats.items()}
        for layer in range(layers)
        for head in range(heads)
    ]
