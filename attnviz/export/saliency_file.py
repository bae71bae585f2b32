"""Saliency scores (`attnviz.measures.saliency_scores.SaliencyScores`) as a file: JSON, or NPZ (the arrays, with the
tokens and provenance as one JSON header), written atomically, read back to the same scores.

    {"schema": "attnviz.saliency", "schema_version": 1, "model": …, "rows": [t, …],
     "explained": [token, …], "log_probabilities": [..], "source_tokens": [..], "source": [[..], ..],
     "prefix_tokens": [..] | null, "prefix": [[..], ..] | null, "provenance": {…, "measure": {…}}}

A token is {"text", "start", "end", "special"[, "unknown"]}, as in a capture file; `source` and `prefix` are
(rows, tokens): row r is explained output token r, a column is an input token.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np

from attnviz.errors import InputError
from attnviz.export.files import write_atomic
from attnviz.measures.saliency_scores import SaliencyScores
from attnviz.provenance import json_safe
from attnviz.types import Token

SCHEMA = "attnviz.saliency"
SCHEMA_VERSION = 1
FORMATS = ("json", "npz")
ARRAYS = ("log_probabilities", "source", "prefix")


def _token(token: Token) -> dict:
    known = {"text": token.text, "start": token.start, "end": token.end, "special": token.special}
    return {**known, "unknown": True} if token.unknown else known


def _header(scores: SaliencyScores) -> dict:
    tokens = {
        "explained": scores.explained,
        "source_tokens": scores.source_tokens,
        "prefix_tokens": scores.prefix_tokens,
    }
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "model": scores.model,
        "rows": list(scores.rows),
        **{name: None if listed is None else [_token(t) for t in listed] for name, listed in tokens.items()},
        "provenance": json_safe(scores.provenance),
    }


def saliency_bytes(scores: SaliencyScores, fmt: str) -> bytes:
    """The scores as a JSON or NPZ file's bytes."""
    header = _header(scores)
    arrays = {name: getattr(scores, name) for name in ARRAYS if getattr(scores, name) is not None}
    if fmt == "json":
        data = {**header, **{name: None for name in ARRAYS}, **{name: a.tolist() for name, a in arrays.items()}}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if fmt != "npz":
        raise InputError("export_format_unknown", where=repr(fmt), formats=", ".join(FORMATS))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, header=np.array(json.dumps(header, ensure_ascii=False)), **arrays)
    return buffer.getvalue()


def save_saliency(scores: SaliencyScores, path: str | os.PathLike, fmt: str, overwrite: bool = False):
    """Write the scores to `path` as `fmt` ("json" or "npz"), atomically; refuses an existing file unless
    `overwrite`. Returns the path written."""
    return write_atomic(path, saliency_bytes(scores, fmt), overwrite=overwrite)


def load_saliency(path: str | os.PathLike) -> SaliencyScores:
    """The scores in a file `save_saliency` wrote (json or npz, told by its first bytes)."""
    raw = Path(path).read_bytes()
    if raw[:2] == b"PK":
        with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
            data = json.loads(str(archive["header"]))
            data.update({name: archive[name] for name in ARRAYS if name in archive.files})
    else:
        data = json.loads(raw.decode("utf-8"))
    if data.get("schema") != SCHEMA:
        raise InputError("saliency_not_a_file", path=str(path))

    def tokens(name):
        listed = data.get(name)
        return None if listed is None else [Token(**item) for item in listed]

    def array(name):
        return None if data.get(name) is None else np.asarray(data[name], dtype=np.float32)

    return SaliencyScores(
        data["model"],
        tuple(data["rows"]),
        tokens("explained"),
        array("log_probabilities"),
        tokens("source_tokens"),
        array("source"),
        tokens("prefix_tokens"),
        array("prefix"),
        provenance=data.get("provenance") or {},
    )
