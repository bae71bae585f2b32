"""Where a capture, and every file made from it, came from: one JSON-safe dict.

`build_provenance(handle, source_text, target_text, options)` is called where a capture is made (it reads the loaded
model once); the capture keeps it (`AttentionCapture.provenance`), its JSON/NPZ file stores it, and
`view_provenance(capture.provenance, view, options)` adds what a figure shows, for the figure's file metadata
(`attnviz.export.figure_bytes(..., provenance=...)`). `with_provenance(capture, handle, options)` is the one call the
app and the command line make on every capture they compute: its provenance, and in its `meta` the model's trained
alignment heads (`alignment_heads_of` reads them back), which a figure of the file needs once the model is not there.
Fields::

    {"provenance_version": 1,
     "model": {"name": "demo-zh-en" | hub id | the folder's own name, "source": "catalogue" | "hub" | "folder" |
               "object", "revision": hub commit | None, "weights_sha256": hex | None, "weights_bytes": int,
               "class": "MarianMTModel", "kind": "encoder-decoder", "layers": int, "heads": int},
     "device": "cpu" | "cuda:0" | "npu:0" …, "dtype": "float32" …,
     "versions": {"attnviz", "transformers", "torch", "numpy", "python"},
     "source_text": str, "target_text": str | None, "options": {...}, "captured_at": ISO 8601 UTC,
     # a model placed over several devices (attnviz.model.placement): each attention layer's place and the device it ran on
     "placement": {"model.layers.5.self_attn": {"placed": "disk", "ran": "cpu"}, …},
     # added by view_provenance:
     "view": {"name": "alignment", "options": {...}}, "exported_at": ISO 8601 UTC}

The weights hash is SHA-256 over every tensor of the model's state dict (name, dtype, shape, bytes, in name order)
as it sits in memory, so it names what the capture computed with, whatever folder or hub cache it came from (the
same weights in another dtype hash differently; "dtype" says which). It is computed once per loaded model; models
above `MAX_HASH_BYTES` are not hashed (hashing runs at about 1 GB/s) and their "weights_sha256" is None. No local
path is recorded (`model.catalogue.model_name`): where a folder lies is private, and means nothing on another
machine; its name and the weights' hash say which model it was.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import time
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import numpy as np

from attnviz.memo import first_weight, once_per
from attnviz.model.catalogue import catalogue_folders
from attnviz.version import __version__

PROVENANCE_VERSION = 1
MAX_HASH_BYTES = 4 * 2**30
ALIGNMENT_HEADS = "alignment_heads"  # AttentionCapture.meta key: the model's [[layer, head], ...] trained to align


def timestamp(now: datetime | None = None) -> str:
    """The time as ISO 8601 in UTC, to the second: "2025-05-01T09:30:00Z"."""
    if now is None:  # every capture stamps itself: write each second once
        return _utc_second(int(time.time()))
    return _iso_utc(now)


@functools.lru_cache(maxsize=1)
def _utc_second(second: int) -> str:
    return _iso_utc(datetime.fromtimestamp(second, timezone.utc))


def _iso_utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def versions() -> dict:
    """The versions of what computed and drew the attention."""
    return dict(_installed_versions())


@functools.cache  # read once: every capture records them, and looking up installed packages takes milliseconds
def _installed_versions() -> tuple[tuple[str, str | None], ...]:
    return (
        ("attnviz", __version__),
        ("transformers", _version("transformers")),
        ("torch", _version("torch")),
        ("numpy", _version("numpy")),
        ("python", platform.python_version()),
    )


# Instruction sets that choose torch's CPU kernels (and so the order of a float sum's terms)
_KERNEL_INSTRUCTIONS = ("avx", "avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile")
X86_MACHINES = ("x86_64", "amd64", "i386", "i686")
ATEN_CAPABILITIES = {"avx512": "AVX512", "avx2": "AVX2", "default": "DEFAULT"}  # ATEN_CPU_CAPABILITY's values
AVX512_FLAGS = frozenset({"avx512vl", "avx512bw", "avx512dq", "fma"})  # what torch's AVX512 kernels need
AVX2_FLAGS = frozenset({"avx2", "fma"})


@functools.cache  # read once: the machine does not change while the process runs
def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo ("model name", "vendor_id", "flags"); empty off Linux."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                name, _, value = line.partition(":")
                if not name.strip() and fields:  # a blank line ends the first processor
                    break
                fields.setdefault(name.strip(), value.strip())
    except OSError:  # not Linux: the platform's own names
        pass
    return fields


def machine() -> dict:
    """What beyond the software decides a computation's last bits: the CPU and its kernel instruction sets (read
    from /proc/cpuinfo where there is one; torch is not imported)."""
    fields = _cpuinfo()
    flags = set(fields.get("flags", "").split())
    return {
        "cpu": fields.get("model name") or platform.processor() or platform.machine(),
        "instructions": [name for name in _KERNEL_INSTRUCTIONS if name in flags],
    }


def cpu_vendor() -> str:
    """The CPU's maker as the CPU says it ("GenuineIntel", "AuthenticAMD"), or the platform's machine name: a BLAS
    library may choose other kernels on another maker's CPU of the same instruction sets."""
    return _cpuinfo().get("vendor_id") or platform.machine()


