"""`attnviz compare`: A and B (two texts, two models or two devices) read, compared head by head
(`attnviz.compare`), and written: the ranking as CSV (kind, layer, head, layer_b, head_b, js), or a figure (--figure): the
diff A − B, or A's and B's alignment diagrams side by side, laid out alike (`attnviz.compare.side_by_side`).
Stdout says the most changed head, and for one input read twice (two devices, or B in half precision with
--dtype-b) the parity numbers."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from attnviz import compare, figures, i18n
from attnviz.cli.messages import quiet_libraries
from attnviz.cli.request import Request
from attnviz.errors import InputError
from attnviz.export.figure_file import write_figure_file
from attnviz.export.files import refuse_existing, write_atomic
from attnviz.figures.text_fit import as_file, exported_title
from attnviz.model import load as models
from attnviz.model.catalogue import declared_languages
from attnviz.run import RunRequest
from attnviz.run import run as run_model
from attnviz.types import position
from attnviz.view import selection, viewing

TABLE, FIGURES = ("csv",), ("png", "svg", "pdf", "html", "json")  # json: the plotly figure


def run(request: Request) -> int:
    fmt = _format(request.output, request.figure)  # every check before any model loads
    refuse_existing(request.output, request.force)
    model_b = request.model_b or request.model
    text_b = request.text if request.text_b is None else request.text_b
    compare.check_text_b(text_b, model_b, declared_languages(model_b))
    _check_dtype_b(request)
    quiet_libraries()
    handle_a = models.load_model(request.model, device=request.device)
    handle_b = _model_b(request, handle_a)
    result_a = run_model(handle_a, RunRequest(request.text, request.target, truncate=request.truncate))
    target_b = (request.target_b or request.target) if handle_b.is_seq2seq else None
    result_b = run_model(handle_b, RunRequest(text_b, target_b, truncate=request.truncate))
    # by default heads are paired when the models differ: one model's heads are numbered alike on any device
    same_model = (handle_a.path or handle_a.name) == (handle_b.path or handle_b.name)  # two folders may share a name
    pair_heads = request.pair_heads if request.pair_heads is not None else not same_model
    compared = compare.compare_captures(
        result_a,
        result_b,
        request.kind,
        request.kind_b,
        weighting=request.weighting,
        hide_special=request.hide_special,
        pair_heads=pair_heads,
    )
    _say(compared, result_a, result_b, request)
    if fmt in TABLE:
        write_atomic(request.output, _csv(compared), overwrite=request.force)
    else:
        dtype_b = request.dtype_b or "float32"
        recorded = {"compare": {"model_b": handle_b.name, "text_b": text_b, "target_b": target_b, "dtype_b": dtype_b}}
        picked = _picked(compared, request)
        if request.figure == "sides":
            figure, options, options_b = _sides(compared, result_a, result_b, (handle_a, handle_b), picked, request)
            recorded["compare"]["options_b"] = selection.recorded_options(options_b)
        else:
            figure, options = _figure(compared, picked, request, f"{handle_a.name} · {handle_b.name}"), None
        write_figure_file(
            request.output,
            figure,
            fmt,
            "compare" if request.figure == "diff" else "compare-sides",
            request.force,
            capture=result_a,
            options=options,
            recorded=recorded,
            engine=request.engine,
        )
    print(request.output)
    return 0


def _format(output: Path, figure: str) -> str:
    fmt = output.suffix.lower().lstrip(".")
    if fmt not in TABLE + FIGURES:
        raise InputError("compare_format", path=str(output), formats=", ".join(f".{f}" for f in TABLE + FIGURES))
    if fmt in TABLE and figure != "diff":  # the ranking has no figure: a --figure asked for wants a figure's file
        raise InputError("compare_figure_table", path=str(output), figure=figure, formats=", ".join(FIGURES))
    return fmt


def _check_dtype_b(request: Request) -> None:
    """--dtype-b refused before any model loads where B's device cannot run it (a comparison of precisions: the CPU
    runs half precision too)."""
    if request.dtype_b is None:
        return
    from attnviz.model.devices import resolve_device  # torch: only when B asks for a dtype
    from attnviz.model.precision import dtype_policy  # torch: only when B asks for a dtype

    dtype_policy(resolve_device(request.device_b or request.device), request.dtype_b, compared=True)


def _model_b(request: Request, handle_a):
    """Model B: model A itself when neither --model-b, --device-b nor --dtype-b names another."""
    name, device = request.model_b or request.model, request.device_b or request.device
    if name == request.model and device == request.device and request.dtype_b is None:
        return handle_a
    return models.load_model(name, device=device, dtype=request.dtype_b, compared=request.dtype_b is not None)


def _say(compared: compare.Comparison, result_a, result_b, request: Request) -> None:
    """The most changed head on stdout; the parity numbers too when A and B read the same tokens."""
    top = compared.ranking()[0]
    said = dict(layer=top.layer, head=top.head, layer_b=top.layer_b, head_b=top.head_b, js=top.divergence)
    print(i18n.t("compare_top", request.lang, **said))
    kind_b = request.kind_b or (compared.kind if compared.kind in result_b.kinds else None)
    map_a, map_b = result_a[compared.kind], result_b[kind_b] if kind_b else None
    if map_b is not None and map_a.query_tokens == map_b.query_tokens and map_a.key_tokens == map_b.key_tokens:
        report = compare.parity(map_a, map_b)
        said = dict(max=report.max_difference, layer=report.worst_layer, head=report.worst_head)
        print(i18n.t("compare_parity", request.lang, rows=report.row_sum_error, **said))


def _csv(compared: compare.Comparison) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=("kind", "layer", "head", "layer_b", "head_b", "js"), lineterminator="\n")
    writer.writeheader()
    writer.writerows(compared.table())
    return out.getvalue()


def _picked(compared: compare.Comparison, request: Request) -> tuple[int | None, int | None]:
    """(layer, head) positions in A's map that --layer/--head pick (None: the mean of all)."""
    layers, heads = compared.diff.shape[:2]
    layer = None if request.layer is None else position(_whole(request.layer, "layer"), layers, "layer")
    head = None if request.head is None else position(_whole(request.head, "head"), heads, "head")
    return layer, head


