"""The one place that chooses a device: npu → cuda → mps → cpu, with a report saying what was chosen and why.

torch_npu is imported only here, and only inside a guard: installed without Ascend's CANN toolkit it raises on import,
and that must cost the user nothing but a line in the device report.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache

import torch

from attnviz.errors import DeviceUnavailableError

DEVICE_ENV = "ATTNVIZ_DEVICE"
AUTO_ORDER = ("npu", "cuda", "mps", "cpu")
_SPEC = re.compile(r"^(auto|npu|cuda|mps|cpu)(?::(\d+))?$")


@dataclass(frozen=True)
class DeviceStatus:
    name: str  # "npu", "cuda", "mps", "cpu"
    available: bool
    reason: str  # why it is or is not usable, in one line
    count: int = 0


@dataclass(frozen=True)
class DeviceReport:
    requested: str
    chosen: str  # e.g. "cpu", "npu:0"
    entries: list[DeviceStatus] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"device: {self.chosen} (requested: {self.requested})"]
        for entry in self.entries:
            mark = "yes" if entry.available else "no "
            lines.append(f"  {entry.name:<5} {mark}  {entry.reason}")
        return "\n".join(lines)


@lru_cache(maxsize=1)
def _npu_status() -> DeviceStatus:
    try:
        import torch_npu  # noqa: F401  (registers the "npu" device with torch)
    except ModuleNotFoundError as error:
        if error.name != "torch_npu":  # torch_npu is there but one of its own imports is missing
            return _npu_broken(error)
        return DeviceStatus("npu", False, "torch_npu is not installed (pip install -r requirements-npu.txt).")
    except Exception as error:  # torch_npu without CANN fails with assorted errors (ImportError: libhccl.so, …)
        return _npu_broken(error)
    try:
        count = torch.npu.device_count()
    except Exception as error:
        return DeviceStatus("npu", False, f"torch_npu loaded but cannot count devices: {error}")
    if count == 0:
        return DeviceStatus("npu", False, "torch_npu loaded but no Ascend NPU is visible.")
    return DeviceStatus("npu", True, f"{count} Ascend NPU(s) via torch_npu {torch_npu.__version__}.", count)


def _cuda_status() -> DeviceStatus:
    if not torch.cuda.is_available():
        reason = "this torch build has no CUDA." if torch.version.cuda is None else "no CUDA GPU is visible."
        return DeviceStatus("cuda", False, reason)
    count = torch.cuda.device_count()
    return DeviceStatus("cuda", True, f"{count} GPU(s): {torch.cuda.get_device_name(0)}.", count)


def _mps_status() -> DeviceStatus:
    backend = getattr(torch.backends, "mps", None)
    if backend is None or not backend.is_available():
        return DeviceStatus("mps", False, "Apple MPS is not available on this machine.")
    return DeviceStatus("mps", True, "Apple MPS is available.", 1)


def _cpu_status() -> DeviceStatus:
    return DeviceStatus("cpu", True, f"always available ({torch.get_num_threads()} threads).", 1)


def _npu_broken(error: Exception) -> DeviceStatus:
    # Transformers' is_torch_npu_available() imports torch_npu whenever the package is found, unguarded; a None in
    # sys.modules makes importlib.util.find_spec report it absent, so a broken install cannot crash model loading.
    sys.modules["torch_npu"] = None
    first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return DeviceStatus("npu", False, f"torch_npu failed to load (is CANN installed and set_env.sh sourced?): {first_line}")


def device_statuses() -> list[DeviceStatus]:
    """Every backend attnviz knows, in the order `auto` tries them."""
    return [_npu_status(), _cuda_status(), _mps_status(), _cpu_status()]


def _parse(spec: str) -> tuple[str, int | None]:
    match = _SPEC.match(spec.strip().lower())
    if not match:
        raise DeviceUnavailableError(
            f"Unknown device {spec!r}; use auto, npu, npu:N, cuda, cuda:N, mps or cpu."
        )
    index = int(match.group(2)) if match.group(2) is not None else None
    return match.group(1), index


def _requested(spec: str | None) -> str:
    if spec is None or spec == "auto":
        return os.environ.get(DEVICE_ENV, "").strip() or "auto"
    return spec


def resolve_device(spec: str | None = "auto") -> torch.device:
    """Turn "auto" | "npu" | "npu:1" | "cuda" | "mps" | "cpu" into a torch.device.

    `auto` (or None) honours the ATTNVIZ_DEVICE environment variable, then tries npu → cuda → mps → cpu. A device asked
    for by name that cannot be used raises DeviceUnavailableError saying why — never a silent fallback.
    """
    requested = _requested(spec)
    kind, index = _parse(requested)
    statuses = {status.name: status for status in device_statuses()}
    if kind == "auto":
        for name in AUTO_ORDER:
            if statuses[name].available:
                return torch.device(name, 0) if name in ("npu", "cuda") else torch.device(name)
        raise AssertionError("cpu is always available")  # pragma: no cover
    status = statuses[kind]
    if not status.available:
        raise DeviceUnavailableError(f"Device {requested!r} is not available: {status.reason} Choose auto or cpu.")
    if kind == "cpu" or kind == "mps":
        return torch.device(kind)
    index = index or 0
    if index >= status.count:
        raise DeviceUnavailableError(
            f"Device {requested!r} does not exist: this machine has {status.count} {kind} device(s), numbered 0 to "
            f"{status.count - 1}."
        )
    return torch.device(kind, index)


def device_report(spec: str | None = "auto") -> DeviceReport:
    """What would be chosen for `spec`, and the state of every backend; never raises for an unavailable device."""
    requested = _requested(spec)
    try:
        chosen = str(resolve_device(spec))
    except DeviceUnavailableError as error:
        chosen = f"none — {error}"
    return DeviceReport(requested=requested, chosen=chosen, entries=device_statuses())


_npu_status()  # at import: settles torch_npu before transformers looks for it
