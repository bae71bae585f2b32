"""`attnviz find-head`: every layer × head ranked by the weight from a query token to a key token, printed
tab-separated (rank, layer, head, weight), strongest first."""

from __future__ import annotations

from attnviz.cli.messages import quiet_libraries
from attnviz.cli.request import Request, placement_options
from attnviz.errors import InputError
from attnviz.model import load as models
from attnviz.run import RunRequest
from attnviz.run import run as run_model
from attnviz.view import find_head, selection


def run(request: Request) -> int:
    if request.top < 0:
        raise InputError("cli_top_negative")
    if request.occurrence < 1:
        raise InputError("cli_occurrence_positive")
    quiet_libraries()
    handle = models.load_model(request.model, device=request.device, **placement_options(request))
    result = run_model(handle, RunRequest(request.text, request.target, truncate=request.truncate))
    kind = request.kind or selection.default_kind(result)
    picked = [
        find_head.find_choice(
            find_head.token_choices(result, kind, side, words=request.words), wanted, request.occurrence
        )
        for side, wanted in (("query", request.query), ("key", request.key))
    ]
    ranked = find_head.rank_heads(result, kind, *picked)
    print(f"rank\tlayer\thead\t{picked[0].label} → {picked[1].label}")
    for rank, match in enumerate(ranked[: request.top or None], start=1):
        print(f"{rank}\t{match.layer}\t{match.head}\t{match.weight:.4f}")
    return 0
