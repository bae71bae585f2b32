"""`attnviz capture`: write the captured attention of each example (json, npz or csv, with its provenance)."""

from __future__ import annotations

from pathlib import Path

from attnviz import export, i18n
from attnviz.cli.batch import each_example
from attnviz.cli.inputs import Example
from attnviz.cli.messages import warning
from attnviz.cli.request import Request

FORMATS = ("json", "npz", "csv")


def run(request: Request) -> int:
    return each_example(request, FORMATS, "json", write)


def write(result, request: Request, handle, example: Example, path: Path | None, fmt: str) -> Path:
    """Write one example's capture to `path` (None: a file in the --output folder named after what it holds); a file
    too large for the app's "Open a capture" page is said."""
    if not result.is_complete:  # a long text, captured on demand: the file holds every weight all the same
        result = result.to_capture()
    path = path or request.output / export.capture_filename(result, fmt)
    saved = export.save_capture(result, path, fmt, overwrite=request.force)
    limit = export.UploadLimits().max_bytes
    if saved.stat().st_size > limit and fmt != "csv":  # a CSV is for reading, never opened by the app
        size, most = f"{saved.stat().st_size / 2**20:,.0f} MB", f"{limit / 2**20:.0f} MB"
        said = i18n.t("cli.capture_too_large", request.lang, size=size, limit=most, format=fmt)
        warning(said, example.number, request)
    return saved
