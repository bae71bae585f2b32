"""A faithfulness scoreboard (`attnviz.maps.faithfulness_scores.Scoreboard`) as a file, with its verdict and, for a
translation, the detached-translation flag.

- CSV: one row per baseline and order (`Scoreboard.table`: each measure, then the random floor), UTF-8; what the
  numbers mean and where they came from goes beside it in `NAME.header.json`.
- JSON: the header and the table in one object, with every curve and every relevance:

    {"schema": "attnviz.faithfulness", "schema_version": 1, "model", "metric", "explained", "rows",
     "tokens": [token, …], "removable": [bool, …], "full": f(x), "verdict": {"ranking", "margins", "rho", "decides",
     "reason", "sentence"}, "table": [row, …], "relevance": {measure: [..]}, "orders": {order: [..]},
     "curves": {baseline: {order: {"deletion": [..], "insertion": [..]}}}, "replacements": {baseline: [text, …]},
     "unavailable": {measure: reason}, "detached": {…} | null, "definitions": {…}, "provenance": {…}}
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np

from attnviz import i18n
from attnviz.errors import InputError
from attnviz.maps.detachment import Detachment, detachment_lines
from attnviz.maps.faithfulness_scores import BINS, Scoreboard
from attnviz.maps.faithfulness_verdict import DECIDES_FROM, Verdict, verdict_sentence
from attnviz.provenance import json_safe

SCHEMA = "attnviz.faithfulness"
SCHEMA_VERSION = 1
FORMATS = ("csv", "json")
DEFINITIONS = {
    "comprehensiveness": "ERASER AOPC (DeYoung et al., ACL 2020): mean over bins of f(x) - f(x without the top k), "
    "k = ceil(b n) for b in 1, 5, 10, 20, 50 %",
    "sufficiency": "ERASER AOPC: mean over the same bins of f(x) - f(only the top k kept)",
    "deletion_area": "Petsiuk et al., BMVC 2018: trapezoid area of f as the order's tokens are removed, over the "
    "fraction removed",
    "insertion_area": "Petsiuk et al.: trapezoid area of f as the order's tokens are kept, starting from none",
    "faithfulness": "comprehensiveness - sufficiency (what measures are ranked by)",
    "margin": "faithfulness minus the random orders' mean (the floor)",
    "verdict": f"decides when Spearman's rho of the margins under the two baselines >= {DECIDES_FROM} and the best "
    "measure's margin exceeds the random orders' spread under both",
}


def _token(token) -> dict:
    known = {"text": token.text, "start": token.start, "end": token.end, "special": token.special}
    return {**known, "unknown": True} if token.unknown else known


def scores_header(board: Scoreboard, found: Verdict, detached: Detachment | None = None, lang: str = "en") -> dict:
    """What a scores file's numbers mean and where they came from (JSON-safe)."""
    flag = None
    if detached is not None:
        line, definition = detachment_lines(detached, lang)
        flag = {
            "source_share": detached.source_share,
            "log_probability": detached.log_probability,
            "score": detached.score,
            "flagged": detached.flagged,
            "line": line,
            "definition": definition,
        }
    return json_safe(
        {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "model": board.model,
            "metric": board.metric,
            "explained": board.explained,
            "rows": list(board.rows),
            "tokens": [_token(token) for token in board.tokens],
            "removable": board.removable.tolist(),
            "full": board.full,
            "bins": list(BINS),
            "verdict": {
                "ranking": found.ranking,
                "margins": found.margins,
                "spreads": found.spreads,
                "rho": found.rho if np.isfinite(found.rho) else None,
                "decides": found.decides,
                "reason": found.reason,
                "sentence": verdict_sentence(found, lang),
            },
            "replacements": board.replacement_texts,
            "unavailable": {
                measure: i18n.t(f"error.{key}", lang) if i18n.has(f"error.{key}", lang) else key
                for measure, key in board.unavailable.items()
            },
            "detached": flag,
            "definitions": DEFINITIONS,
            "provenance": board.provenance,
        }
    )


def scores_bytes(board: Scoreboard, found: Verdict, fmt: str, detached=None, lang: str = "en") -> bytes:
    """The scores as a CSV table (its header goes beside it: `scores_header`) or one JSON object."""
    table = board.table()
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=[*table[0].keys(), "random_orders"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(table)
        return buffer.getvalue().encode("utf-8")
    if fmt != "json":
        raise InputError("export_format_unknown", where=repr(fmt), formats=", ".join(FORMATS))
    arrays = {
        "table": table,
        "relevance": {name: values.tolist() for name, values in board.relevance.items()},
        "orders": {name: order.tolist() for name, order in board.orders.items()},
        "curves": {
            baseline: {
                name: {"deletion": c.deletion.tolist(), "insertion": c.insertion.tolist()} for name, c in by.items()
            }
            for baseline, by in board.curves.items()
        },
    }
    whole = {**scores_header(board, found, detached, lang), **json_safe(arrays)}
    return json.dumps(whole, ensure_ascii=False, indent=1).encode("utf-8")
