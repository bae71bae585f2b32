"""`python -m attnviz`: capture attention and export figures or data from the command line.

    python -m attnviz export --model demo-zh-en --text 早上好！ --target "Good morning!" --view alignment -o a.png
    python -m attnviz export --model minilm --text "The cat sat." --view heatmap --layer 5 --head 2 -o h.svg
    python -m attnviz capture --model demo-en-zh --text "Good morning!" --generate 16 -o c.json
    python -m attnviz export --model minilm --input lines.txt --view grid --format png -o figures/
    python -m attnviz models

With --input FILE every non-empty line is one example ("source" or "source<TAB>target"), a progress bar runs on
stderr, and --output names a folder that receives 0001.<format>, 0002.<format>, ... (numbered by line). With --text,
an --output that is an existing folder receives one file named after the text (`attnviz.export.safe_filename`: no
path separators or control characters; png or json unless --format says otherwise).
Bad arguments and attnviz errors print one line on stderr and exit with 2; existing files are kept unless --force;
every file is written atomically (temporary file, then rename).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from attnviz.errors import AttnvizError, InputError

PROG = "attnviz"
VIEWS = ("heatmap", "alignment", "grid", "lines")
KINDS = ("self", "encoder", "decoder", "cross")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line (no usage dump) and exits with 2."""

    def error(self, message: str):
        self.exit(2, f"{PROG}: error: {message} (see {self.prog} --help)\n")


@dataclass(frozen=True)
class Example:
    number: int  # 1-based line number in --input, or 1 for --text
    text: str
    target: str | None


# ----------------------------------------------------------------------------------------------------------------------
# Arguments


def _selection(value: str, what: str) -> list[int] | None:
    """ "all" -> None; "3" -> [3]; "0,2,-1" -> [0, 2, -1]."""
    if value.strip().lower() == "all":
        return None
    try:
        return [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise InputError(f"--{what} takes an index, a comma-separated list (0,2) or 'all'; got {value!r}.") from None


def _add_model_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_argument_group("model and input")
    source.add_argument("--model", "-m", required=True, help="catalogue name (see `models`), HF folder or hub id")
    text = source.add_mutually_exclusive_group(required=True)
    text.add_argument("--text", "-t", help="the input (source) text")
    text.add_argument("--input", "-i", type=Path, help="a UTF-8 file, one example per line (source<TAB>target)")
    source.add_argument("--target", help="target text to force-decode (encoder-decoder models)")
    source.add_argument("--generate", type=int, metavar="N", help="let the model write up to N tokens instead")
    source.add_argument("--device", default="auto", help="auto (npu → cuda → mps → cpu), cpu, cuda, npu, mps")
    source.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")
    out = parser.add_argument_group("output")
    out.add_argument("--output", "-o", required=True, type=Path, help="file to write (a folder with --input)")
    out.add_argument("--force", "-f", action="store_true", help="replace existing files")
    out.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=f"python -m {PROG}", description="Capture and export Transformer attention.")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="{export,capture,models}", parser_class=_Parser
    )

    export = commands.add_parser("export", help="draw a figure (png, svg, pdf, html)", description="Draw a figure.")
    _add_model_arguments(export)
    view = export.add_argument_group("view")
    view.add_argument("--view", choices=VIEWS, default="heatmap")
    view.add_argument("--kind", choices=KINDS, help="which map (default: cross for translation pairs, else self)")
    view.add_argument("--layer", default=None,
                      help="layer index, list (0,2) or 'all' (default: all; for cross-attention of a model with a "
                           "trained alignment head, that head's layer)")
    view.add_argument("--head", default=None,
                      help="head index, list (0,2), 'mean' or 'max' (default: mean; for cross-attention of a model with "
                           "a trained alignment head, that head)")
    view.add_argument("--aggregate", choices=("mean", "max"), default=None,
                      help="how listed heads are combined (default mean)")  # fmt: skip
    view.add_argument("--layer-aggregate", choices=("mean", "max"), default="mean", help="how layers are combined")
    view.add_argument("--words", action="store_true", help="merge subword pieces into words")
    view.add_argument("--hide-special", action="store_true", help="hide special tokens (</s>, [CLS], ...)")
    view.add_argument("--hide-first", action="store_true", help="hide the first token (attention sink)")
    view.add_argument("--renormalize", action="store_true", help="renormalise rows after hiding tokens")
    view.add_argument("--log-scale", action="store_true", help="heatmap: logarithmic colour scale")
    view.add_argument("--threshold", type=float, help="alignment/lines: smallest weight drawn")
    view.add_argument("--top-k", type=int, help="alignment: links per target token (default 3)")
    view.add_argument("--lang", choices=("en", "zh"), default="en", help="language of titles and labels")
    view.add_argument("--format", choices=("png", "svg", "pdf", "html"), help="default: from the output suffix")
    view.add_argument("--engine", choices=("auto", "kaleido", "static"), default="auto",
                      help="png/svg/pdf renderer: kaleido (Chromium) or static (matplotlib, no browser)")  # fmt: skip
    view.add_argument("--scale", type=float, default=1.0, help="PNG resolution multiplier")

    capture = commands.add_parser("capture", help="write attention data (json, npz, csv)",
                                  description="Write the captured attention.")  # fmt: skip
    _add_model_arguments(capture)
    capture.add_argument("--format", choices=("json", "npz", "csv"), help="default: from the output suffix, else json")

    commands.add_parser("models", help="list the models available offline", description="List catalogue models.")
    devices = commands.add_parser(
        "devices",
        help="show which device would be used and why",
        description="Show the device report: what is available and why not.",
    )
    devices.add_argument("--device", default="auto", help="auto, npu, npu:N, cuda, mps or cpu (default: auto)")
    doctor = commands.add_parser(
        "doctor",
        help="compare captured weights on the device with the CPU",
        description="Capture the same pair on the device and on the CPU and compare them.",
    )
    doctor.add_argument("--model", default="demo-zh-en", help="catalogue name, folder or hub id")
    doctor.add_argument("--device", default="auto", help="auto, npu, npu:N, cuda, mps or cpu (default: auto)")
    return parser


