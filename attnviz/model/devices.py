"""The one place that chooses a device: npu → cuda → mps → cpu, with a report saying what was chosen and why.

torch_npu is imported only here, and only inside a guard: installed without Ascend's CANN toolkit it raises on import,
and that must cost the user nothing but a line in the device report.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import lru_cache

import torch

from attnviz import i18n, settings
from attnviz.errors import DeviceUnavailableError, Phrase, SettingError

AUTO_ORDER = ("npu", "cuda", "mps", "cpu")


@dataclass(frozen=True)
class DeviceStatus:
    name: str  # "npu", "cuda", "mps", "cpu"
    available: bool
    why: Phrase = field(compare=False)  # why it is or is not usable, one line: `device.<reason>` in the catalogue
    count: int = 0

    @property
    def reason(self) -> str:
        return self.why.text("en")

    def reason_in(self, lang: str = "en") -> str:
        return self.why.text(lang)


@dataclass(frozen=True)
class DeviceReport:
    requested: str
    chosen: str  # e.g. "cpu", "npu:0", or "none — why not", in the report's language
    entries: list[DeviceStatus] = field(default_factory=list)
    lang: str = "en"

    def summary(self) -> str:
        lines = [i18n.t("device.summary", self.lang, chosen=self.chosen, requested=self.requested)]
        for entry in self.entries:
            mark = i18n.t("device.yes" if entry.available else "device.no", self.lang)
            lines.append(f"  {entry.name:<5} {mark:<3}  {entry.reason_in(self.lang)}")
        return "\n".join(lines)


def _status(name: str, available: bool, reason: str, count: int = 0, **values) -> DeviceStatus:
    return DeviceStatus(name, available, Phrase(f"device.{reason}", **values), count)


@lru_cache(maxsize=1)
def _npu_status() -> DeviceStatus:
    try:
        import torch_npu  # noqa: F401  (registers the "npu" device with torch)
    except ModuleNotFoundError as error:
        if error.name != "torch_npu":  # torch_npu is there but one of its own imports is missing
            return _npu_broken(error)
        return _status("npu", False, "npu_not_installed")
    except Exception as error:  # torch_npu without CANN fails with assorted errors (ImportError: libhccl.so, …)
        return _npu_broken(error)
    try:
        count = torch.npu.device_count()
    except Exception as error:
        return _status("npu", False, "npu_uncountable", detail=str(error))
    if count == 0:
        return _status("npu", False, "npu_none_visible")
    return _status("npu", True, "npu_ready", count, version=torch_npu.__version__)


def _cuda_status() -> DeviceStatus:
    if not torch.cuda.is_available():
        return _status("cuda", False, "cuda_not_built" if torch.version.cuda is None else "cuda_none_visible")
    count = torch.cuda.device_count()
    return _status("cuda", True, "cuda_ready", count, count=count, gpu=torch.cuda.get_device_name(0))


def _mps_status() -> DeviceStatus:
    backend = getattr(torch.backends, "mps", None)
    if backend is None or not backend.is_available():
        return _status("mps", False, "mps_unavailable")
    return _status("mps", True, "mps_ready", 1)


def _cpu_status() -> DeviceStatus:
    return _status("cpu", True, "cpu_ready", 1, threads=torch.get_num_threads())


def _npu_broken(error: Exception) -> DeviceStatus:
    # Transformers' is_torch_npu_available() imports torch_npu whenever the package is found, unguarded; a None in
    # sys.modules makes importlib.util.find_spec report it absent, so a broken install cannot crash model loading.
    sys.modules["torch_npu"] = None
    first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return _status("npu", False, "npu_broken", detail=first_line)


def device_statuses() -> list[DeviceStatus]:
    """Every backend attnviz knows, in the order `auto` tries them."""
    return [_npu_status(), _cuda_status(), _mps_status(), _cpu_status()]


def _parse(spec: str) -> tuple[str, int | None]:
    match = settings.DEVICE_SPEC.match(spec.strip().lower())
    if not match:
        raise DeviceUnavailableError("device_unknown", device=spec)
    index = int(match.group(2)) if match.group(2) is not None else None
    return match.group(1), index


def _requested(spec: str | None) -> str:
    if spec is None or spec == "auto":
        return settings.current().device
    return spec


def resolve_device(spec: str | None = "auto") -> torch.device:
    """Turn "auto" | "npu" | "npu:1" | "cuda" | "mps" | "cpu" into a torch.device.

    `auto` (or None) honours the ATTNVIZ_DEVICE setting, then tries npu → cuda → mps → cpu. A device asked for by name
    that cannot be used raises DeviceUnavailableError saying why — never a silent fallback.
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
        raise DeviceUnavailableError("device_unavailable", device=requested, reason=status.why)
    if kind == "cpu" or kind == "mps":
        return torch.device(kind)
    index = index or 0
    if index >= status.count:
        raise DeviceUnavailableError(
            "device_missing", device=requested, count=status.count, kind=kind, last=status.count - 1
        )
    return torch.device(kind, index)


def check_accelerators(named: list[tuple[str, str | None, int]]) -> None:
    """Refuse a placement that names an accelerator this machine does not have, naming it: `named` holds (as written,
    "npu" | "cuda" | "xpu" or None for a bare index, index). accelerate reads every index as one of the machine's
    accelerator (an NPU when torch_npu has one, else a CUDA GPU), so a bare index needs one of them, and an index
    written with a kind needs that kind; left to accelerate, either fails as a load error that blames the model."""
    statuses = {status.name: status for status in device_statuses()}
    present = [statuses[name] for name in ("npu", "cuda") if statuses[name].available]
    for written, kind, index in named:
        status = statuses.get(kind) if kind else (present[0] if present else None)
        if kind in statuses and not status.available:
            raise DeviceUnavailableError("placement_device_unavailable", device=written, reason=status.why)
        if status is None:  # a bare index (or xpu:N) and neither an NPU nor a CUDA GPU
            raise DeviceUnavailableError(
                "placement_no_accelerator", device=written, npu=statuses["npu"].why, cuda=statuses["cuda"].why
            )
        if index >= status.count:
            raise DeviceUnavailableError(
                "device_missing", device=written, count=status.count, kind=status.name, last=status.count - 1
            )


def device_report(spec: str | None = "auto", lang: str = "en") -> DeviceReport:
    """What would be chosen for `spec`, and the state of every backend, in `lang` ("en" or "zh"); never raises for an
    unavailable device or a device setting that cannot be read (the report says why instead)."""
    requested = spec or "auto"
    try:
        requested = _requested(spec)
        chosen = str(resolve_device(requested))
    except (DeviceUnavailableError, SettingError) as error:
        chosen = i18n.t("device.none", lang, why=error.message(lang))
    return DeviceReport(requested=requested, chosen=chosen, entries=device_statuses(), lang=lang)


_npu_status()  # at import: settles torch_npu before transformers looks for it
