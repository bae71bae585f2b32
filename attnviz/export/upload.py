"""Capture files from strangers: the bytes of an uploaded JSON or NPZ capture, checked before anything is built.

`read_capture_upload(data)` gives an AttentionCapture, or raises an error whose message says what is wrong:
the file is too large (ResourceLimitError, before it is parsed), is neither JSON nor NPZ, is cut short or damaged,
is another schema or version, has a header that disagrees with itself (tokens or layer names that do not match a
map's shape), declares more tokens, layers, heads or steps than `UploadLimits` allow or arrays that
would unpack to more than they allow (checked from the headers, before any array is read), holds pickled objects
(NPZ is read with `allow_pickle=False`, and an object array is refused by its header), has shapes that disagree
with its tokens, NaN or negative weights, or attention rows that do not sum to 1. A file `save_capture` wrote within
the limits always reads back.
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
from dataclasses import dataclass

import numpy as np

from attnviz.errors import InputError, Phrase, ResourceLimitError
from attnviz.export import schema
from attnviz.types import MAP_KINDS, AttentionCapture

MIB = 2**20


@dataclass(frozen=True)
class UploadLimits:
    """What an uploaded capture may hold. The defaults take a 12-layer, 16-head map of 512 × 512 tokens as NPZ."""

    max_bytes: int = 64 * MIB  # the file as uploaded
    max_unpacked_bytes: int = 1024 * MIB  # the arrays an NPZ unpacks to (compressed zeros shrink a thousandfold)
    max_tokens: int = 4096  # per token list
    max_layers: int = 256
    max_heads: int = 256
    max_steps: int = 4096  # generated tokens
    row_tolerance: float = 1e-2  # |row sum - 1|; half-precision models round each weight to 2⁻⁹ of itself


DEFAULT_LIMITS = UploadLimits()


def _mib(size: int) -> str:
    return f"{size / MIB:.1f}"


def read_capture_upload(
    data: bytes, limits: UploadLimits = DEFAULT_LIMITS, name: str | None = None
) -> AttentionCapture:
    """The capture in uploaded bytes (JSON or NPZ, told apart by their first bytes), checked as the module
    docstring says; every refusal is an InputError or ResourceLimitError with a sentence in English and 中文.
    `name`: the file's name, when known: a ".npz" file that is no ZIP archive is said to be "not an NPZ archive"
    rather than read as broken JSON."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InputError("capture_not_bytes", kind=type(data).__name__)
    data = bytes(data)
    if len(data) > limits.max_bytes:
        raise ResourceLimitError("capture_too_large", size=_mib(len(data)), limit=_mib(limits.max_bytes))
    if not data.strip():
        raise InputError("capture_empty")
    if data.startswith(b"\x93NUMPY"):
        raise InputError("capture_single_npy")
    is_zip = data.startswith(b"PK")
    if not is_zip and name is not None and name.lower().endswith(".npz"):
        raise InputError("capture_named_npz")
    capture = _read_npz(data, limits) if is_zip else _read_json(data, limits)
    check_rows(capture, limits.row_tolerance)
    return capture


# What a JSON file cut inside its last token ends with: a literal's start ("tru", "nu") or a number's ("1e", "-0.").
UNFINISHED_TOKEN = re.compile(r"t(r(ue?)?)?|f(a(l(se?)?)?)?|n(u(ll?)?)?|-?\d*\.?\d*([eE][+-]?\d*)?")


def _cut_short(text: str, error: json.JSONDecodeError) -> bool:
    """Whether a JSON parse error is the file ending early: the parser failed at the very end, inside a string that
    never closes (JSON strings hold no raw line breaks, so it ran to the end), or in an unfinished last token.
    Text that is not JSON from its start ("{not json", "hello") is not "cut short": it is not JSON."""
    tail = text[error.pos :].rstrip()
    return not tail or error.msg.startswith("Unterminated string") or UNFINISHED_TOKEN.fullmatch(tail) is not None


def _read_json(data: bytes, limits: UploadLimits) -> AttentionCapture:
    try:
        text = data.decode("utf-8-sig")  # -sig: a byte-order mark is not an error
    except UnicodeDecodeError as error:
        raise InputError("capture_not_utf8", position=error.start) from None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as error:
        if _cut_short(text, error):
            raise InputError("capture_truncated", format="JSON") from None
        raise InputError("capture_bad_json", line=error.lineno, column=error.colno, problem=error.msg) from None
    except RecursionError:
        raise InputError("capture_too_deep") from None
    check_header_limits(parsed, limits)
    return schema.capture_from_dict(parsed)


def _read_npz(data: bytes, limits: UploadLimits) -> AttentionCapture:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError) as error:
        raise InputError("capture_bad_npz", problem=str(error)[:120]) from None
    with archive:
        members = archive.infolist()
        unpacked = sum(member.file_size for member in members)  # zipfile never reads past a member's declared size
        if unpacked > limits.max_unpacked_bytes:
            raise ResourceLimitError(
                "capture_unpacked_too_large", size=_mib(unpacked), limit=_mib(limits.max_unpacked_bytes)
            )
        if "header.npy" not in archive.namelist():
            raise InputError("capture_npz_no_header")
        with schema.reading(Phrase("capture_part.npz_capture")):
            for member in members:
                if member.filename.endswith(".npy"):
                    _check_npy_member(archive, member)
            header = np.load(io.BytesIO(archive.read("header.npy")), allow_pickle=False)
            parsed = json.loads(str(header))
    check_header_limits(parsed, limits)
    return schema.capture_from_npz(data)