def _check(args: argparse.Namespace) -> None:
    """Argument combinations argparse cannot express; raising InputError gives the one-line exit 2."""
    if args.generate is not None and args.generate < 1:
        raise InputError("--generate takes a positive number of tokens.")
    if args.generate is not None and args.target is not None:
        raise InputError("Give either --target (force-decode a given target) or --generate (let the model write).")
    if args.input is not None and args.target is not None:
        raise InputError("With --input, put each target after a tab on its line instead of using --target.")
    if args.command == "export":
        if args.scale <= 0:
            raise InputError("--scale must be positive.")
        if args.threshold is not None and not 0 <= args.threshold < 1:
            raise InputError("--threshold must lie in [0, 1).")
        if args.top_k is not None and args.top_k < 1:
            raise InputError("--top-k must be at least 1.")


def _examples(args: argparse.Namespace) -> list[Example]:
    if args.input is None:
        return [Example(1, args.text, args.target)]
    try:
        lines = args.input.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"--input {args.input} does not exist.") from None
    except (UnicodeDecodeError, IsADirectoryError) as error:
        raise InputError(f"--input {args.input} is not a UTF-8 text file ({error}).") from None
    examples = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        text, _, target = line.partition("\t")
        examples.append(Example(number, text, target if target.strip() else None))
    if not examples:
        raise InputError(f"--input {args.input} has no non-empty lines.")
    return examples


def _output_paths(args: argparse.Namespace, examples: list[Example], fmt: str) -> list[Path]:
    """Where each example goes; refuses (before any work) to replace files without --force."""
    if args.input is None:
        paths = [args.output]
        if args.output.is_dir():  # a folder: the file inside it is named after the text, made safe as a name
            from attnviz.export import safe_filename

            paths = [args.output / safe_filename(examples[0].text, fmt)]
    else:
        if args.output.exists() and not args.output.is_dir():
            raise InputError(f"With --input, --output names a folder; {args.output} is a file.")
        paths = [args.output / f"{example.number:04d}.{fmt}" for example in examples]
    existing = [p for p in paths if p.exists()]
    if existing and not args.force:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        raise InputError(f"{existing[0]}{more} already exists; pass --force to replace.")
    return paths


def _format(args: argparse.Namespace, allowed: tuple[str, ...], default: str | None) -> str:
    if args.format:
        return args.format
    suffix = args.output.suffix.lower().lstrip(".")
    suffix = "html" if suffix == "htm" else suffix
    if args.input is None and suffix in allowed and not args.output.is_dir():
        return suffix
    if args.input is None and default is None and not args.output.is_dir():
        raise InputError(
            f"Cannot tell the format from {args.output}; end it with .{' .'.join(allowed)} or pass --format."
        )
    return default or allowed[0]


# ----------------------------------------------------------------------------------------------------------------------
# Work


def _capture(handle, example: Example, args: argparse.Namespace):
    from attnviz.attention import capture, generation

    if args.generate is not None:
        return generation.generate(handle, example.text, max_new_tokens=args.generate)
    return capture.capture(handle, example.text, example.target, truncate=args.truncate)


