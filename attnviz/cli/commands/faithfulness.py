"""`attnviz faithfulness`: every measure scored on one input (`attnviz.measures.faithfulness`), its verdict and, for a
translation, the detached-translation flag, written as scores (CSV with NAME.header.json beside it, or JSON) or as
the scoreboard figure (PNG, SVG, PDF, HTML) with its provenance. The verdict is printed."""

from __future__ import annotations

import json

from attnviz.cli.messages import quiet_libraries
from attnviz.cli.request import Request
from attnviz.errors import InputError
from attnviz.export import csv_header_path
from attnviz.export.faithfulness_file import FORMATS, scores_bytes, scores_header
from attnviz.export.figure_file import write_figure_file
from attnviz.export.files import refuse_existing, write_atomic
from attnviz.figures.faithfulness import scoreboard_figure
from attnviz.figures.style import FigureStyle
from attnviz.maps.detachment import detachment_lines
from attnviz.maps.faithfulness_verdict import verdict, verdict_sentence
from attnviz.measures.detached import detachment
from attnviz.measures.faithfulness import faithfulness
from attnviz.model import load as models

FIGURES = ("png", "svg", "pdf", "html")


def run(request: Request) -> int:
    fmt = request.format or request.output.suffix.lower().lstrip(".")
    if fmt not in (*FORMATS, *FIGURES):
        suffixes = " ".join(f".{name}" for name in (*FORMATS, *FIGURES))
        raise InputError("cli_format_unknown", path=str(request.output), suffixes=suffixes)
    paths = [request.output, csv_header_path(request.output)] if fmt == "csv" else [request.output]
    for path in paths:  # before any work
        refuse_existing(path, request.force)
    measures = None if request.measures is None else list(request.measures)
    quiet_libraries()
    handle = models.load_model(request.model, device=request.device)
    board = faithfulness(
        handle,
        request.text,
        request.target,
        row=request.row,
        measures=[name for name in measures or () if name] or None,
        random_count=request.random_orders,
        seed=request.seed,
    )
    found = verdict(board)
    target = board.provenance.get("target_text")
    detached = detachment(handle, request.text, target) if handle.is_seq2seq else None
    if fmt in FIGURES:
        figure = scoreboard_figure(board, found, style=FigureStyle(lang=request.lang, model=handle.name))
        recorded = {"verdict": found.reason, "ranking": found.ranking}
        write_figure_file(
            request.output, figure, fmt, "faithfulness", request.force, provenance=board.provenance, recorded=recorded
        )
    else:
        written = scores_bytes(board, found, fmt, detached, request.lang)
        write_atomic(request.output, written, overwrite=request.force)
        if fmt == "csv":
            header = {**scores_header(board, found, detached, request.lang), "table_file": request.output.name}
            write_atomic(paths[1], json.dumps(header, ensure_ascii=False, indent=1), overwrite=request.force)
    print(verdict_sentence(found, request.lang))
    if detached is not None:
        print(detachment_lines(detached, request.lang)[0])
    print(request.output)
    return 0
