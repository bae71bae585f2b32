"""`attnviz contributions`: what each token contributes to each other, per layer, in the layout of attention weights
(json, npz or csv, with tokens and provenance as `capture` writes them), by a method of
`attnviz.measures.table.MEASURES`."""

from __future__ import annotations

from attnviz.cli.batch import each_example
from attnviz.cli.commands.capture import FORMATS, write
from attnviz.cli.request import Request
from attnviz.errors import InputError


def run(request: Request) -> int:
    from attnviz.cli.commands import contributions_vz  # torch: only when the command runs, not for --help
    from attnviz.measures.table import MEASURES, contributions  # torch: likewise

    if request.method in contributions_vz.METHODS:  # value zeroing and saliency: files of their own kinds
        return contributions_vz.run(request, request.method)
    if request.method not in MEASURES:  # said before the model loads
        methods = ", ".join([*MEASURES, *contributions_vz.METHODS])
        raise InputError("alti_method_unknown", method=request.method, methods=methods)

    def measured(handle, example, request: Request):
        return contributions(handle, example.text, example.target, method=request.method, truncate=request.truncate)

    return each_example(request, FORMATS, "json", write, compute=measured)
