"""Which dtype a model may run in on each device. The captured weights are float32 whatever it is: the softmax of
`attention.math` always runs in float32."""

from __future__ import annotations

import torch

from attnviz.errors import InputError
from attnviz.model.devices import resolve_device

_DTYPE_NAMES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "float": torch.float32,
    "float16": torch.float16,
    "fp16": torch.float16,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
}
_ALLOWED_DTYPES = {
    "cpu": (torch.float32,),
    "mps": (torch.float32, torch.float16),
    "cuda": (torch.float32, torch.float16, torch.bfloat16),
    "npu": (torch.float32, torch.float16, torch.bfloat16),
}
# A comparison of precisions (Compare's B, `attnviz compare --dtype-b`) asks for half precision on purpose: how far it
# moves the weights is what it shows, so the CPU runs it there too.
_COMPARED_DTYPES = {**_ALLOWED_DTYPES, "cpu": (torch.float32, torch.float16, torch.bfloat16)}


def dtype_policy(
    device: str | torch.device, requested: str | torch.dtype | None = None, *, compared: bool = False
) -> torch.dtype:
    """The dtype a model may run in on `device`: float32 unless a half type is asked for where it is allowed.

    float16 / bfloat16 are allowed on npu and cuda (float16 on mps); the CPU runs float32 only, because half precision
    there is slow and would make the "exact" weights inexact for no gain — unless the run is `compared` with float32
    (a comparison of precisions), where that inexactness is what is measured.
    """
    kind, allowed = _policy(device, compared)
    if requested is None:
        return torch.float32
    if isinstance(requested, str):
        dtype = _DTYPE_NAMES.get(requested.strip().lower())
        if dtype is None:
            raise InputError("dtype_unknown", dtype=requested)
    else:
        dtype = requested
    if dtype not in allowed:
        names = ", ".join(str(d).removeprefix("torch.") for d in allowed)
        raise InputError("dtype_not_allowed", dtype=str(dtype).removeprefix("torch."), device=kind, allowed=names)
    return dtype


def allowed_dtypes(device: str | torch.device, *, compared: bool = False) -> tuple[str, ...]:
    """The dtypes `dtype_policy` lets a model run in on `device` ("auto": the one `resolve_device` chooses), by
    name, float32 first: ("float32",) on the CPU unless `compared`, so a choice of precision offers only what can
    run."""
    if str(device).strip().lower() == "auto":
        device = resolve_device("auto")
    return tuple(str(dtype).removeprefix("torch.") for dtype in _policy(device, compared)[1])


def _policy(device: str | torch.device, compared: bool = False) -> tuple[str, tuple[torch.dtype, ...]]:
    """(the device's kind, the dtypes allowed there, in a comparison of precisions if `compared`); InputError for a
    device no policy covers."""
    kind = device.type if isinstance(device, torch.device) else str(device).split(":")[0].strip().lower()
    allowed = (_COMPARED_DTYPES if compared else _ALLOWED_DTYPES).get(kind)
    if allowed is None:
        raise InputError("dtype_no_policy", device=str(device))
    return kind, allowed
