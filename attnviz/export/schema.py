"""The capture file schema: an AttentionCapture (or one map) to and from JSON, NPZ and CSV, saved atomically.

JSON schema "attnviz.capture", version 1
---------------------------------------
::

    {
      "schema": "attnviz.capture", "version": 1,
      "model": str, "device": str, "source_text": str, "target_text": str | null,
      "meta": {...},                                  # JSON-safe copy of AttentionCapture.meta
      "provenance": {...},                            # what made it (attnviz.provenance): model, revision or weights
                                                      # hash, device, dtype, versions, texts, options, time; optional
      "warnings": [{"key": str, "words": [str], "tokens": [{"text": str, "probability": float}],
                    "suggestion": str, "threshold": float, "message": str}, ...],
                                                      # unknown words, unsure steps (attnviz.text.caveats); written for
                                                      # readers, recomputed from tokens and steps when loaded
      "maps": {
        "<kind>": {                                   # "self" | "encoder" | "decoder" | "cross"
          "kind": str, "causal": bool,
          "shape": [layers, heads, queries, keys],
          "layer_names": [str, ...],                  # module paths, one per layer
          "query_tokens": [{"text": str, "start": int, "end": int, "special": bool}, ...],
          "key_tokens":   [... same ...],             # start/end: character offsets, -1 for special tokens;
                                                      # "unknown": true on a token read as <unk> or byte fallback
                                                      # (written only there; absent means false)
          "weights": [[[[float]]]],                   # nested lists, layers × heads × queries × keys
          "has_values": bool,                         # optional: value norms are stored (older files: absent)
          "value_norms": [[[float]]]                  # optional: ‖f_h(x_j)‖, layers × heads × keys
        }, ...
      },
      "steps": null | [                               # generation only: one entry per generated token
        {"token": {...}, "self_weights": [[[float]]] (layers × heads × keys),
         "cross_weights": [[[float]]] | null (layers × heads × source keys),
         "probability": float | null,                 # what the model gave the token it wrote (absent: null)
         "alternatives": [{"text": str, "probability": float}, ...]}, ...   # the step's top tokens, best first
      ]
    }

Weights are written as the float64 value of each float32, so loading gives back the identical float32 arrays.
NPZ holds the same: a "header" entry (this JSON without weights, as a string) plus float32 arrays
"maps/<kind>/weights", "maps/<kind>/value_norms" (when "has_values"), "steps/<i>/self_weights",
"steps/<i>/cross_weights"; it loads without pickle.
CSV is long format, one row per weight: kind, layer, layer_name, head, query_index, query_token, key_index,
key_token, weight (for spreadsheets; it does not load back; a carriage return in a token is written as ␍).
`save_capture` writes beside it `<name>.header.json`, the header NPZ holds (model, texts, provenance, warnings,
each map's shape and tokens): a CSV file has no place of its own for what made it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import tokenize
import zipfile
import zlib
from pathlib import Path

import numpy as np

from attnviz.errors import InputError, Phrase
from attnviz.export.files import DATA_FORMATS, format_of, refuse_existing, write_atomic
from attnviz.provenance import json_safe
from attnviz.text import caveats
from attnviz.text.tokens import shown
from attnviz.types import AttentionCapture, AttentionMap, GenerationStep, Token

SCHEMA = "attnviz.capture"
SCHEMA_VERSION = 1


def as_capture(
    data: AttentionCapture | AttentionMap, model: str = "", text: str = "", provenance: dict | None = None
) -> AttentionCapture:
    """A capture as it is, or a single map wrapped in one (keyed by its kind), carrying `provenance` (e.g. that of
    the capture the map was drawn from, through `attnviz.provenance.view_provenance`)."""
    if isinstance(data, AttentionCapture):
        return data
    if isinstance(data, AttentionMap):
        return AttentionCapture(model, "", {data.kind: data}, source_text=text, provenance=dict(provenance or {}))
    raise InputError("capture_wrong_type", kind=type(data).__name__)


def _token_dict(token: Token) -> dict:
    known = {"text": token.text, "start": token.start, "end": token.end, "special": token.special}
    return {**known, "unknown": True} if token.unknown else known  # "unknown" only where true: older files match


def _numbers(numbers, kind: str) -> tuple[int, ...] | None:
    """A map's layer or head numbers as the file gives them (None: all of the model's, in order)."""
    if numbers is None:
        return None
    if not isinstance(numbers, list) or not all(type(n) is int and n >= 0 for n in numbers):
        raise InputError("capture_numbers", kind=kind)
    return tuple(numbers)


def _token_from(data: dict) -> Token:
    text, start, end = data["text"], data["start"], data["end"]
    special, unknown = data.get("special", False), data.get("unknown", False)  # files before `unknown` lack it
    flags_ok = isinstance(special, bool) and isinstance(unknown, bool)
    if not isinstance(text, str) or not all(is_int(v) for v in (start, end)) or not flags_ok:
        raise InputError("capture_bad_token", token=str(data)[:80])
    return Token(text, start, end, special, unknown)


def _score_dict(step: GenerationStep) -> dict:
    """A step's score: the probability of the token written and the most probable alternatives."""
    return {
        "probability": step.probability,
        "alternatives": [{"text": text, "probability": probability} for text, probability in step.alternatives],
    }


