"""Parity check for an accelerator: the same capture on the chosen device and on the CPU, compared map by map.

`python -m attnviz doctor` prints this report; an Ascend (or CUDA) user runs it to see that the weights the device
computes equal the CPU's.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attnviz import compare
from attnviz.attention.capture import capture
from attnviz.model.devices import device_report, resolve_device
from attnviz.model.load import load_model

DEFAULT_PAIR = ("早上好！", "Good morning!")
TOLERANCE = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 1e-2}


@dataclass(frozen=True)
class ParityReport:
    device: str
    model: str
    dtype: str
    versions: dict[str, str]
    max_difference: dict[str, list[float]]  # map kind -> largest |device − cpu| per layer
    tolerance: float

    @property
    def worst(self) -> float:
        return max((max(diffs) for diffs in self.max_difference.values() if diffs), default=0.0)

    @property
    def passed(self) -> bool:
        return self.worst <= self.tolerance

    def summary(self) -> str:
        lines = [f"model {self.model} on {self.device} ({self.dtype}) vs cpu"]
        lines += [f"  {name} {version}" for name, version in self.versions.items()]
        for kind, diffs in self.max_difference.items():
            lines.append(f"  {kind:<8} max |difference| per layer: " + ", ".join(f"{d:.2e}" for d in diffs))
        verdict = "PASS" if self.passed else "FAIL"
        lines.append(f"{verdict}: worst {self.worst:.2e} (tolerance {self.tolerance:.0e})")
        if self.device == "cpu":  # "auto" on a machine without an accelerator
            lines.append(
                "note: no accelerator was checked: this is the CPU against itself (the capture runs and "
                "gives the same weights twice); run it where an NPU or GPU is, or name one with --device"
            )
        return "\n".join(lines)


def _versions() -> dict[str, str]:
    versions = {"torch": torch.__version__}
    try:
        import torch_npu

        versions["torch_npu"] = torch_npu.__version__
    except Exception:  # absent, or present without CANN: the device report says which
        pass
    return versions


def parity(
    model: str = "demo-zh-en",
    device: str | None = "auto",
    text: str = DEFAULT_PAIR[0],
    target: str | None = DEFAULT_PAIR[1],
) -> ParityReport:
    """Capture `text` (→ `target` for translation models) on `device` and on the CPU; compare every map."""
    chosen = resolve_device(device)
    on_device = load_model(model, str(chosen))
    on_cpu = load_model(model, "cpu")
    target = target if on_device.is_seq2seq else None
    result, reference = capture(on_device, text, target), capture(on_cpu, text, target)
    differences = {kind: compare.parity(result[kind], reference[kind]).per_layer for kind in reference.maps}
    dtype = next(on_device.model.parameters()).dtype
    return ParityReport(
        device=str(chosen),
        model=model,
        dtype=str(dtype).replace("torch.", ""),
        versions=_versions(),
        max_difference=differences,
        tolerance=TOLERANCE.get(dtype, 1e-2),
    )


def report_text(device: str | None = "auto") -> str:
    """The device report, for `python -m attnviz devices`."""
    return device_report(device).summary()
