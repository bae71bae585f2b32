"""Models larger than one device: where accelerate places each layer (`load_model(..., device_map=…, max_memory=…)`),
the options as a person writes them (`--max-memory npu:0=30GiB,cpu=64GiB`), and where each layer of a capture ran.

accelerate's `device_map` places the model's modules on accelerators, the CPU and the disk, and moves each layer's
inputs (and, for offloaded layers, its weights) onto its execution device when the layer runs; a capture records each
attention call where it runs and gathers its weights to the CPU at once. Written without torch: the CLI parses its
options here before a model loads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from attnviz.errors import ModelLoadError

DEVICE_MAP_NAMES = ("auto", "balanced", "balanced_low_0", "sequential")  # accelerate's strategies
# accelerate's max_memory keys: an accelerator's index (int), or one of these
PLACES = ("cpu", "disk", "mps")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_UNITS |= {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_ACCELERATOR = re.compile(r"^(?:(?:cuda|npu|xpu):)?(\d+)$")


@dataclass(frozen=True)
class Placement:
    """Where a model's layers go, as a person writes it (the app's sidebar, a settings file): `device_map` one of
    `DEVICE_MAP_NAMES` or a JSON map, `max_memory` like "npu:0=30GiB,cpu=64GiB", `offload_folder` a folder; None or
    blank: not given. All unset: the model loads onto one device. Hashable, so a cache can key on it."""

    device_map: str | None = None
    max_memory: str | None = None
    offload_folder: str | None = None

    def load_options(self) -> dict:
        """`load_model`'s keyword arguments (`device_map`, `max_memory`, `offload_folder`) as written (stripped; None
        when blank), once the parsers the CLI's options use have read them: a value they refuse raises ModelLoadError
        with the sentence that says why. Kept as written, so that `load_model` can name an accelerator as the person
        named it ("npu:0") when this machine lacks it."""
        return {
            "device_map": checked(device_map_of)(_given(self.device_map)),
            "max_memory": checked(max_memory_of)(_given(self.max_memory)),
            "offload_folder": _given(self.offload_folder),
        }

    @property
    def on_one_device(self) -> bool:
        """No device map and no memory limits: `load_model` loads onto one device (an offload folder alone is unused)."""
        return _given(self.device_map) is None and _given(self.max_memory) is None

    def normalised(self) -> Placement:
        """The same placement as a cache keys it: values stripped (blank: not given), and `Placement()` for any that
        loads onto one device, so one way of loading a model has one key."""
        if self.on_one_device:
            return Placement()
        return Placement(_given(self.device_map), _given(self.max_memory), _given(self.offload_folder))


def _given(value: str | None) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def checked(parse):
    """`parse` (`device_map_of` or `max_memory_of`) as a check: the value as written when `parse` reads it, its
    ModelLoadError when not."""

    def check(value):
        parse(value)
        return value

    check.__name__ = parse.__name__
    return check


def device_map_of(value) -> str | dict | None:
    """A device map as accelerate takes it: None, one of `DEVICE_MAP_NAMES`, a {module path: place} dict, or the
    JSON text of one (the CLI's `--device-map '{"model.layers.0": 0, "": "cpu"}'`)."""
    if value is None or isinstance(value, dict):
        return value and {str(path): _place(place, value, memory=False) for path, place in value.items()}
    text = str(value).strip()
    if text in DEVICE_MAP_NAMES:
        return text
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        raise ModelLoadError("device_map_invalid", value=text, names=", ".join(DEVICE_MAP_NAMES))
    return device_map_of(parsed)


def max_memory_of(value) -> dict | None:
    """`max_memory` as accelerate takes it, in bytes ({0: 32212254720, "cpu": …}), from a dict or the CLI's text
    "npu:0=30GiB,npu:1=30GiB,cpu=64GiB": an accelerator by index (npu:N, cuda:N or N), else cpu, disk or mps; a size
    is bytes, or a number with B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (of 1024)."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        items = list(value.items())
    else:
        items = [part.split("=", 1) if "=" in part else (part, "") for part in str(value).split(",") if part.strip()]
    limits = {}
    for place, size in items:
        limits[_place(place, value, memory=True)] = _bytes(size, place, value)
    return limits or None


def accelerators_named(device_map, max_memory) -> list[str]:
    """The accelerators a placement names, as the person wrote them ("npu:0", "cuda:1", "1"), in order, each once:
    the places of a device map (a dict, or its JSON text; a strategy name such as "auto" names none) and the keys
    of the memory limits (a dict, or the text "npu:0=30GiB,cpu=64GiB"). Places it cannot read are left to the
    parsers (`device_map_of`, `max_memory_of`), which refuse them in a sentence."""
    if isinstance(device_map, str) and device_map.strip() not in DEVICE_MAP_NAMES:
        try:
            device_map = json.loads(device_map)
        except json.JSONDecodeError:
            device_map = None
    places = list(device_map.values()) if isinstance(device_map, Mapping) else []
    if isinstance(max_memory, Mapping):
        places += list(max_memory)
    elif isinstance(max_memory, str):
        places += [part.split("=", 1)[0] for part in max_memory.split(",") if part.strip()]
    named = [str(place).strip().lower() for place in places]
    return list(dict.fromkeys(place for place in named if _ACCELERATOR.match(place)))


def accelerator_of(written: str) -> tuple[str | None, int]:
    """("npu" | "cuda" | "xpu", or None for a bare index; the index) of an accelerator as `accelerators_named`
    gives it."""
    kind, _, index = written.rpartition(":")
    return kind or None, int(index)


def _bytes(size, place, whole) -> int:
    if isinstance(size, int) and not isinstance(size, bool) and size >= 0:
        return size
    read = _SIZE.match(str(size).strip())
    if not read:
        raise ModelLoadError("max_memory_size", value=str(whole), place=str(place).strip(), size=str(size).strip())
    return int(float(read.group(1)) * _UNITS[(read.group(2) or "").lower()])


def _place(place, whole, memory: bool) -> int | str:
    """An accelerator's index, or "cpu" / "disk" / "mps"; refuses anything else, in a sentence about the memory
    limits (`memory`) or the device map `whole` it stands in."""
    if isinstance(place, int) and not isinstance(place, bool):
        return place
    text = str(place).strip().lower()
    accelerator = _ACCELERATOR.match(text)
    if accelerator:
        return int(accelerator.group(1))
    if text in PLACES:
        return text
    if memory:
        raise ModelLoadError("max_memory_place", value=str(whole), place=str(place).strip())
    raise ModelLoadError("device_map_place", value=str(whole), place=str(place).strip())


def placed_on(device_map: Mapping[str, object], path: str) -> str | None:
    """Where `device_map` puts the module at `path`: the entry of its longest prefix ("" is the whole model)."""
    best = None
    for prefix, place in device_map.items():
        if prefix == "" or path == prefix or path.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, place)
    return None if best is None else str(best[1])


def layer_report(device_map: Mapping[str, object] | None, ran: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """For each attention module a capture recorded (path -> the device its call ran on): where the device map kept
    its weights ("disk", "cpu", "0" …) and where it ran; {} for a model on one device (no map)."""
    if not device_map:
        return {}
    return {path: {"placed": placed_on(device_map, path) or "", "ran": str(device)} for path, device in ran.items()}


def offloaded_to_disk(device_map: Mapping[str, object] | None) -> bool:
    return bool(device_map) and any(str(place) == "disk" for place in device_map.values())