def _score_from(entry: dict) -> dict:
    """GenerationStep keywords from a stored step's score (none in files written before step scores)."""
    probability = entry.get("probability")
    alternatives = entry.get("alternatives") or []
    valid = probability is None or (isinstance(probability, (int, float)) and not isinstance(probability, bool))
    if not valid or not isinstance(alternatives, list):
        raise InputError("truth_bad_step_score", score=str(entry)[:80])
    pairs = []
    for item in alternatives:
        text, value = item["text"], item["probability"]
        if not isinstance(text, str) or not isinstance(value, (int, float)) or isinstance(value, bool):
            raise InputError("truth_bad_step_score", score=str(item)[:80])
        pairs.append((text, float(value)))
    return {"probability": None if probability is None else float(probability), "alternatives": tuple(pairs)}


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _header(capture: AttentionCapture) -> dict:
    """Everything but the weight arrays."""
    return {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "model": capture.model,
        "device": capture.device,
        "source_text": capture.source_text,
        "target_text": capture.target_text,
        "meta": json_safe(capture.meta),
        "provenance": json_safe(capture.provenance),
        "warnings": caveats.records(capture),  # what the page said about it (attnviz.text.caveats); derived, not read
        "maps": {
            kind: {
                "kind": amap.kind,
                "causal": amap.causal,
                "shape": list(amap.weights.shape),
                "layer_names": list(amap.layer_names),
                "query_tokens": [_token_dict(t) for t in amap.query_tokens],
                "key_tokens": [_token_dict(t) for t in amap.key_tokens],
                "has_values": amap.value_norms is not None,
                "layer_numbers": None if amap.layer_numbers is None else list(amap.layer_numbers),
                "head_numbers": None if amap.head_numbers is None else list(amap.head_numbers),
            }
            for kind, amap in capture.maps.items()
        },
        "steps": None
        if capture.steps is None
        else [
            {"token": _token_dict(step.token), "has_cross": step.cross_weights is not None, **_score_dict(step)}
            for step in capture.steps
        ],
    }


def capture_to_dict(capture: AttentionCapture | AttentionMap) -> dict:
    """The JSON-schema dict of a capture (see the module docstring); a bare map is wrapped first."""
    capture = as_capture(capture)
    data = _header(capture)
    for kind, amap in capture.maps.items():
        data["maps"][kind]["weights"] = amap.weights.tolist()
        if amap.value_norms is not None:
            data["maps"][kind]["value_norms"] = amap.value_norms.tolist()
    if capture.steps is not None:
        data["steps"] = [
            {
                "token": _token_dict(step.token),
                **_score_dict(step),
                "self_weights": np.asarray(step.self_weights, dtype=np.float32).tolist(),
                "cross_weights": None
                if step.cross_weights is None
                else np.asarray(step.cross_weights, dtype=np.float32).tolist(),
            }
            for step in capture.steps
        ]
    return data


