"""Head effects as a table and a file: one row per stack, layer and head, with the exact effect, the estimate and the
per-token effects (`attnviz.measures.head_effects`, computed left of the attention line; read here as plain arrays).

CSV: the table, with `NAME.header.json` beside it (provenance, tokens, what each column means); Parquet: the same
table, the header in the file's schema metadata under b"attnviz"."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from attnviz.provenance import json_safe

FORMATS = ("csv", "parquet")
COLUMNS = ("stack", "layer", "head", "layer_name", "effect", "estimate")  # then one column per target token


def token_column(index: int, text: str) -> str:
    """The per-token column of target token `index`: "t3 morning" (the index keeps repeated tokens apart)."""
    return f"t{index} {text}"


def effects_table(exact, estimate=None) -> pd.DataFrame:
    """One row per stack, layer, head of `exact` (a `HeadEffects`): its effect, `estimate`'s (NaN when none) and the
    per-token effects, one column per target token (`token_column`)."""
    rows = []
    for stack, total in exact.total.items():  # (layers, heads)
        guess = None if estimate is None else estimate.total.get(stack)
        for layer in range(total.shape[0]):
            for head in range(total.shape[1]):
                row = [stack, layer, head, exact.layer_names[stack][layer], float(total[layer, head])]
                row.append(float("nan") if guess is None else float(guess[layer, head]))
                per_token = exact.per_token[stack][layer, head] if exact.per_token else np.array([])
                rows.append(row + [float(value) for value in per_token])
    tokens = [token_column(i, token.text) for i, token in enumerate(exact.target_tokens)] if exact.per_token else []
    return pd.DataFrame(rows, columns=[*COLUMNS, *tokens])


def effects_header(exact, estimate=None, rho: float | None = None, stacks: dict[str, float] | None = None) -> dict:
    """What the table's numbers mean and where they came from: metric, methods, tokens, provenance, Spearman ρ
    over every head pooled (`spearman`) and over each stack's heads (`spearman_per_stack`)."""

    def tokens(items):
        return [{"text": t.text, "start": t.start, "end": t.end, "special": t.special} for t in items]

    return json_safe(
        {
            "measure": "head-effects",
            "metric": exact.metric,
            "effect": exact.method,
            "estimate": None if estimate is None else estimate.method,
            "spearman": rho,
            "spearman_per_stack": stacks,
            "source_tokens": tokens(exact.source_tokens),
            "target_tokens": tokens(exact.target_tokens),
            "provenance": exact.provenance,
        }
    )


def effects_bytes(table: pd.DataFrame, header: dict, fmt: str) -> bytes:
    """The table as CSV (UTF-8; its header goes beside it) or Parquet (the header in its schema metadata)."""
    if fmt == "csv":
        return table.to_csv(index=False).encode("utf-8")
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    metadata = {**(arrow.schema.metadata or {}), b"attnviz": json.dumps(header, ensure_ascii=False).encode("utf-8")}
    buffer = io.BytesIO()
    pq.write_table(arrow.replace_schema_metadata(metadata), buffer)
    return buffer.getvalue()
