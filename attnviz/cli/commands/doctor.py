"""`attnviz doctor`: capture the same pair on the device and on the CPU and compare the weights."""

from __future__ import annotations

from attnviz.cli.messages import quiet_libraries
from attnviz.cli.request import Request


def run(request: Request) -> int:
    from attnviz.doctor import parity  # imports torch: only when the check runs

    quiet_libraries()
    report = parity(model=request.model, device=request.device)
    print(report.summary())
    return 0 if report.passed else 1