def kernel_capability(environ: Mapping[str, str] | None = None) -> str | None:
    """The CPU kernels torch's ATen dispatches its vectorised operations to — "AVX512", "AVX2" or "DEFAULT" — as
    torch chooses them (aten/src/ATen/native/DispatchStub.cpp, `compute_cpu_capability`), read without importing
    torch: ATEN_CPU_CAPABILITY when it names one, else AVX512 on a CPU with avx512vl, avx512bw, avx512dq and fma,
    AVX2 on one with avx2 and fma, else DEFAULT. None where it cannot be told here (not an x86 CPU, or no
    /proc/cpuinfo). It, not the list of instruction sets a CPU has, decides the order of torch's float sums: an
    AVX-512 CPU running AVX2 kernels computes an AVX2 CPU's bits (tests/integration/test_first_view.py)."""
    environ = os.environ if environ is None else environ
    asked = environ.get("ATEN_CPU_CAPABILITY")
    if asked in ATEN_CAPABILITIES:
        return ATEN_CAPABILITIES[asked]
    flags = set(_cpuinfo().get("flags", "").split())
    if platform.machine().lower() not in X86_MACHINES or not flags:
        return None
    if AVX512_FLAGS <= flags:
        return "AVX512"
    return "AVX2" if AVX2_FLAGS <= flags else "DEFAULT"


def kernel_capabilities() -> list[str]:
    """The capabilities torch can run on this CPU (ATEN_CPU_CAPABILITY may ask for any of them), lowest first."""
    best = kernel_capability({})
    order = ["DEFAULT", "AVX2", "AVX512"]
    return order[: order.index(best) + 1] if best in order else []


def weights_sha256(model, max_bytes: int = MAX_HASH_BYTES) -> tuple[str | None, int]:
    """(SHA-256 hex of the model's weights, their size in bytes); None for the hash when they are larger than
    `max_bytes` or cannot be read (weights offloaded to the meta device). Cached per loaded model."""
    return once_per(model, ("sha256", max_bytes), lambda: _weights_sha256(model, max_bytes))


def _weights_sha256(model, max_bytes: int) -> tuple[str | None, int]:
    import torch  # torch: only for a loaded model's weights

    state = model.state_dict()
    size = sum(tensor.numel() * tensor.element_size() for tensor in state.values())
    digest = None
    if size <= max_bytes and not any(tensor.is_meta for tensor in state.values()):
        hasher = hashlib.sha256()
        for name in sorted(state):
            tensor = state[name].detach().to("cpu").contiguous()
            hasher.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
            hasher.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())  # the raw bytes, any dtype
        digest = hasher.hexdigest()
    return digest, size


def _model_source(handle) -> str:
    if (
        getattr(handle, "origin", "loaded") == "object"
    ):  # a model object the caller built (`attnviz.model.objects.from_objects`)
        return "object"
    folder = next((folder for name, folder, _ in catalogue_folders() if name == handle.name), None)
    if folder is not None and (handle.path is None or Path(handle.path).resolve() == folder.resolve()):
        return "catalogue"  # by its name, from its folder: not a folder of the same name elsewhere
    return "folder" if handle.path else "hub"


def model_record(handle, *, hash_weights: bool = True) -> dict:
    """What identifies the loaded model: its name and where it came from, its hub revision, its weights' hash."""
    key = ("record", handle.name, handle.path, hash_weights)
    return dict(once_per(handle.model, key, lambda: _model_record(handle, hash_weights)))  # a copy to change