_DAMAGED = (
    KeyError,
    IndexError,
    TypeError,
    ValueError,
    AttributeError,
    OverflowError,
    RecursionError,
    EOFError,
    OSError,
    zipfile.BadZipFile,
    zlib.error,
    NotImplementedError,
    RuntimeError,  # zipfile: a compression method it lacks, an encrypted member
    SyntaxError,
    tokenize.TokenError,  # numpy: a damaged .npy header (a Python literal it parses)
)


@contextlib.contextmanager
def reading(what: Phrase):
    """Whatever is malformed inside a file being read becomes one InputError naming it, never a raw KeyError."""
    try:
        yield
    except InputError:
        raise
    except _DAMAGED as error:
        detail = f"{type(error).__name__}: {error}"[:160]
        raise InputError("capture_damaged", what=what, detail=detail) from None


def check_header(data) -> None:
    """The parts every capture file has, checked before any array is read."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise InputError("capture_not_attnviz", schema=SCHEMA)
    if "weights_file" in data:  # a CSV's header (`save_capture`): its weights are in the CSV, which does not load
        raise InputError("capture_is_csv_header", csv=str(data["weights_file"]))
    version = data.get("version")
    if not is_int(version) or version != SCHEMA_VERSION:
        raise InputError("capture_schema_version", version=repr(version), supported=SCHEMA_VERSION)
    maps = data.get("maps")
    if not isinstance(maps, dict) or not maps or not all(isinstance(entry, dict) for entry in maps.values()):
        raise InputError("capture_no_maps")
    if data.get("steps") is not None and not isinstance(data["steps"], list):
        raise InputError("capture_steps_not_a_list")
    for name in ("meta", "provenance"):
        if data.get(name) is not None and not isinstance(data[name], dict):
            raise InputError("capture_part_not_an_object", name=name)
    if data.get("target_text") is not None and not isinstance(data["target_text"], str):
        raise InputError("capture_target_text_not_a_string")


def _weights(values, where: Phrase, ndim: int) -> np.ndarray:
    """Stored weights as float32, refused when they are not `ndim`-dimensional, finite and non-negative."""
    with np.errstate(over="ignore"):  # a value beyond float32 becomes inf, refused just below
        array = np.asarray(values, dtype=np.float32)
    if array.ndim != ndim:
        raise InputError("capture_weights_dimensions", where=where, ndim=ndim, shape=array.shape)
    if not np.isfinite(array).all() or (array < 0).any():
        raise InputError("capture_weights_not_finite", where=where)
    return array


def _build(data: dict, map_weights, step_weights, map_values) -> AttentionCapture:
    """The capture a checked header describes, its arrays read through `map_weights(kind, entry)`,
    `step_weights(index, entry) -> (self, cross | None)` and `map_values(kind, entry)` (the value norms, read only
    when the entry says it has them) — nested lists from JSON, arrays from NPZ."""
    maps = {}
    for kind, entry in data["maps"].items():
        array = _weights(map_weights(kind, entry), Phrase("capture_part.map_weights", kind=kind), 4)
        if list(array.shape) != list(entry["shape"]):
            raise InputError("capture_shape_mismatch", kind=kind, shape=array.shape, header=entry["shape"])
        names = entry["layer_names"]
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise InputError("capture_layer_names", kind=kind)
        maps[kind] = AttentionMap(
            kind=entry["kind"],
            weights=array,
            query_tokens=[_token_from(t) for t in entry["query_tokens"]],
            key_tokens=[_token_from(t) for t in entry["key_tokens"]],
            layer_names=list(names),
            causal=bool(entry.get("causal", False)),
            value_norms=_weights(map_values(kind, entry), Phrase("values_part_map", kind=kind), 3)
            if entry.get("has_values")
            else None,
            layer_numbers=_numbers(entry.get("layer_numbers"), kind),
            head_numbers=_numbers(entry.get("head_numbers"), kind),
        )
    generation = None
    if data.get("steps") is not None:
        generation = []
        for index, entry in enumerate(data["steps"]):
            self_w, cross_w = step_weights(index, entry)
            generation.append(
                GenerationStep(
                    _token_from(entry["token"]),
                    _weights(self_w, Phrase("capture_part.step_self_weights", index=index), 3),
                    None
                    if cross_w is None
                    else _weights(cross_w, Phrase("capture_part.step_cross_weights", index=index), 3),
                    **_score_from(entry),
                )
            )
    return AttentionCapture(
        model=str(data.get("model", "")),
        device=str(data.get("device", "")),
        maps=maps,
        source_text=str(data.get("source_text", "")),
        target_text=data.get("target_text"),
        steps=generation,
        meta=dict(data.get("meta") or {}),
        provenance=dict(data.get("provenance") or {}),
    )


def capture_from_dict(data: dict) -> AttentionCapture:
    """The capture a `capture_to_dict` dict (or a loaded JSON file) describes; structure, shapes and values are
    checked, and anything malformed is an InputError."""
    with reading(Phrase("capture_part.capture")):
        check_header(data)
        return _build(
            data,
            lambda kind, entry: entry["weights"],
            lambda index, entry: (entry["self_weights"], entry.get("cross_weights")),
            lambda kind, entry: entry["value_norms"],
        )


def capture_to_json(capture: AttentionCapture | AttentionMap) -> str:
    return json.dumps(capture_to_dict(capture), ensure_ascii=False, separators=(",", ":"))


def capture_to_npz(capture: AttentionCapture | AttentionMap) -> bytes:
    capture = as_capture(capture)
    arrays = {"header": np.array(header_json(capture))}
    for kind, amap in capture.maps.items():
        arrays[f"maps/{kind}/weights"] = amap.weights
        if amap.value_norms is not None:
            arrays[f"maps/{kind}/value_norms"] = amap.value_norms
    for index, step in enumerate(capture.steps or []):
        arrays[f"steps/{index}/self_weights"] = np.asarray(step.self_weights, dtype=np.float32)
        if step.cross_weights is not None:
            arrays[f"steps/{index}/cross_weights"] = np.asarray(step.cross_weights, dtype=np.float32)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def capture_from_npz(source: bytes | str | os.PathLike) -> AttentionCapture:
    """The capture in an NPZ written by `capture_to_npz` (bytes or a path); malformed archives are InputErrors."""
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    with reading(Phrase("capture_part.npz_capture")):
        try:
            archive = np.load(stream, allow_pickle=False)
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
            raise InputError("capture_not_npz", problem=str(error)) from None
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise InputError("capture_single_npy")
        with archive:
            data = json.loads(str(archive["header"]))
            check_header(data)
            return _build(
                data,
                lambda kind, entry: archive[f"maps/{kind}/weights"],
                lambda index, entry: (
                    archive[f"steps/{index}/self_weights"],
                    archive[f"steps/{index}/cross_weights"] if entry.get("has_cross") else None,
                ),
                lambda kind, entry: archive[f"maps/{kind}/value_norms"],
            )


CSV_COLUMNS = ("kind", "layer", "layer_name", "head", "query_index", "query_token", "key_index", "key_token", "weight")


def _csv_cell(text: str) -> str:
    """Python's csv quotes a cell holding "\n" but not a bare "\r", which readers take as a row end: show it as ␍."""
    return text.replace("\r", "\u240d")


