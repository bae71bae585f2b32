"""`attnviz devices`: which device a run would use, and why not the others."""

from __future__ import annotations

from attnviz import settings
from attnviz.cli.request import Request
from attnviz.errors import InputError


def run(request: Request) -> int:
    from attnviz.model.devices import device_report  # imports torch: only when the report is asked for

    if request.device and not settings.DEVICE_SPEC.match(request.device.strip().lower()):
        raise InputError("device_unknown", device=request.device)  # a typo, not a device that is missing here
    print(device_report(request.device).summary())
    return 0
