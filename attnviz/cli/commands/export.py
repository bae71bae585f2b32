"""`attnviz export`: draw the app's figure of each example for the request's view options, written as the app's
download buttons write it (`attnviz.export.figure_file`); gold links, when given, drawn over an alignment and scored."""

from __future__ import annotations

import functools
import sys
import warnings
from pathlib import Path

from attnviz import export, i18n
from attnviz.cli.batch import each_example
from attnviz.cli.inputs import Example
from attnviz.cli.messages import PROG, warning, where
from attnviz.cli.options import size_options, view_options
from attnviz.cli.request import Request
from attnviz.corpus.view import gold_record, reading_prefix, reverse_texts, reverse_view, show_gold
from attnviz.export.figure_file import write_figure_file
from attnviz.figures.common import format_value
from attnviz.figures.text_fit import as_file
from attnviz.measures import names as measure_view
from attnviz.model import load as models
from attnviz.run import RunRequest
from attnviz.run import run as run_model
from attnviz.text import caveats
from attnviz.view import selection

FORMATS = ("png", "svg", "pdf", "html")


def run(request: Request) -> int:
    compute = _measured if request.measure in measure_view.CONTRIBUTIONS else None  # else: the capture
    return each_example(request, FORMATS, None if request.input is None else "png", write, compute=compute)


def _measured(handle, example: Example, request: Request):
    """The --measure of one example, as the app's Measure choice computes it (`attnviz.measuring.measured`)."""
    from attnviz.measuring import measured  # torch: only when a measure is drawn, not for --help

    return measured(handle, example.text, example.target, measure=request.measure, truncate=request.truncate)


def write(result, request: Request, handle, example: Example, path: Path | None, fmt: str) -> Path:
    """Write one example's figure, with its provenance, to `path` (None: a file in the --output folder named after
    what it holds); returns where it went. Warnings of the export are said as the command's warning lines."""
    drawn, options, heads, scored = _drawn(result, request, handle, example.gold)
    if scored:  # on stderr: stdout names the files written
        print(f"{PROG}: {where(example.number, request)}{scored}", file=sys.stderr)
    if path is None:
        path = request.output / export.figure_filename(request.view, fmt, model=handle.name, text=example.text, **heads)
    size = size_options(request)
    drew_gold = example.gold if request.view == "alignment" else None
    recorded = gold_record(drew_gold, request.reverse_model)  # the gold links drawn, if any
    with warnings.catch_warnings(record=True) as caught:  # said as the command's warning lines, in --lang
        warnings.simplefilter("always")
        written = write_figure_file(
            path,
            drawn,
            fmt,
            request.view,
            overwrite=request.force,
            capture=result,
            provenance=None if result.is_complete else result.provenance,  # on demand: recorded when it was made
            options=options,
            recorded=recorded,
            size=size,
            engine=request.engine,
        )
    for caught_warning in caught:
        message = caught_warning.message
        said = message.sentence(request.lang) if isinstance(message, export.SmallLabels) else str(message)
        warning(said, example.number, request)
    return written


def figure(result, request: Request, handle, gold: str | None = None):
    """The figure of one example: the app's figure for these options, as its download buttons write it (the model
    named in the title); `gold` links drawn over an alignment as the app draws them."""
    return _drawn(result, request, handle, gold)[0]


def _drawn(result, request: Request, handle, gold: str | None = None) -> tuple:
    """(the figure as `figure` gives it, the options it shows, its file name's layer and head parts, the line that
    scores it against the gold links, or None)."""
    asked = view_options(request, result)
    drawn_from, options = selection.view_capture(result, asked)  # a long text: only the heads the view reads
    shown = selection.show(drawn_from, options, handle.alignment_heads, (request.view,))
    scored = None
    if gold and request.view == "alignment":  # gold links are drawn over the alignment only (options.ignored_options)
        reverse = _reverse_view(request, result)
        against = show_gold(drawn_from, shown, options, gold, reverse)
        shown, scored = against.shown, _gold_line(against, options.lang)
    heads = shown.selection.file_heads()
    return as_file(shown.figures[request.view], handle.name), asked, heads, scored


def _gold_line(against, lang: str) -> str:
    """The app's precision · recall · AER line of the view against the gold links."""
    scores, view = against.scores.scores, against.scores
    return i18n.t(
        "corpus_gold_line",
        lang,
        precision=format_value(scores.precision),
        recall=format_value(scores.recall),
        aer=format_value(scores.aer),
        found=len(view.found),
        missed=len(view.missed),
        extra=len(view.extra),
    )


def _reverse_view(request: Request, result):
    """With --reverse-model: that model's alignment view of the pair read the other way (loaded once per run)."""
    if not request.reverse_model:
        return None
    handle = _loaded_model(request.reverse_model, request.device)
    source, target = reverse_texts(result)
    lang = request.lang
    said = caveats.language_sentence(source, handle.name, models.source_languages(handle), lang)
    said = said or caveats.language_sentence(
        target, handle.name, models.target_languages(handle), lang, key="truth_writes_mismatch"
    )
    if said:  # a reverse model of the same direction, or of other languages: its links say little
        print(f"{PROG}: warning: --reverse-model: {said}", file=sys.stderr)
    backward = run_model(handle, RunRequest(source, target))
    return reverse_view(backward, handle.alignment_heads, reading_prefix(result))


@functools.cache
def _loaded_model(name: str, device: str):
    return models.load_model(name, device=device)
