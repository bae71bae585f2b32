"""A command over its examples (export and capture): the model loaded once, each example run through the run path
every face shares (`attnviz.run`) and written; with --input, a line that fails is said and skipped."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from tqdm import tqdm

from attnviz import i18n
from attnviz.cli.inputs import Example, examples
from attnviz.cli.messages import PROG, error_phrase, quiet_libraries, warning
from attnviz.cli.options import check
from attnviz.cli.outputs import output_format, output_paths
from attnviz.cli.request import Request, placement_options
from attnviz.errors import AttnvizError
from attnviz.model import load as models
from attnviz.model import long_texts
from attnviz.run import MAX_NEW_TOKENS, RunRequest, run_recorded
from attnviz.text import caveats

Write = Callable[..., Path]  # (capture, request, handle, example, path or None, format) -> the path written
Compute = Callable[..., object]  # (handle, example, request) -> what `write` writes: a capture by default


def each_example(
    request: Request, formats: tuple[str, ...], default: str | None, write: Write, compute: Compute | None = None
) -> int:
    """Check the request, capture every example (or `compute` what it asks for) and `write` it in a format of
    `formats` (`default` when the output does not say one); returns the exit code (2 when an --input line was
    skipped)."""
    compute = compute or capture
    check(request)
    chosen = examples(request)
    fmt = output_format(request, formats, default)
    paths = output_paths(request, chosen, fmt)
    quiet_libraries()
    handle = models.load_model(request.model, device=request.device, **placement_options(request))
    written, skipped = [], 0
    for example, path in _progress(list(zip(chosen, paths)), request):
        try:
            if example.refused is not None:
                raise example.refused
            written.append(write(compute(handle, example, request), request, handle, example, path, fmt))
        except AttnvizError as error:
            if request.input is None:
                raise
            line = type(error)(
                "cli_input_line", line=example.number, path=str(request.input), error=error_phrase(error)
            )
            print(f"{PROG}: error: {line.message(request.lang)}", file=sys.stderr)  # and go on
            skipped += 1
    return _summary(request, written, skipped)


def _summary(request: Request, written: list[Path], skipped: int) -> int:
    """Print what was written (the file, or how many in which folder) and return the exit code."""
    if request.input is None:
        print(written[0])
        return 0
    said_written = i18n.t("cli.written", request.lang, count=len(written), folder=request.output)
    print(said_written + (i18n.t("cli.skipped", request.lang, count=skipped) if skipped else ""))
    return 2 if skipped else 0  # a script sees that not every line was drawn


def run_request(example: Example, request: Request) -> RunRequest:
    """The run of one example: the model writes up to --generate tokens, or reads the text (and --target); whole or
    on demand by the app's rule (`attnviz.run.capture_kind`: a long text is captured on demand)."""
    generate = request.generate is not None
    return RunRequest(
        example.text,
        example.target,
        "generate" if generate else "pair",
        max_new_tokens=request.generate if generate else MAX_NEW_TOKENS,
        num_beams=request.beams,
        truncate=request.truncate,
        capture="auto",
    )


def capture(handle, example: Example, request: Request):
    """One example's capture, with its provenance; what the app says above its figures said as warning lines."""
    _warn_language(handle, example, request)
    result = run_recorded(handle, run_request(example, request))
    if request.generate is not None and not result.is_complete and handle.kind == "decoder":  # read, not continued
        warning(i18n.t("long_not_continued", request.lang), example.number, request)
    for caveat in caveats.caveats(result):
        warning(caveat.sentence(request.lang), example.number, request)
    if request.truncate:
        _warn_truncated(handle, result, example, request)
    return result


def _warn_truncated(handle, result, example: Example, request: Request) -> None:
    """The app's note under a truncated capture: how many tokens it kept of how many, and where it cut."""
    source = "self" if "self" in result.kinds else "encoder"
    kept = long_texts.truncation(result.tokens(source)[1], long_texts.token_count(handle, example.text), example.text)
    if kept.cut:
        said = i18n.t("long_truncated", request.lang, kept=kept.kept, total=kept.total, cut=kept.cut_text)
        warning(said, example.number, request)


def _warn_language(handle, example: Example, request: Request) -> None:
    """A warning line when the text is in a script the model does not read (the app says it before capturing)."""
    said = caveats.language_sentence(example.text, handle.name, models.source_languages(handle), request.lang)
    if said:
        warning(said, example.number, request)


def _progress(items, request: Request):
    if request.input is None or request.quiet:
        return items
    return tqdm(items, desc=PROG, unit="example", file=sys.stderr)
