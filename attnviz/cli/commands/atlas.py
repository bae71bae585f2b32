"""`attnviz atlas`: the long-context atlas of one text (`attnviz.atlas.capture_atlas`), with a progress bar per
attention call, written as an `.npz` (block maps, statistics, tokens, provenance; the queries, keys and LSE that
reopen windows, unless --no-windows) or as a poster of every head's block map (png, svg, pdf)."""

from __future__ import annotations

import sys

from tqdm import tqdm

from attnviz import i18n
from attnviz.atlas import capture_atlas
from attnviz.cli.inputs import input_bytes
from attnviz.cli.messages import PROG, quiet_libraries
from attnviz.cli.request import Request
from attnviz.errors import InputError
from attnviz.export.atlas_file import save_atlas
from attnviz.export.figure_file import write_figure_file
from attnviz.export.files import format_of, refuse_existing
from attnviz.figures.atlas import atlas_poster
from attnviz.figures.style import FigureStyle
from attnviz.model import load as models
from attnviz.model.memory import format_bytes
from attnviz.types import map_specs, missing_map

FORMATS = ("npz", "png", "svg", "pdf")


def run(request: Request) -> int:
    fmt = format_of(request.output, request.format, FORMATS)
    refuse_existing(request.output, request.force)  # before the model loads
    text = _text(request)
    quiet_libraries()
    handle = models.load_model(request.model, device=request.device)
    kinds = [spec.kind for spec in map_specs(handle.is_seq2seq, request.target is not None)]
    kind = request.kind or kinds[0]
    if kind not in kinds:  # before the long run
        raise missing_map(kind, kinds)
    bar = _Progress(request.quiet)
    try:
        atlas = capture_atlas(
            handle,
            text,
            request.target,
            block=request.block,
            sink=request.sink,
            keep_inputs=request.windows and fmt == "npz",
            truncate=request.truncate,
            progress=bar.update,
        )
    finally:
        bar.close()
    amap = atlas[kind]
    if fmt == "npz":
        save_atlas(request.output, atlas.atlas, atlas.window_inputs() if request.windows else None, request.force)
    else:
        style = FigureStyle(lang=request.lang, model=handle.name)
        poster = atlas_poster(amap, style=style)
        options = {"kind": kind, "block": request.block, "sink": request.sink}
        write_figure_file(
            request.output,
            poster,
            fmt,
            "atlas",
            overwrite=request.force,
            recorded=options,
            engine=request.engine,
            provenance=atlas.atlas.provenance,
        )
    _say(request, atlas, amap, fmt)
    return 0


class _Progress:
    """A bar of attention calls on stderr, started at the first call (a refusal before it prints no bar)."""

    def __init__(self, quiet: bool):
        self.quiet, self.bar = quiet, None

    def update(self, done: int, total: int) -> None:
        if self.quiet:
            return
        if self.bar is None:
            self.bar = tqdm(desc=PROG, total=total, unit="layer", file=sys.stderr)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _text(request: Request) -> str:
    """The one text: --text, or the whole --input file (UTF-8)."""
    if request.input is None:
        return request.text
    data = input_bytes(request.input)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError("cli_input_not_text", path=str(request.input), detail=str(error)) from None
    if not text.strip():
        raise InputError("cli_input_empty", path=str(request.input))
    return text


def _say(request: Request, atlas, amap, fmt: str) -> None:
    lang = request.lang
    said = i18n.t(
        "cli.atlas_done",
        lang,
        layers=amap.num_layers,
        heads=amap.num_heads,
        tokens=len(amap.query_tokens),
        block=amap.block,
        path=request.output,
    )
    print(said)
    if fmt == "npz" and request.windows:
        print(i18n.t("cli.atlas_windows", lang, size=format_bytes(atlas.window_bytes)))
    refused = sorted({entry["refused"] for entry in atlas.atlas.provenance["routes"] if "refused" in entry})
    if refused:
        print(f"{PROG}: warning: " + i18n.t("cli.atlas_fell_back", lang, routes=", ".join(refused)), file=sys.stderr)