def _check_npy_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> None:
    """An NPZ entry's .npy header, read before its data: no objects (that would need pickle), numbers or text only,
    and no more elements than the entry's bytes can hold (numpy allocates the declared shape before reading)."""
    name = member.filename.removesuffix(".npy")
    with archive.open(member) as stream:
        version = np.lib.format.read_magic(stream)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _fortran, dtype = read_header(stream)
    if dtype.hasobject:
        raise InputError("capture_npz_pickle", entry=name)
    wanted = "U" if name == "header" else "f"
    if dtype.kind != wanted:
        raise InputError("capture_npz_dtype", entry=name, dtype=str(dtype))
    if math.prod(shape) * dtype.itemsize > member.file_size:
        raise InputError("capture_truncated", format="NPZ")


def _count(value) -> int:
    return len(value) if isinstance(value, list) else 0


def check_header_limits(data, limits: UploadLimits = DEFAULT_LIMITS) -> None:
    """The header's schema (`schema.check_header`) and every size it declares, against `limits`, before any weight
    array is built."""
    schema.check_header(data)
    for kind, entry in data["maps"].items():
        shape = entry.get("shape")
        if not isinstance(shape, list) or len(shape) != 4 or not all(schema.is_int(n) and n >= 0 for n in shape):
            raise InputError("capture_bad_shape", kind=kind, shape=str(shape)[:60])
        layers, heads, queries, keys = shape
        tokens = max(queries, keys, _count(entry.get("query_tokens")), _count(entry.get("key_tokens")))
        if layers > limits.max_layers:
            raise ResourceLimitError("capture_too_many_layers", kind=kind, count=layers, limit=limits.max_layers)
        if heads > limits.max_heads:
            raise ResourceLimitError("capture_too_many_heads", kind=kind, count=heads, limit=limits.max_heads)
        if tokens > limits.max_tokens:  # the token lists are read too: a short shape may hide long ones
            raise ResourceLimitError("capture_too_many_tokens", kind=kind, count=tokens, limit=limits.max_tokens)
        if 4 * math.prod(shape) > limits.max_unpacked_bytes:
            raise ResourceLimitError(
                "capture_unpacked_too_large", size=_mib(4 * math.prod(shape)), limit=_mib(limits.max_unpacked_bytes)
            )
        check_map_entry(kind, entry)
    steps = _count(data.get("steps"))
    if steps > limits.max_steps:
        raise ResourceLimitError("capture_too_many_steps", count=steps, limit=limits.max_steps)


def check_map_entry(kind: str, entry: dict) -> None:
    """A map's header agrees with itself: a known kind, one token per query row and per key column, one name per
    layer (what AttentionMap refuses too, said here in each language, before the weights are read)."""
    if entry.get("kind") not in MAP_KINDS:
        raise InputError(
            "capture_unknown_kind", kind=kind, value=str(entry.get("kind"))[:40], choices=", ".join(MAP_KINDS)
        )
    layers, _heads, queries, keys = entry["shape"]
    query_tokens, key_tokens = entry.get("query_tokens"), entry.get("key_tokens")
    if (
        not isinstance(query_tokens, list)
        or not isinstance(key_tokens, list)
        or (len(query_tokens), len(key_tokens)) != (queries, keys)
    ):
        raise InputError(
            "capture_tokens_mismatch",
            kind=kind,
            shape=str(entry["shape"]),
            queries=_count(query_tokens),
            keys=_count(key_tokens),
        )
    names = entry.get("layer_names")
    if isinstance(names, list) and len(names) != layers:
        raise InputError("capture_layer_names_mismatch", kind=kind, layers=layers, names=len(names))


def _first_bad_row(sums: np.ndarray, tolerance: float):
    """The index and sum of the first row whose sum is not 1 within `tolerance`, or None."""
    bad = np.argwhere(~(np.abs(sums - 1.0) <= tolerance))
    return None if not len(bad) else (tuple(int(i) for i in bad[0]), float(sums[tuple(bad[0])]))


def check_rows(capture: AttentionCapture, tolerance: float = DEFAULT_LIMITS.row_tolerance) -> None:
    """Every attention row of every map and generation step sums to 1 (within `tolerance`): a file whose rows do not
    is not a capture (a map with tokens hidden and not renormalised, or weights edited by hand)."""
    for kind, amap in capture.maps.items():
        found = _first_bad_row(amap.weights.sum(axis=-1, dtype=np.float64), tolerance)  # (layers, heads, queries)
        if found:
            (layer, head, query), total = found
            raise InputError(
                "capture_rows_not_normalised",
                kind=kind,
                layer=layer,
                head=head,
                query=query,
                total=f"{total:.4f}",
                tolerance=tolerance,
            )
    for index, step in enumerate(capture.steps or []):
        for kind, weights in (("self", step.self_weights), ("cross", step.cross_weights)):
            if weights is None:
                continue
            found = _first_bad_row(np.asarray(weights).sum(axis=-1, dtype=np.float64), tolerance)  # (layers, heads)
            if found:
                (layer, head), total = found
                raise InputError(
                    "capture_step_rows_not_normalised",
                    step=index,
                    kind=kind,
                    layer=layer,
                    head=head,
                    total=f"{total:.4f}",
                    tolerance=tolerance,
                )
