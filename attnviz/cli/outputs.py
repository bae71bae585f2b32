"""Where a command's files go and in which format: one file named by --output (its suffix the format), or a
folder of files numbered by --input line or named after what they hold; existing files are kept unless --force."""

from __future__ import annotations

from pathlib import Path

from attnviz.cli.inputs import Example
from attnviz.cli.request import Request
from attnviz.errors import InputError
from attnviz.export import csv_header_path, figure_filename

FILE_FORMATS = ("png", "svg", "pdf", "html", "json", "npz", "csv")  # every format a command writes


def output_format(request: Request, allowed: tuple[str, ...], default: str | None) -> str:
    suffix = request.output.suffix.lower().lstrip(".")
    suffix = "html" if suffix == "htm" else suffix
    one_file = request.input is None and not request.output.is_dir()
    chosen = request.format or suffix
    if one_file and suffix in FILE_FORMATS and (chosen != suffix or chosen not in allowed):  # x.png holding JSON
        raise InputError("cli_format_suffix", path=str(request.output), format=request.format or default or allowed[0])
    if request.format:
        return request.format
    if request.input is None and suffix in allowed and not request.output.is_dir():
        return suffix
    if request.input is None and default is None and not request.output.is_dir():
        raise InputError("cli_format_unknown", path=str(request.output), suffixes=" ".join(f".{s}" for s in allowed))
    return default or allowed[0]


def example_filename(request: Request, example: Example, fmt: str) -> str:
    """An --input example's file name: its line number (files stay in input order, and two examples of one text stay
    apart), then what it holds, as the app names its downloads: "0003_alignment_demo-zh-en_早上好.png"."""
    holds = "capture" if request.command == "capture" else request.view
    return f"{example.number:04d}_{figure_filename(holds, fmt, model=request.model, text=example.text)}"


def output_paths(request: Request, examples: list[Example], fmt: str) -> list[Path | None]:
    """Where each example goes (None: in the --output folder, named after what it holds once that is known);
    refuses (before any work) to replace files without --force."""
    if request.input is None:
        if request.output.is_dir():  # the file's name says what it holds, known once it is drawn; checked as written
            return [None]
        paths = [request.output]
    else:
        if request.output.exists() and not request.output.is_dir():
            raise InputError("cli_output_is_a_file", path=str(request.output))
        if not request.output.exists() and request.output.suffix.lower().lstrip(".") in FILE_FORMATS:
            raise InputError("cli_output_named_as_a_file", path=str(request.output), format=fmt)
        paths = [request.output / example_filename(request, example, fmt) for example in examples]
    headers = [csv_header_path(p) for p in paths] if fmt == "csv" else []  # a CSV's header is written beside it
    existing = [p for p in [*paths, *headers] if p.exists()]
    if existing and not request.force:
        if len(existing) == 1:
            raise InputError("cli_output_exists", path=str(existing[0]))
        raise InputError("cli_outputs_exist", path=str(existing[0]), more=len(existing) - 1)
    return paths