def _model_record(handle, hash_weights: bool) -> dict:
    model = handle.model
    digest, size = weights_sha256(model) if hash_weights else (None, None)
    return {
        "name": handle.name,
        "source": _model_source(handle),
        "revision": getattr(getattr(model, "config", None), "_commit_hash", None),
        "weights_sha256": digest,
        "weights_bytes": size,
        "class": type(model).__name__,
        "kind": handle.kind,
        "layers": handle.num_layers,
        "heads": handle.num_heads,
    }


def build_provenance(
    handle,
    source_text: str,
    target_text: str | None = None,
    options: dict | None = None,
    *,
    hash_weights: bool = True,
    now: datetime | None = None,
) -> dict:
    """The provenance of a capture made with `handle` (a ModelHandle) from these texts and capture `options`
    (max tokens, truncation, generation settings …), as the module docstring lays out."""
    dtype = _dtype(handle.model)
    return {
        "provenance_version": PROVENANCE_VERSION,
        "model": model_record(handle, hash_weights=hash_weights),
        "device": str(handle.device),
        "dtype": dtype,
        "versions": versions(),
        "source_text": source_text,
        "target_text": target_text,
        "options": json_safe(options or {}),
        "captured_at": timestamp(now),
    }


def _dtype(model) -> str | None:
    """ "float32" …: `model.dtype`, for a transformers model read as its property does (the first floating-point
    parameter) without the property's per-call walk."""
    if hasattr(type(model), "dtype"):
        weight = first_weight(model)
        dtype = None if weight is None else weight.dtype
    else:  # a bare torch module names no dtype
        dtype = getattr(model, "dtype", None)
    return None if dtype is None else str(dtype).removeprefix("torch.")


def view_provenance(
    provenance: dict | None, view: str, options: dict | None = None, *, now: datetime | None = None
) -> dict:
    """A capture's provenance with what a figure of it shows: the view's name and options (layers, heads, threshold
    …) and the export time. Without a capture's provenance (a figure of hand-made data), the versions stand alone."""
    base = dict(provenance or {"provenance_version": PROVENANCE_VERSION, "versions": versions()})
    base["view"] = {"name": view, "options": json_safe(options or {})}
    base["exported_at"] = timestamp(now)
    return base


DECODING_OPTIONS = ("num_beams",)  # recorded by generation itself; kept when a caller records its own options
RUN_FIELDS = ("placement",)  # what the capture recorded of its own run (where each layer ran), kept the same way


def with_provenance(capture, handle, options: dict | None = None, **build_options):
    """`capture` (an AttentionCapture made with `handle`) as a file keeps it: with its provenance (`build_provenance`
    of its own texts and these capture `options`) and, in its meta, the model's alignment heads, so that the file,
    opened where the model is not, draws what the live capture draws."""
    recorded = (capture.provenance or {}).get("options") or {}
    kept = {name: recorded[name] for name in DECODING_OPTIONS if name in recorded}
    provenance = build_provenance(
        handle, capture.source_text, capture.target_text, {**kept, **(options or {})}, **build_options
    )
    ran = {name: capture.provenance[name] for name in RUN_FIELDS if name in (capture.provenance or {})}
    provenance |= ran
    return replace(capture, provenance=provenance, meta={**capture.meta, **alignment_meta(handle)})


def alignment_meta(handle) -> dict:
    """What a capture made with `handle` keeps in its meta of the model: its alignment heads (an empty list when it
    has none), so that the capture's alignment view is the model's wherever it is drawn (`alignment_heads_of`)."""
    return {ALIGNMENT_HEADS: [[int(layer), int(head)] for layer, head in handle.alignment_heads]}


def knows_alignment_heads(capture) -> bool:
    """Whether `capture` recorded its model's alignment heads (none, or some); a capture made before they were
    recorded, or by hand, did not: its alignment view then says it does not know them."""
    return isinstance((getattr(capture, "meta", None) or {}).get(ALIGNMENT_HEADS), list)


def alignment_heads_of(capture) -> list[tuple[int, int]]:
    """The alignment heads a capture recorded (`with_provenance`): (layer, head) pairs; none when it recorded none,
    or something that is not a list of index pairs (a file edited by hand)."""
    recorded = (capture.meta or {}).get(ALIGNMENT_HEADS)
    if not isinstance(recorded, list):
        return []
    pairs = []
    for pair in recorded:
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(_is_index(value) for value in pair)):
            return []
        pairs.append((pair[0], pair[1]))
    return pairs


def _is_index(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def json_safe(value):
    """Meta values as JSON: numpy arrays/scalars to lists/numbers, tuples to lists, anything else to its str."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
