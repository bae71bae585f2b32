"""Value zeroing and saliency for `python -m attnviz contributions --method value-zeroing|saliency`: the part of the
contributions command these two methods bring, joined to it through `METHODS`.

Each `Method` says how one --method computes an example (`compute(handle, example, request)`), which formats it
writes, and how (`write(result, path, fmt, overwrite=…)`):
- value-zeroing: a capture file (json or npz, `attnviz.export.save_capture`): per map kind, float32
  (layers, 1, queries, keys) — layer-major, rows = queries, summing to 1 — with the tokens, layer names and
  provenance of `capture` (whose "measure" names the method and its paper); the app opens it like any capture;
- saliency: a saliency file (json or npz, `attnviz.export.saliency_file`): per explained target token (every row of
  --target for a translator, every position of --text for a decoder), its gradient × input score per input token.

`run(request, method)` is a whole command for one method: every example of --text or --input, one file each, as
`capture` writes them; the contributions command calls it for these methods.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from attnviz import export
from attnviz.cli.inputs import Example, examples
from attnviz.cli.messages import PROG, error_phrase, quiet_libraries
from attnviz.cli.options import check
from attnviz.cli.outputs import output_format, output_paths
from attnviz.cli.request import Request
from attnviz.errors import AttnvizError
from attnviz.export.saliency_file import save_saliency
from attnviz.measures.saliency import saliency
from attnviz.measures.value_zeroing import value_zeroing
from attnviz.model import load as models


@dataclass(frozen=True)
class Method:
    compute: Callable  # (handle, example, request) -> the result
    write: Callable  # (result, path, fmt, overwrite=…) -> the path written
    formats: tuple[str, ...]
    name: str  # the start of a file's name in an --output folder


def _value_zeroing(handle, example: Example, request: Request):
    kinds = None if request.kind is None else [request.kind]  # --kind: that map's layers only
    return value_zeroing(handle, example.text, example.target, truncate=request.truncate, kinds=kinds)


def _saliency(handle, example: Example, request: Request):
    return saliency(handle, example.text, example.target, truncate=request.truncate)


METHODS = {
    "value-zeroing": Method(_value_zeroing, export.save_capture, ("npz", "json"), "value-zeroing"),
    "saliency": Method(_saliency, save_saliency, ("npz", "json"), "saliency"),
}


def run(request: Request, method: str) -> int:
    """Compute `method` for every example and write one file each; the exit code (2 when an --input line failed:
    said on stderr, the other lines still written)."""
    chosen = METHODS[method]
    check(request)
    listed = examples(request)
    fmt = output_format(request, chosen.formats, chosen.formats[0])
    paths = output_paths(request, listed, fmt)
    quiet_libraries()
    handle = models.load_model(request.model, device=request.device)
    written, skipped = [], 0
    for example, path in zip(listed, paths):
        try:
            if example.refused is not None:
                raise example.refused
            result = chosen.compute(handle, example, request)
            target = path or _named(request, chosen, example, fmt)
            written.append(chosen.write(result, target, fmt, overwrite=request.force))
        except AttnvizError as error:
            if request.input is None:
                raise
            line = type(error)(
                "cli_input_line", line=example.number, path=str(request.input), error=error_phrase(error)
            )
            print(f"{PROG}: error: {line.message(request.lang)}", file=sys.stderr)
            skipped += 1
    for path in written:
        print(path)
    return 2 if skipped else 0


def _named(request: Request, method: Method, example: Example, fmt: str) -> Path:
    """A file in the --output folder: the method, the model and the first words of the text."""
    model = Path(request.model).name or request.model
    return request.output / export.safe_filename(f"{method.name}_{model}_{example.text}", f".{fmt}")