def header_json(capture: AttentionCapture | AttentionMap, weights_file: str | None = None) -> str:
    """Everything of a capture but its weights, as JSON: NPZ's "header" entry, and (naming the CSV that holds the
    weights, `weights_file`) the file beside a CSV."""
    header = _header(as_capture(capture))
    return json.dumps(header if weights_file is None else {**header, "weights_file": weights_file}, ensure_ascii=False)


def csv_header_path(path: str | os.PathLike) -> Path:
    """Where `save_capture` puts a CSV's header: `weights.csv` → `weights.header.json`."""
    return Path(path).with_suffix(".header.json")


def capture_to_csv(capture: AttentionCapture | AttentionMap) -> str:
    """Long-format CSV, one row per weight of every map (columns: `CSV_COLUMNS`); rows named as the figures name
    them (`AttentionMap.row_tokens`: a decoder's self-attention row by the decoder's input at that position)."""
    capture = as_capture(capture)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for kind, amap in capture.maps.items():
        queries = [_csv_cell(shown(t)) for t in amap.row_tokens]  # an unknown token marked "?" (tokens.shown)
        keys = [_csv_cell(shown(t)) for t in amap.key_tokens]
        for layer, name in enumerate(map(_csv_cell, amap.layer_names)):
            for head in range(amap.num_heads):
                block = amap.weights[layer, head]  # (queries, keys)
                writer.writerows(
                    (kind, layer, name, head, q, queries[q], k, keys[k], repr(float(block[q, k])))
                    for q in range(block.shape[0])
                    for k in range(block.shape[1])
                )
    return buffer.getvalue()


