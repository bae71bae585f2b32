"""`attnviz lens` and `attnviz decoder-lens`: the logit lens (every layer's next-token prediction at every position:
CSV or JSON rows, or a layer × position grid as png/svg/pdf/html) and DecoderLens (what a translator's decoder writes
from each encoder layer: JSON, or a layer × step grid of the tokens written coloured by their probability)."""

from __future__ import annotations

import csv
import io
import json

from attnviz.cli.messages import quiet_libraries
from attnviz.cli.outputs import output_format
from attnviz.cli.request import Request
from attnviz.export.figure_file import write_figure_file
from attnviz.export.files import refuse_existing, write_atomic
from attnviz.figures.lens import decoder_lens_grid, logit_lens_figures
from attnviz.figures.style import FigureStyle
from attnviz.measures.decoder_lens import decoder_lens
from attnviz.measures.lens_results import LogitLens, decoder_lens_rows, logit_lens_rows
from attnviz.measures.logit_lens import logit_lens
from attnviz.model import load as models

FIGURES = ("png", "svg", "pdf", "html")
WRITTEN_TOKENS = 32  # what a translator may write when no --target (or --generate N) says otherwise


def run_lens(request: Request) -> int:
    fmt = output_format(request, ("csv", "json", *FIGURES), None)
    refuse_existing(request.output, request.force)  # before the model loads
    quiet_libraries()
    handle = models.load_model(request.model, device=request.device)
    lens = logit_lens(
        handle,
        request.text,
        target=request.target,
        top_k=request.top_k,
        max_new_tokens=request.generate or WRITTEN_TOKENS,
        truncate=request.truncate,
    )
    if fmt in FIGURES:
        grid, _ = logit_lens_figures(lens, FigureStyle(lang=request.lang, model=handle.name))
        _write_figure(request, grid, fmt, "logit-lens", lens.provenance)
    elif fmt == "csv":
        write_atomic(request.output, _csv(logit_lens_rows(lens)), overwrite=request.force)
    else:
        write_atomic(request.output, _json(_lens_document(lens)), overwrite=request.force)
    return 0


def run_decoder_lens(request: Request) -> int:
    fmt = output_format(request, ("json", *FIGURES), None)
    refuse_existing(request.output, request.force)
    quiet_libraries()
    handle = models.load_model(request.model, device=request.device)
    lens = decoder_lens(
        handle,
        request.text,
        max_new_tokens=request.generate or WRITTEN_TOKENS,
        num_beams=request.beams,
        truncate=request.truncate,
    )
    if fmt in FIGURES:
        _write_figure(
            request,
            decoder_lens_grid(lens, FigureStyle(lang=request.lang, model=lens.model)),
            fmt,
            "decoder-lens",
            lens.provenance,
        )
    else:
        document = {"model": lens.model, "layers": decoder_lens_rows(lens), "provenance": lens.provenance}
        write_atomic(request.output, _json(document), overwrite=request.force)
    return 0


def _write_figure(request: Request, figure, fmt: str, view: str, provenance: dict) -> None:
    write_figure_file(
        request.output,
        figure,
        fmt,
        view,
        overwrite=request.force,
        recorded={"lens": provenance},
        engine=request.engine,
    )


def _lens_document(lens: LogitLens) -> dict:
    return {
        "model": lens.model,
        "kind": lens.kind,
        "layers": lens.layer_names,
        "tokens": [token.text for token in lens.tokens],
        "source_tokens": None if lens.source_tokens is None else [token.text for token in lens.source_tokens],
        "rows": logit_lens_rows(lens),
        "provenance": lens.provenance,
    }


def _json(document: dict) -> str:
    return json.dumps(document, ensure_ascii=False, indent=1, default=str) + "\n"


def _csv(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
