"""`attnviz contributions`: a measure of what the model uses (`attnviz.measuring.MEASURES`: ALTI, ALTI rollout,
value zeroing, saliency) of each example, one file each, in the measure's own file kind: a capture file of
(layers, 1, queries, keys) maps in the layout of attention weights (json, npz or csv, with tokens and provenance as
`capture` writes them), or a saliency file of gradient × input scores per explained output token."""

from __future__ import annotations

from pathlib import Path

from attnviz.cli.batch import each_example
from attnviz.cli.inputs import Example
from attnviz.cli.request import Request


def run(request: Request) -> int:
    from attnviz import measuring  # torch: only when the command runs, not for --help

    chosen = measuring.get(request.method)  # an unknown method is said before the model loads

    def compute(handle, example: Example, request: Request):
        kinds = None if request.kind is None else [request.kind]  # --kind: that map's layers only
        return chosen.compute(handle, example.text, example.target, truncate=request.truncate, kinds=kinds)

    def write(result, request: Request, handle, example: Example, path: Path | None, fmt: str) -> Path:
        path = path or request.output / measuring.file_name(chosen.name, request.model, example.text, fmt)
        return chosen.write(result, path, fmt, overwrite=request.force)

    return each_example(request, chosen.formats, chosen.formats[0], write, compute=compute)