def _figure(compared: compare.Comparison, picked: tuple, request: Request, models_named: str):
    """The diff heatmap of the picked layer and head (`_picked`)."""
    view, said = compared.diff_view(*picked), compared.heads_said(*picked, request.lang)
    style = figures.FigureStyle(lang=request.lang)
    drawn = (view.values, view.row_labels, view.col_labels, view.row_status, view.col_status)
    return as_file(figures.diff_heatmap(*drawn, kind=compared.kind, selection=said, style=style), models_named)


def _sides(compared: compare.Comparison, result_a, result_b, handles: tuple, picked: tuple, request: Request):
    """(A's and B's alignment diagrams of the picked heads side by side in one figure, A's options, B's options):
    laid out alike as the Compare page draws them (`compare.side_by_side`), each titled with its model."""
    base = viewing.ViewOptions(weighting=request.weighting, hide_special=request.hide_special, lang=request.lang)
    options_a, options_b = compare.side_options(compared, result_b, base, *picked)
    heads = [handle.alignment_heads for handle in handles]
    drawn = compare.side_by_side(result_a, result_b, options_a, options_b, *heads)
    said = [
        exported_title(
            shown.figures["alignment"].layout.title.text or "",
            i18n.t("compare_side", request.lang, side=side, model=handle.name),
        )
        for side, shown, handle in zip("AB", (drawn.a, drawn.b), handles)
    ]
    title = f"{i18n.t('compare_alignments', request.lang)}<br><sup>{compared.heads_said(*picked, request.lang)}</sup>"
    figure = figures.beside(drawn.a.figures["alignment"], drawn.b.figures["alignment"], title, tuple(said))
    return figure, options_a, options_b


def _whole(value: str, what: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise InputError("compare_index", option=what, value=value) from None