def _chosen_map(result, args: argparse.Namespace):
    from attnviz import analysis

    # Default: the translation alignment when there is one, else the model's own (self) attention.
    kind = args.kind or ("cross" if "cross" in result.maps else "self" if "self" in result.maps else "encoder")
    amap = result[kind]
    if args.hide_special or args.hide_first:
        amap = analysis.hide_tokens(
            amap, special=args.hide_special, first=args.hide_first, renormalize=args.renormalize
        )
    if args.words:
        query_text = result.target_text if kind in ("decoder", "cross") else result.source_text
        key_text = result.target_text if kind == "decoder" else result.source_text
        amap = analysis.merge_words(amap, query_text, key_text)
    return amap


def _default_view(amap, args: argparse.Namespace, alignment_heads) -> tuple[str, str]:
    """--layer/--head as given; unset, cross-attention opens on the model's trained alignment head (the sharp view)."""
    if args.layer is None and args.head is None and amap.kind == "cross" and alignment_heads:
        layer, head = alignment_heads[0]
        return str(layer), str(head)
    return args.layer or "all", args.head or "mean"


def _figure(amap, args: argparse.Namespace, model: str, alignment_heads=()):
    from attnviz import figures

    layer_choice, head_choice = _default_view(amap, args, alignment_heads)
    layers = _selection(layer_choice, "layer")
    head = head_choice.strip().lower()
    reduce = args.aggregate or "mean"
    heads = None if head in ("mean", "max", "all") else _selection(head, "head")
    if head in ("mean", "max"):
        reduce = head
    common = dict(model=model, lang=args.lang)
    if args.view == "grid":
        return figures.grid(amap, layers=layers, heads=heads, **common)
    if args.view == "lines":
        combine = head if head in ("mean", "max") else None
        extra = {} if args.threshold is None else {"threshold": args.threshold}
        return figures.head_lines(amap, layers=layers, heads=heads, combine=combine,
                                  layer_reduce=args.layer_aggregate, **extra, **common)  # fmt: skip
    selection = dict(layers=layers, heads=heads, head_reduce=reduce, layer_reduce=args.layer_aggregate)
    if args.view == "alignment":
        extra = {"threshold": args.threshold} if args.threshold is not None else {}
        if args.top_k is not None:
            extra["top_k"] = args.top_k
        return figures.alignment(amap, **selection, **extra, **common)
    return figures.heatmap(amap, **selection, log_scale=args.log_scale, **common)


def _progress(items, args: argparse.Namespace):
    if args.input is None or args.quiet:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=PROG, unit="example", file=sys.stderr)


def _quiet_libraries() -> None:
    """Transformers' own loading bars would interleave with ours; its warnings stay on."""
    try:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
    except ImportError:  # the model loader reports a missing transformers itself
        pass


def _run_models() -> int:
    from attnviz import models

    for entry in models.catalogue():
        print(f"{entry.name}\t{entry.kind}\t{entry.description}")
    return 0


def _run_devices(args: argparse.Namespace) -> int:
    from attnviz.devices import device_report

    print(device_report(args.device).summary())
    return 0


def _run_doctor(args: argparse.Namespace) -> int:
    from attnviz.doctor import parity

    _quiet_libraries()
    report = parity(model=args.model, device=args.device)
    print(report.summary())
    return 0 if report.passed else 1


def _run(args: argparse.Namespace) -> int:
    if args.command == "models":
        return _run_models()
    if args.command == "devices":
        return _run_devices(args)
    if args.command == "doctor":
        return _run_doctor(args)
    _check(args)
    examples = _examples(args)
    if args.command == "export":
        fmt = _format(args, ("png", "svg", "pdf", "html"), None if args.input is None else "png")
    else:
        fmt = _format(args, ("json", "npz", "csv"), "json")
    paths = _output_paths(args, examples, fmt)

    from attnviz import export, models

    _quiet_libraries()
    handle = models.load_model(args.model, device=args.device)
    for example, path in _progress(list(zip(examples, paths)), args):
        try:
            result = _capture(handle, example, args)
            if args.command == "capture":
                export.save_capture(result, path, fmt, overwrite=args.force)
            else:
                figure = _figure(_chosen_map(result, args), args, handle.name, handle.alignment_heads)
                export.export_figure(figure, path, fmt, engine=args.engine, overwrite=args.force, scale=args.scale)
        except AttnvizError as error:
            if args.input is None:
                raise
            raise type(error)(f"line {example.number} of {args.input}: {error}") from error
    if args.input is None:
        print(paths[0])
    else:
        print(f"{len(paths)} files in {args.output}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 file-system failure, 2 bad arguments or input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except AttnvizError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"{PROG}: error: {error.strerror or error} ({error.filename or ''})".rstrip(" ()"), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