def capture_bytes(capture: AttentionCapture | AttentionMap, fmt: str) -> bytes:
    """A capture (or one map) as JSON, NPZ or CSV bytes."""
    fmt = fmt.lower()
    if fmt == "json":
        try:
            return capture_to_json(capture).encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates in a text: \u-escaped, which JSON reads back exactly
            return json.dumps(capture_to_dict(capture), separators=(",", ":")).encode("ascii")
    if fmt == "npz":
        return capture_to_npz(capture)
    if fmt == "csv":  # for reading, not loading back: a lone surrogate is written as its \u escape
        return capture_to_csv(capture).encode("utf-8", "backslashreplace")
    raise InputError("capture_data_format", fmt=fmt, formats=", ".join(DATA_FORMATS))


def save_capture(
    capture: AttentionCapture | AttentionMap,
    path: str | os.PathLike,
    fmt: str | None = None,
    *,
    overwrite: bool = False,
) -> Path:
    """Write a capture (or one map) as JSON, NPZ or CSV (format from `fmt` or the suffix), atomically; a CSV with
    its header beside it (`csv_header_path`: provenance, texts, tokens — what the JSON holds but the weights)."""
    fmt = format_of(path, fmt, DATA_FORMATS)
    if fmt != "csv":
        return write_atomic(path, capture_bytes(capture, fmt), overwrite=overwrite)
    header = csv_header_path(path)
    refuse_existing(header, overwrite)  # before the CSV: neither is written when the header could not be
    saved = write_atomic(path, capture_bytes(capture, fmt), overwrite=overwrite)
    text = header_json(capture, weights_file=Path(path).name)
    write_atomic(header, text.encode("utf-8", "backslashreplace"), overwrite=overwrite)
    return saved


def load_capture(path: str | os.PathLike) -> AttentionCapture:
    """Read a capture written by `save_capture` as JSON or NPZ (by suffix)."""
    source = Path(path)
    if not source.is_file():
        raise InputError("capture_file_missing", path=str(source))
    fmt = format_of(source, None, ("json", "npz"))
    if fmt == "npz":
        return capture_from_npz(source)
    try:
        data = json.loads(source.read_text(encoding="utf-8-sig"))  # -sig: a byte-order mark is not an error
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError("capture_file_bad_json", path=str(source), problem=str(error)) from None
    except RecursionError:
        raise InputError("capture_file_too_deep", path=str(source)) from None
    return capture_from_dict(data)
