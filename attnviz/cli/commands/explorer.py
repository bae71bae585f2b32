"""`attnviz explorer`: one self-contained HTML file holding every layer and head of one input (each map, both word
views, both languages, a few weakest links; measures when asked), in which a reader picks what the app's controls
pick (`attnviz.export.explorer_file`). Its size is said before it is written."""

from __future__ import annotations

import sys
from dataclasses import replace

from tqdm import tqdm

from attnviz.cli.batch import capture
from attnviz.cli.inputs import examples
from attnviz.cli.messages import PROG, quiet_libraries
from attnviz.cli.options import check
from attnviz.cli.request import Request, placement_options
from attnviz.export.explorer_file import THRESHOLDS, ExplorerContent, check_plan, explorer_file
from attnviz.export.files import refuse_existing, write_atomic
from attnviz.measuring import measured
from attnviz.model import load as models


def content_of(request: Request) -> ExplorerContent:
    """What the file holds, as the request asks (checked: a bad choice is the one-line exit 2)."""
    return ExplorerContent(
        kinds=request.kinds,
        measures=request.measures or (),
        words=(True, False) if request.subwords else (True,),
        langs=request.languages or ExplorerContent.langs,
        thresholds=request.thresholds or THRESHOLDS,
    ).checked()


def run(request: Request) -> int:
    check(request)
    content = content_of(request)
    refuse_existing(request.output, request.force)  # before the model runs
    quiet_libraries()
    handle = models.load_model(request.model, device=request.device, **placement_options(request))
    result = capture(handle, examples(request)[0], request)
    check_plan(result, {}, replace(content, measures=()))  # the weights' figures alone too many: before measures run
    target = result.target_text if handle.is_seq2seq else None
    measures = {
        name: measured(handle, result.source_text, target or None, measure=name, truncate=request.truncate)
        for name in content.measures
    }
    with tqdm(total=0, desc=PROG, unit="figure", file=sys.stderr, disable=request.quiet) as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        made = explorer_file(result, handle.alignment_heads, measures, content, request.lang, progress=progress)
    print(f"{request.output.name}: {made.megabytes:.1f} MB, {made.figures} figures", file=sys.stderr)
    print(write_atomic(request.output, made.data, overwrite=request.force))
    return 0
