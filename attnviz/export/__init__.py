"""Files out of attnviz: figures as PNG/SVG/PDF/HTML, captures as JSON/NPZ/CSV — every write atomic.

Figures
-------
`figure_bytes(fig, "png" | "svg" | "pdf" | "html")`, `export_figure(fig, path)`. Two engines draw PNG/SVG/PDF, each
a `render(fig, fmt, *, width, height, scale) -> bytes` chosen by name (`RENDERERS`):
- "kaleido" (`attnviz.export.kaleido`): plotly's own renderer in headless Chrome/Chromium — pixel for pixel what
  the app shows. Needs a browser (Debian: `apt install chromium`; or `plotly_get_chrome`; or BROWSER_PATH).
- "static" (`attnviz.export.static`): matplotlib drawing the same figure (same tokens, values, colour scale and
  title) with the packaged Noto Sans SC. Needs nothing but pip packages; SVG text becomes outlines, PDF embeds glyphs.
"auto" (default, or $ATTNVIZ_EXPORT_ENGINE) uses kaleido for PNG and PDF where a browser is found, and static
when there is none or it fails — and always static for SVG: Chromium's SVG names its fonts instead of carrying them,
so Chinese would turn to boxes in a viewer without a CJK font, while static SVG holds the glyph outlines.
HTML is always plotly's page with plotly.js inlined: it opens offline, no CDN.

Captures
--------
`save_capture(capture, "c.json")` / `load_capture(path)` (json/npz; csv out): the schema is `attnviz.export.schema`.
File names and atomic writes: `attnviz.export.files`.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from attnviz.errors import AttnvizError, InputError
from attnviz.export import kaleido, static
from attnviz.export.files import (
    DATA_FORMATS,
    FIGURE_FORMATS,
    MAX_NAME_BYTES,
    format_of,
    refuse_existing,
    safe_filename,
    write_atomic,
)
from attnviz.export.kaleido import figure_html
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
    load_capture,
    save_capture,
)

RENDERERS = {"kaleido": kaleido.render, "static": static.render}  # engine name -> render(fig, fmt, ...) -> bytes
ENGINES = ("auto", *RENDERERS)
ENGINE_ENV = "ATTNVIZ_EXPORT_ENGINE"


def resolve_engine(engine: str = "auto", fmt: str = "png") -> str:
    """ "kaleido" or "static" for a requested engine and format (see the module docstring for what "auto" picks)."""
    if engine not in ENGINES:
        raise InputError(f"Unknown export engine {engine!r}; use one of {', '.join(ENGINES)}.")
    if engine == "auto":
        engine = os.environ.get(ENGINE_ENV, "auto") or "auto"
        if engine not in ENGINES:
            raise InputError(f"{ENGINE_ENV}={engine!r} is not an engine; use one of {', '.join(ENGINES)}.")
    if engine == "auto":
        return "kaleido" if fmt != "svg" and kaleido.browser_path() else "static"
    if engine == "kaleido" and not kaleido.browser_path():
        raise AttnvizError(
            "The kaleido engine needs Chrome or Chromium (e.g. apt install chromium, or set BROWSER_PATH); "
            "engine='static' exports without a browser."
        )
    return engine


def figure_bytes(
    fig,
    fmt: str = "png",
    *,
    engine: str = "auto",
    width: int | None = None,
    height: int | None = None,
    scale: float = 1.0,
) -> bytes:
    """The figure as PNG, SVG, PDF or HTML bytes. `width`/`height` in px default to the figure's; `scale` multiplies
    PNG resolution. See the module docstring for the engines."""
    fmt = fmt.lower()
    if fmt not in FIGURE_FORMATS:
        raise InputError(f"Cannot export a figure as {fmt!r}; use one of {', '.join(FIGURE_FORMATS)}.")
    if fmt == "html":
        return figure_html(fig).encode("utf-8")
    if scale <= 0:
        raise InputError(f"scale must be positive; got {scale}.")
    requested = engine
    engine = resolve_engine(engine, fmt)
    size = dict(width=width, height=height, scale=scale)
    if engine == "kaleido":
        try:
            return RENDERERS["kaleido"](fig, fmt, **size)
        except Exception as error:  # noqa: BLE001 - any browser failure: say so, and draw without it when allowed
            if requested == "kaleido" or os.environ.get(ENGINE_ENV) == "kaleido":
                raise AttnvizError(f"Chromium could not render the figure ({error}); try engine='static'.") from error
            warnings.warn(f"kaleido failed ({error}); exporting with the static engine instead.", stacklevel=2)
    return RENDERERS["static"](fig, fmt, **size)


def export_figure(
    fig,
    path: str | os.PathLike,
    fmt: str | None = None,
    *,
    engine: str = "auto",
    overwrite: bool = False,
    width: int | None = None,
    height: int | None = None,
    scale: float = 1.0,
) -> Path:
    """Write the figure to `path` (format from `fmt` or the suffix: png, svg, pdf, html), atomically."""
    fmt = format_of(path, fmt, FIGURE_FORMATS)
    refuse_existing(path, overwrite)  # fail before spending time rendering
    data = figure_bytes(fig, fmt, engine=engine, width=width, height=height, scale=scale)
    return write_atomic(path, data, overwrite=overwrite)


__all__ = [
    "CSV_COLUMNS",
    "DATA_FORMATS",
    "ENGINES",
    "ENGINE_ENV",
    "FIGURE_FORMATS",
    "MAX_NAME_BYTES",
    "RENDERERS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "as_capture",
    "capture_bytes",
    "capture_from_dict",
    "capture_from_npz",
    "capture_to_csv",
    "capture_to_dict",
    "capture_to_json",
    "capture_to_npz",
    "export_figure",
    "figure_bytes",
    "figure_html",
    "format_of",
    "kaleido",
    "load_capture",
    "resolve_engine",
    "safe_filename",
    "save_capture",
    "static",
    "write_atomic",
]
