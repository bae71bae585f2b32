"""Files out of attnviz: figures as PNG/SVG/PDF/HTML, captures as JSON/NPZ/CSV — every write atomic.

Figures
-------
`figure_bytes(fig, "png" | "svg" | "pdf" | "html", ...)`, `export_figure(fig, path, ...)`. Two engines draw
PNG/SVG/PDF, each a `render(fig, fmt, *, width, height, scale) -> bytes` chosen by name (`RENDERERS`):
- "kaleido" (`attnviz.export.kaleido`): plotly's own renderer in headless Chrome/Chromium — pixel for pixel what
  the app shows. Needs a browser (Debian: `apt install chromium`; or `plotly_get_chrome`; or BROWSER_PATH).
- "static" (`attnviz.export.static`): matplotlib drawing the same figure (same tokens, values, colour scale and
  title) with the packaged Noto Sans SC. Needs nothing but pip packages.
"auto" (default, or the export_engine setting) uses kaleido for PNG where a browser is found, static when there is
none or it fails (or overruns its time: `kaleido.START_TIMEOUT_S`, `RENDER_TIMEOUT_S`), and always static for PDF
and SVG, the formats for print:
- PDF: Chromium (Skia) writes every font as Type 3, which paper-submission checkers flag, and its ToUnicode maps some
  CJK glyphs to look-alike Kangxi radicals (目 → ⽬, 力 → ⼒), so copied or searched Chinese is wrong; a ToUnicode
  repair would still leave Type 3. The static engine embeds a TrueType subset as a CID font: real text, no Type 3.
- SVG: Chromium's SVG names its fonts instead of carrying them (boxes without a CJK font); static SVG holds outlines.
`engine="kaleido"` still draws PDF/SVG in Chromium for whoever wants the screen's exact rendering.
Size: `width`/`height` (plotly px = CSS px, 1/96 in), `scale` (1–4) or `dpi` (96–384) for PNG, or a print `preset`
("single-column": 3.5 in at 300 dpi, "double-column", "slide"): `attnviz.export.sizing`.
Provenance: `provenance=` (a dict, `attnviz.provenance.view_provenance`) is written into the file's metadata
(PNG iTXt, PDF info, SVG <metadata>, HTML <meta>): `attnviz.export.stamp`, read back by `read_stamp`.
HTML is plotly's page with plotly.js and the figure's CJK glyphs inlined: it opens offline (`attnviz.export.page`).
The explorer file holds every figure of one input in one offline page, the view picked by its reader
(`attnviz.export.explorer_file`).
File names that say what a file holds: `figure_filename`, `capture_filename` (`attnviz.export.files`).

Captures
--------
`save_capture(capture, "c.json")` / `load_capture(path)` (json/npz; csv out): the schema is `attnviz.export.schema`;
a capture's provenance travels with it. Capture bytes from a stranger (an upload): `read_capture_upload` checks them
against `UploadLimits` first (`attnviz.export.upload`). Atomic writes: `attnviz.export.files`.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from attnviz import i18n, settings
from attnviz.errors import AttnvizError, InputError
from attnviz.export import kaleido, static
from attnviz.export.files import (
    DATA_FORMATS,
    FIGURE_FORMATS,
    MAX_NAME_BYTES,
    capture_filename,
    figure_filename,
    format_of,
    refuse_existing,
    safe_filename,
    write_atomic,
)
from attnviz.export.page import figure_html
from attnviz.export.schema import (
    CSV_COLUMNS,
    SCHEMA,
    SCHEMA_VERSION,
    as_capture,
    capture_bytes,
    capture_from_dict,
    capture_from_npz,
    capture_to_csv,
    capture_to_dict,
    capture_to_json,
    capture_to_npz,
    csv_header_path,
    load_capture,
    save_capture,
)
from attnviz.export.sizing import MAX_SIDE, PRESETS, ExportSize, PrintPreset, resolve_size
from attnviz.export.stamp import read_stamp, stamp
from attnviz.export.upload import UploadLimits, read_capture_upload
from attnviz.figures import layout

RENDERERS = {"kaleido": kaleido.render, "static": static.render}  # engine name -> render(fig, fmt, ...) -> bytes
ENGINES = settings.EXPORT_ENGINES  # "auto" and the RENDERERS, as the export_engine setting accepts them
ENGINE_ENV = settings.variable("export_engine")
PRINT_FORMATS = ("pdf", "svg")  # drawn by the static engine under "auto" (see the module docstring)
LEGIBLE_LABEL_PX = 6.0  # 4.5 pt in print (a px is 1/96 in): smaller token labels are a grey blur on paper


class SmallLabels(UserWarning):
    """An exported figure's token labels stand smaller than `LEGIBLE_LABEL_PX`: `size` px, to fit `tokens` labels on
    a line of a figure `width` px wide. `sentence(lang)` says it in the UI language."""

    def __init__(self, size: float, tokens: int, width: int):
        self.size, self.tokens, self.width = size, tokens, width
        super().__init__(self.sentence("en"))

    def sentence(self, lang: str = "en") -> str:
        return i18n.t(
            "export.small_labels",
            lang,
            size=f"{self.size:.1f}",
            points=f"{self.size * 0.75:.1f}",
            tokens=self.tokens,
            width=self.width,
        )


def _warn_if_illegible(fig, width: int) -> None:
    illegible = _illegible(layout.smallest_labels(fig), width)
    if illegible is not None:
        warnings.warn(illegible, stacklevel=4)


def _illegible(smallest: tuple[float, int] | None, width: int) -> SmallLabels | None:
    """The warning a file `width` px wide gets when its smallest token labels (`layout.smallest_labels`: size px,
    count) stand below `LEGIBLE_LABEL_PX`, else None."""
    if smallest is None or smallest[0] >= LEGIBLE_LABEL_PX:
        return None
    return SmallLabels(smallest[0], smallest[1], width)


def resolve_engine(engine: str = "auto", fmt: str = "png") -> str:
    """ "kaleido" or "static" for a requested engine and format (see the module docstring for what "auto" picks)."""
    if engine not in ENGINES:
        raise InputError("export_engine_unknown", engine=engine, engines=", ".join(ENGINES))
    if engine == "auto":
        engine = settings.current().export_engine  # a value the setting refuses is a SettingError there
    if engine == "auto":
        return "kaleido" if fmt not in PRINT_FORMATS and kaleido.browser_path() else "static"
    if engine == "kaleido" and not kaleido.browser_path():
        raise AttnvizError("export_needs_browser")
    return engine


def _render(fig, fmt: str, engine: str, size: ExportSize) -> bytes:
    """The figure drawn by the engine asked for; under "auto", by the static engine when Chromium fails."""
    requested = engine
    engine = resolve_engine(engine, fmt)
    width, height = size.of(fig)
    if engine == "kaleido":
        try:
            return RENDERERS["kaleido"](fig, fmt, width=width, height=height, scale=size.scale)
        except Exception as error:  # noqa: BLE001 - any browser failure: say so, and draw without it when allowed
            if requested == "kaleido" or settings.current().export_engine == "kaleido":
                raise AttnvizError("export_chromium_failed", detail=str(error)) from error
            warnings.warn(f"kaleido failed ({error}); exporting with the static engine instead.", stacklevel=3)
    return RENDERERS["static"](fig, fmt, width=width, height=height, scale=size.scale)


def _fitted(fig, size: ExportSize, height: int | None) -> tuple:
    """The figure laid out again for the width it is exported at, and the size to draw it at
    (`attnviz.figures.layout.fit_to_width`: an alignment's labels planned for that width, a heatmap's ticks thinned
    for it, a title too wide for it broken into lines; the height what they need unless a `height` was asked for)."""
    if size.width is None:  # the figure's own width: an alignment's labels planned for it (the page's may be less)
        laid = layout.fit_alignment(fig, size.of(fig)[0], size.height)
        _warn_if_illegible(laid, size.of(laid)[0])
        return laid, size
    width, own_height = size.of(fig)
    titled, drawn_height = layout.fit_to_width(fig, width, height, own_height)
    _warn_if_illegible(titled, width)
    fitted = ExportSize(width, min(drawn_height, MAX_SIDE), size.scale)
    fitted.of(titled)  # the pixel budget, for the size it is drawn at
    return titled, fitted


def small_labels(fig, **size_options) -> SmallLabels | None:
    """What an export of `fig` at that size (`figure_bytes`'s size options) would warn of its token labels, or None:
    checked without drawing, for a page to say beside its download buttons."""
    size = resolve_size(fig, **size_options)
    width = size.of(fig)[0]
    height = size.height if size.width is None else size_options.get("height")  # as `_fitted` lays it out
    return _illegible(layout.file_labels(fig, width, height), width)


def figure_bytes(
    fig,
    fmt: str = "png",
    *,
    engine: str = "auto",
    width: int | None = None,
    height: int | None = None,
    scale: float | None = None,
    dpi: float | None = None,
    preset: str | None = None,
    provenance: dict | None = None,
) -> bytes:
    """The figure as PNG, SVG, PDF or HTML bytes.

    Size (`attnviz.export.sizing.resolve_size`): `width`/`height` in plotly px default to the figure's; `scale` (1–4)
    or `dpi` (96–384) sets PNG resolution; `preset` ("single-column", "double-column", "slide") sets a printed width
    and dpi. `provenance` (a dict) is written into the file's metadata. See the module docstring for the engines.
    """
    fmt = fmt.lower()
    if fmt not in FIGURE_FORMATS:
        raise InputError("export_figure_format", fmt=fmt, formats=", ".join(FIGURE_FORMATS))
    size = resolve_size(fig, preset=preset, width=width, height=height, scale=scale, dpi=dpi)
    if fmt == "html":
        return figure_html(fig, provenance).encode("utf-8")
    fig, size = _fitted(fig, size, height)
    data = _render(fig, fmt, engine, size)
    title = static.plain_text(fig.layout.title.text if fig.layout.title else "").split("\n")[0]
    return stamp(data, fmt, provenance, dpi=size.png_dpi, title=title)


def export_figure(
    fig,
    path: str | os.PathLike,
    fmt: str | None = None,
    *,
    overwrite: bool = False,
    **options,
) -> Path:
    """Write the figure to `path` (format from `fmt` or the suffix: png, svg, pdf, html), atomically. `options`:
    those of `figure_bytes` (engine, width, height, scale, dpi, preset, provenance)."""
    fmt = format_of(path, fmt, FIGURE_FORMATS)
    refuse_existing(path, overwrite)  # fail before spending time rendering
    return write_atomic(path, figure_bytes(fig, fmt, **options), overwrite=overwrite)


__all__ = [
    "CSV_COLUMNS",
    "LEGIBLE_LABEL_PX",
    "SmallLabels",
    "DATA_FORMATS",
    "ENGINES",
    "ENGINE_ENV",
    "ExportSize",
    "FIGURE_FORMATS",
    "MAX_NAME_BYTES",
    "PRESETS",
    "PRINT_FORMATS",
    "PrintPreset",
    "RENDERERS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "UploadLimits",
    "as_capture",
    "capture_bytes",
    "capture_filename",
    "capture_from_dict",
    "capture_from_npz",
    "capture_to_csv",
    "capture_to_dict",
    "capture_to_json",
    "capture_to_npz",
    "csv_header_path",
    "export_figure",
    "figure_bytes",
    "figure_filename",
    "figure_html",
    "format_of",
    "kaleido",
    "load_capture",
    "read_capture_upload",
    "read_stamp",
    "resolve_engine",
    "resolve_size",
    "safe_filename",
    "save_capture",
    "small_labels",
    "stamp",
    "static",
    "write_atomic",
]
