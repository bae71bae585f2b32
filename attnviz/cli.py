"""`python -m attnviz`: capture attention and export figures or data from the command line.

    python -m attnviz export --model demo-zh-en --text 早上好！ --target "Good morning!" --view alignment -o a.png
    python -m attnviz export --model minilm --text "The cat sat." --view heatmap --layer 5 --head 2 -o h.svg
    python -m attnviz capture --model demo-en-zh --text "Good morning!" --generate 16 -o c.json
    python -m attnviz export --model minilm --input lines.txt --view grid --format png -o figures/
    python -m attnviz find-head --model minilm --text "The animal was tired because it ran." --query it --key animal
    python -m attnviz models

With --input FILE every non-empty line is one example ("source" or "source<TAB>target"), a progress bar runs on
stderr, and --output names a folder that receives 0001.<format>, 0002.<format>, ... (numbered by line). With --text,
an --output that is an existing folder receives one file named after what it holds (`attnviz.export.figure_filename`: no
path separators or control characters; png or json unless --format says otherwise).
Bad arguments and attnviz errors print one line on stderr and exit with 2 (in English, or in Chinese for
`export --lang zh`, whose figures speak Chinese: argparse's own messages too); existing files are kept unless --force;
every file is written atomically (temporary file, then rename).

A figure is the one the app draws for the same options (`attnviz.selection`, which both call), written as the app's
download buttons write it: --aggregation, --layer, --head, --words, --hide-special, --threshold, --step and --lang
mean what the app's controls of those names mean, with the app's defaults. --layer and --head also take lists
("0,2", "all") and --head "mean" or "max", which the app does not offer.

A file in an --output folder is named as the app's downloads are: view, model, layer/head and the first words of the
text (e.g. alignment_demo-zh-en_Halign_早上好.png), a capture by its model and text (`capture_filename`). Figure
size (`attnviz.export.sizing`): --width/--height in px (1/96 in), --scale (1–4) or --dpi (96–384) for PNG, or a print
--preset (single-column: 3.5 in at 300 dpi; double-column; slide). Every capture and figure written records its
provenance (`attnviz.provenance`): model and weights hash, device, dtype, versions, texts, options and time.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import sys
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

from attnviz import analysis, caveats, find_head, i18n, selection
from attnviz.corpus.inputs import header_names, input_columns
from attnviz.errors import AttnvizError, InputError, Phrase
from attnviz.figures.layout import as_file
from attnviz.selection import ViewOptions

PROG = "attnviz"
KINDS = ("self", "encoder", "decoder", "cross")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line (no usage dump) and exits with 2, in Chinese when the
    command line asks for `--lang zh` (`lang`, read from it before it is parsed)."""

    def __init__(self, *args, lang: str = "en", **kwargs):
        super().__init__(*args, **kwargs)
        self.lang = lang

    def error(self, message: str):
        if self.lang == "en":
            self.exit(2, f"{PROG}: error: {message} (see {self.prog} --help)\n")
        said = argparse_sentence(message, self.lang)
        self.exit(2, f"{PROG}: error: {said}{i18n.t('cli.argparse.see_help', self.lang, prog=self.prog)}\n")


# argparse's messages (Python 3.11), each with the catalogue key that says it: matched in order, the first wins
_ARGPARSE_MESSAGES = (
    (re.compile(r"invalid choice: (?P<value>.+) \(choose from (?P<choices>.+)\)$"), "cli.argparse.invalid_choice"),
    (re.compile(r"invalid (?P<type>\S+) value: (?P<value>.+)$"), "cli.argparse.invalid_value"),
    (re.compile(r"expected one argument$"), "cli.argparse.expected_one"),
    (re.compile(r"not allowed with argument (?P<other>.+)$"), "cli.argparse.not_allowed_with"),
    (re.compile(r"the following arguments are required: (?P<names>.+)$"), "cli.argparse.required"),
    (re.compile(r"unrecognized arguments: (?P<names>.+)$"), "cli.argparse.unrecognized"),
)


def argparse_sentence(message: str, lang: str) -> str:
    """An argparse error message in `lang`: "argument --x: invalid choice: ..." said in its words; a message it
    does not know (one of attnviz's own argument checks) as it is."""
    named = re.match(r"argument (?P<name>[^:]+): (?P<message>.+)$", message, re.S)
    inner = named["message"] if named else message
    for pattern, key in _ARGPARSE_MESSAGES:
        if found := pattern.match(inner):
            inner = i18n.t(key, lang, **found.groupdict())
            break
    return i18n.t("cli.argparse.argument", lang, name=named["name"], message=inner) if named else inner


def _asked_lang(argv: list[str]) -> str:
    """The --lang the command line gives ("en" when none, or not one the CLI speaks), read before argparse runs."""
    for index, word in enumerate(argv):
        value = word.split("=", 1)[1] if word.startswith("--lang=") else None
        if word == "--lang" and index + 1 < len(argv):
            value = argv[index + 1]
        if value in i18n.LANGUAGES:
            return value
    return "en"


@dataclass(frozen=True)
class Example:
    number: int  # 1-based line number in --input, or 1 for --text
    text: str
    target: str | None
    gold: str | None = None  # gold links of the pair (Pharaoh), drawn over its alignment (`attnviz.corpus.view`)
    refused: InputError | None = None  # why this --input line cannot be drawn (said, and the line skipped)


# ----------------------------------------------------------------------------------------------------------------------
# Arguments


def _selection(value: str, what: str) -> list[int] | None:
    """ "all" -> None; "3" -> [3]; "0,2,-1" -> [0, 2, -1]."""
    if value.strip().lower() == "all":
        return None
    try:
        return [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise InputError("cli_index_list", option=what, value=value) from None


def _add_model_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_argument_group("model and input")
    source.add_argument("--model", "-m", required=True, help="catalogue name (see `models`), HF folder or hub id")
    text = source.add_mutually_exclusive_group(required=True)
    text.add_argument("--text", "-t", help="the input (source) text")
    text.add_argument("--input", "-i", type=Path, help="a UTF-8 file, one example per line (source<TAB>target)")
    source.add_argument("--target", help="target text to force-decode (encoder-decoder models)")
    source.add_argument("--generate", type=int, metavar="N", help="let the model write up to N tokens instead")
    source.add_argument(
        "--beams",
        type=int,
        metavar="N",
        help="with --generate: beams of beam search, 1 = greedy (default: the model's own setting)",
    )
    source.add_argument("--device", default="auto", help="auto (npu → cuda → mps → cpu), cpu, cuda, npu, mps")
    source.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")
    out = parser.add_argument_group("output")
    out.add_argument("--output", "-o", required=True, type=Path, help="file to write (a folder with --input)")
    out.add_argument("--force", "-f", action="store_true", help="replace existing files")
    out.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _add_view_arguments(parser: argparse.ArgumentParser) -> None:
    """The export's view options: the app's controls, with the app's defaults (ViewOptions), then the CLI's own."""
    view = parser.add_argument_group("view")
    view.add_argument("--view", choices=selection.FIGURES, default="heatmap", help="the figure (default heatmap)")
    view.add_argument("--kind", choices=KINDS, help="which map (default: cross for translation pairs, else self)")
    view.add_argument(
        "--aggregation",
        choices=(*selection.AGGREGATIONS, selection.ROLLOUT),
        help="which heads, as the app's View menu: the model's alignment heads (cross-attention), one "
        "head (--layer, --head), the mean of --layer's heads, or of all, or the attention rollout "
        "of self-attention through --rollout-layers (default: alignment for cross-attention, else "
        "head 0 of layer 0)",
    )
    view.add_argument(
        "--rollout-layers",
        default=None,
        metavar="FIRST-LAST",
        help="rollout: the layers rolled through, both included, e.g. 0-3 (default: all)",
    )
    view.add_argument(
        "--residual",
        action=argparse.BooleanOptionalAction,
        default=ViewOptions.residual,
        help="rollout: each layer's map as 0.5·A + 0.5·I, the skip connection (Abnar & Zuidema "
        "2020; default on, as in the app)",
    )
    view.add_argument(
        "--layer",
        default=None,
        help="layer index; without --aggregation also a list (0,2) or 'all' (default: the app's view; "
        "all when only --head is given)",
    )
    view.add_argument(
        "--head",
        default=None,
        help="head index; without --aggregation also a list (0,2), 'all', 'mean' or 'max' (default: "
        "the app's view; mean when only --layer is given)",
    )
    view.add_argument(
        "--aggregate", choices=("mean", "max"), default=None, help="how listed heads are combined (default mean)"
    )
    view.add_argument("--layer-aggregate", choices=("mean", "max"), default="mean", help="how layers are combined")
    view.add_argument(
        "--words",
        action=argparse.BooleanOptionalAction,
        default=ViewOptions.words,
        help="merge subword pieces into words (default on, as in the app)",
    )
    view.add_argument(
        "--hide-special",
        action=argparse.BooleanOptionalAction,
        default=ViewOptions.hide_special,
        help="hide special tokens (</s>, [CLS], ...) (default on, as in the app)",
    )
    view.add_argument("--hide-first", action="store_true", help="hide the first token (attention sink)")
    view.add_argument("--renormalize", action="store_true", help="renormalise rows after hiding tokens")
    view.add_argument("--log-scale", action="store_true", help="heatmap: logarithmic colour scale")
    view.add_argument(
        "--weighting",
        choices=selection.WEIGHTINGS,
        default=ViewOptions.weighting,
        help="weights, or value-norm: each weight × its key's value norm ‖f(x)‖, rows summing to 1",
    )
    view.add_argument(
        "--color-scale",
        choices=selection.COLOR_SCALES,
        default=ViewOptions.color_scale,
        help="heatmap/grid colours: unit (0–1 on every head, the default, as in the app), shared (0 to "
        "the largest weight of any head) or head (each figure its own max)",
    )
    view.add_argument(
        "--threshold",
        type=float,
        default=ViewOptions.threshold,
        help="alignment/lines: smallest weight drawn (default 0.1)",
    )
    view.add_argument("--top-k", type=int, default=ViewOptions.top_k, help="alignment: links per target token (3)")
    view.add_argument(
        "--step",
        type=int,
        default=ViewOptions.step,
        help="replay: the map after N target tokens were written (default 0: all)",
    )
    view.add_argument(
        "--lang", choices=("en", "zh"), default=ViewOptions.lang, help="language of titles, labels and error messages"
    )
    view.add_argument("--format", choices=("png", "svg", "pdf", "html"), help="default: from the output suffix")
    view.add_argument(
        "--gold",
        metavar="LINKS",
        help="gold links of the pair, Pharaoh 'i-j' / 'i?j' (0-based words as the word view draws "
        "them), drawn over the alignment; with --input, a third column",
    )
    view.add_argument(
        "--reverse-model",
        metavar="M2",
        help="with gold links: a model translating the other way; only the links both directions "
        "find are scored and drawn (as the app's 'Check the links with a model translating back')",
    )
    view.add_argument(
        "--engine",
        choices=("auto", "kaleido", "static"),
        default="auto",
        help="png/svg/pdf renderer: kaleido (Chromium) or static (matplotlib, no browser)",
    )
    _add_size_arguments(parser)


def _add_size_arguments(parser: argparse.ArgumentParser) -> None:
    """The figure's size and resolution: `attnviz.export.resolve_size`'s options, checked before any model loads."""
    from attnviz.export.sizing import PRESETS

    size = parser.add_argument_group("size")
    size.add_argument("--width", type=int, help="figure width in px, 1/96 in (100–5000; default: the figure's own)")
    size.add_argument("--height", type=int, help="figure height in px (100–5000; default: the figure's own)")
    resolution = size.add_mutually_exclusive_group()
    resolution.add_argument("--scale", type=float, help="PNG pixels per figure pixel, 1–4 (default 1)")
    resolution.add_argument("--dpi", type=float, help="PNG resolution in dots per inch, 96–384 (instead of --scale)")
    presets = "; ".join(f"{p.name}: {p.width_in:g} in at {p.dpi:g} dpi" for p in PRESETS.values())
    size.add_argument(
        "--preset",
        choices=tuple(PRESETS),
        help=f"a print size ({presets}); keeps the figure's "
        "proportions unless --height is given (an alignment's labels and a long title are laid out "
        "again for a narrow width)",
    )


def build_parser(lang: str = "en") -> argparse.ArgumentParser:
    """The command line's parser; `lang`: the language its argument errors are said in."""
    parser = _Parser(prog=f"python -m {PROG}", description="Capture and export Transformer attention.", lang=lang)
    commands = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="{export,capture,find-head,corpus,corpus-workers,models,devices,doctor}",
        parser_class=functools.partial(_Parser, lang=lang),
    )

    export = commands.add_parser("export", help="draw a figure (png, svg, pdf, html)", description="Draw a figure.")
    _add_model_arguments(export)
    _add_view_arguments(export)

    capture = commands.add_parser(
        "capture", help="write attention data (json, npz, csv)", description="Write the captured attention."
    )
    _add_model_arguments(capture)
    capture.add_argument(
        "--format",
        choices=("json", "npz", "csv"),
        help="default: from the output suffix, else json; a CSV gets NAME.header.json beside it "
        "(provenance, texts, tokens)",
    )

    _add_find_parser(commands)
    from attnviz.corpus import command as corpus_command

    corpus_command.add_parser(commands)
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


def _add_find_parser(commands) -> None:
    """`find-head`: every layer × head ranked by the weight from a query token to a key token."""
    find = commands.add_parser(
        "find-head",
        help="rank every layer × head by the weight from one token to another",
        description="Rank every layer × head by the weight from --query to --key.",
    )
    find.add_argument("--model", "-m", required=True, help="catalogue name (see `models`), HF folder or hub id")
    find.add_argument("--text", "-t", required=True, help="the input (source) text")
    find.add_argument("--target", help="target text to force-decode (encoder-decoder models)")
    find.add_argument("--query", required=True, help="the token that looks: its text (or label, e.g. 'it #9')")
    find.add_argument("--key", required=True, help="the token looked at")
    find.add_argument("--occurrence", type=int, default=1, help="which copy of a repeated --query/--key (1)")
    find.add_argument("--kind", choices=KINDS, help="which map (default: cross for translation pairs, else self)")
    find.add_argument(
        "--words",
        action=argparse.BooleanOptionalAction,
        default=ViewOptions.words,
        help="pick words, not subword pieces (default on, as in the app)",
    )
    find.add_argument("--top", type=int, default=10, help="heads listed, strongest first (default 10; 0: all)")
    find.add_argument("--device", default="auto", help="auto (npu → cuda → mps → cpu), cpu, cuda, npu, mps")
    find.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")


def _run_find(args: argparse.Namespace) -> int:
    """Print rank, layer, head and weight, tab-separated, strongest first."""
    from attnviz import models
    from attnviz.attention.capture import capture

    if args.top < 0:
        raise InputError("cli_top_negative")
    if args.occurrence < 1:
        raise InputError("cli_occurrence_positive")
    _quiet_libraries()
    handle = models.load_model(args.model, device=args.device)
    result = capture(handle, args.text, args.target, truncate=args.truncate)
    kind = args.kind or selection.default_kind(result)
    picked = [
        find_head.find_choice(find_head.token_choices(result, kind, side, words=args.words), wanted, args.occurrence)
        for side, wanted in (("query", args.query), ("key", args.key))
    ]
    ranked = find_head.rank_heads(result, kind, *picked)
    print(f"rank\tlayer\thead\t{picked[0].label} → {picked[1].label}")
    for rank, match in enumerate(ranked[: args.top or None], start=1):
        print(f"{rank}\t{match.layer}\t{match.head}\t{match.weight:.4f}")
    return 0


def _check(args: argparse.Namespace) -> None:
    """Argument combinations argparse cannot express; raising InputError gives the one-line exit 2."""
    if args.generate is not None and args.generate < 1:
        raise InputError("cli_generate_positive")
    if args.generate is not None and args.target is not None:
        raise InputError("cli_target_or_generate")
    if getattr(args, "beams", None) is not None and args.generate is None:
        raise InputError("cli_beams_need_generate")
    if args.input is not None and args.target is not None:
        raise InputError("cli_input_with_target")
    if args.input is not None and getattr(args, "gold", None):
        raise InputError("cli_input_with_gold")
    if args.command == "export":
        _check_size(args)
        if not 0 <= args.threshold < 1:
            raise InputError("cli_threshold_range")
        if args.top_k < 1:
            raise InputError("cli_top_k_positive")
        if args.step < 0:
            raise InputError("cli_step_negative")
        if args.reverse_model and args.input is None and not args.gold:
            raise InputError("corpus_reverse_needs_gold")  # it checks gold links; an input file may hold them
        for option, why in _ignored_options(args):
            print(
                f"{PROG}: warning: {i18n.t('cli.ignored', args.lang, option=option, why=i18n.t(why, args.lang))}",
                file=sys.stderr,
            )


def _ignored_options(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The export options given that the figure asked for does not use (the app hides their controls there), as
    (option, the catalogue key of why): an option that changes nothing must not look as if it had."""
    aggregation, view = args.aggregation, args.view
    ignored = []
    if aggregation in ("alignment", "all", selection.ROLLOUT) and (args.layer is not None or args.head is not None):
        ignored.append(("--layer/--head", f"cli.ignored.{aggregation}"))
    if aggregation == "layer" and args.head is not None:
        ignored.append(("--head", "cli.ignored.layer"))
    if aggregation != selection.ROLLOUT and (args.rollout_layers is not None or not args.residual):
        ignored.append(("--rollout-layers/--no-residual", "cli.ignored.not_rollout"))
    if view != "alignment" and (args.gold or args.reverse_model):
        ignored.append(("--gold/--reverse-model", "cli.ignored.gold"))
    if view != "alignment" and args.top_k != ViewOptions.top_k:
        ignored.append(("--top-k", "cli.ignored.top_k"))
    if view not in ("alignment", "lines") and args.threshold != ViewOptions.threshold:
        ignored.append(("--threshold", "cli.ignored.threshold"))
    if view != "heatmap" and args.log_scale:
        ignored.append(("--log-scale", "cli.ignored.log_scale"))
    if view not in ("heatmap", "grid") and args.color_scale != ViewOptions.color_scale:
        ignored.append(("--color-scale", "cli.ignored.color_scale"))
    fmt = args.format or args.output.suffix.lower().lstrip(".")
    if fmt in ("svg", "pdf", "html") and (args.scale is not None or args.dpi is not None):
        ignored.append(("--scale/--dpi", "cli.ignored.vector"))
    if fmt == "html" and args.engine != "auto":
        ignored.append(("--engine", "cli.ignored.html_engine"))
    return ignored


def size_options(args: argparse.Namespace) -> dict:
    """The size keyword arguments of `attnviz.export.figure_bytes` the export's arguments give."""
    return {name: getattr(args, name) for name in ("width", "height", "scale", "dpi", "preset")}


def _check_size(args: argparse.Namespace) -> None:
    """Sizes out of range, or a preset with a width, fail before any model loads (`resolve_size` checks them again,
    with the pixel budget, against each figure's own size)."""
    import plotly.graph_objects as go

    from attnviz.export.sizing import resolve_size

    resolve_size(go.Figure(), **size_options(args))


def _examples(args: argparse.Namespace) -> list[Example]:
    if args.input is None:
        return [Example(1, args.text, args.target, getattr(args, "gold", None))]
    try:
        data = args.input.read_bytes()
    except FileNotFoundError:
        raise InputError("cli_input_missing", path=str(args.input)) from None
    except IsADirectoryError as error:
        raise InputError("cli_input_not_text", path=str(args.input), detail=str(error)) from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16: every line would be unreadable
        raise InputError("cli_input_not_text", path=str(args.input), detail="UTF-16")
    examples = []
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")  # a byte-order mark is not text
        except UnicodeDecodeError:  # this line is skipped with its reason; the others are drawn
            examples.append(Example(number, "", None, refused=InputError("corpus_not_utf8")))
            continue
        if not line.strip():
            continue
        names = header_names(line) if number == 1 else None
        if names:  # "zh<TAB>en": the columns' names, not a text to draw
            said = InputError("corpus_header", columns=", ".join(names)).message(getattr(args, "lang", "en"))
            print(f"{PROG}: warning: {i18n.t('cli.line', getattr(args, 'lang', 'en'), line=1)}{said}", file=sys.stderr)
            continue
        columns = input_columns(line)
        while len(columns) > 1 and not columns[-1].strip():  # trailing tabs a spreadsheet left
            columns.pop()
        text, target, gold = (*columns, "", "")[:3]  # a third column: the pair's gold links
        example = Example(number, text, target if target.strip() else None, gold.strip() or None)
        examples.append(replace(example, refused=_refused(example, len(columns), args)))
    if not examples:
        raise InputError("cli_input_empty", path=str(args.input))
    return examples


def _refused(example: Example, columns: int, args: argparse.Namespace) -> InputError | None:
    """Why an --input line cannot be drawn as asked: more columns than text, target and links, or a target given
    where --generate writes one."""
    if columns > 3:
        return InputError("cli_input_columns", count=columns)
    if example.target is not None and args.generate is not None:
        return InputError("cli_input_target_and_generate")
    return None


def _output_paths(args: argparse.Namespace, examples: list[Example], fmt: str) -> list[Path | None]:
    """Where each example goes (None: in the --output folder, named after what it holds once that is known);
    refuses (before any work) to replace files without --force."""
    if args.input is None:
        if args.output.is_dir():  # the file's name says what it holds, known once it is drawn; checked as written
            return [None]
        paths = [args.output]
    else:
        if args.output.exists() and not args.output.is_dir():
            raise InputError("cli_output_is_a_file", path=str(args.output))
        if not args.output.exists() and args.output.suffix.lower().lstrip(".") in FILE_FORMATS:
            raise InputError("cli_output_named_as_a_file", path=str(args.output), format=fmt)
        paths = [args.output / f"{example.number:04d}.{fmt}" for example in examples]
    from attnviz.export import csv_header_path

    headers = [csv_header_path(p) for p in paths] if fmt == "csv" else []  # a CSV's header is written beside it
    existing = [p for p in [*paths, *headers] if p.exists()]
    if existing and not args.force:
        if len(existing) == 1:
            raise InputError("cli_output_exists", path=str(existing[0]))
        raise InputError("cli_outputs_exist", path=str(existing[0]), more=len(existing) - 1)
    return paths


FILE_FORMATS = ("png", "svg", "pdf", "html", "json", "npz", "csv")  # every format a command writes


def _format(args: argparse.Namespace, allowed: tuple[str, ...], default: str | None) -> str:
    suffix = args.output.suffix.lower().lstrip(".")
    suffix = "html" if suffix == "htm" else suffix
    one_file = args.input is None and not args.output.is_dir()
    chosen = args.format or suffix
    if one_file and suffix in FILE_FORMATS and (chosen != suffix or chosen not in allowed):  # x.png holding JSON
        raise InputError("cli_format_suffix", path=str(args.output), format=args.format or default or allowed[0])
    if args.format:
        return args.format
    if args.input is None and suffix in allowed and not args.output.is_dir():
        return suffix
    if args.input is None and default is None and not args.output.is_dir():
        raise InputError("cli_format_unknown", path=str(args.output), suffixes=" ".join(f".{s}" for s in allowed))
    return default or allowed[0]


# ----------------------------------------------------------------------------------------------------------------------
# Work


def _capture(handle, example: Example, args: argparse.Namespace):
    from attnviz.attention import capture, generation

    _warn_language(handle, example, args)
    if args.generate is not None:
        result = generation.generate(
            handle, example.text, max_new_tokens=args.generate, truncate=args.truncate, num_beams=args.beams
        )
    else:
        result = capture.capture(handle, example.text, example.target, truncate=args.truncate)
    for caveat in caveats.caveats(result):  # what the app's page says above the figures, as warning lines
        _warning(caveat.sentence(getattr(args, "lang", "en")), example, args)
    if args.truncate:
        _warn_truncated(handle, result, example, args)
    return result


def _warn_truncated(handle, result, example: Example, args: argparse.Namespace) -> None:
    """The app's note under a truncated capture: how many tokens it kept of how many, and where it cut."""
    from attnviz import long_texts

    source = "self" if "self" in result.kinds else "encoder"
    kept = long_texts.truncation(result.tokens(source)[1], long_texts.token_count(handle, example.text), example.text)
    if kept.cut:
        said = i18n.t(
            "long_truncated", getattr(args, "lang", "en"), kept=kept.kept, total=kept.total, cut=kept.cut_text
        )
        _warning(said, example, args)


def _warn_language(handle, example: Example, args: argparse.Namespace) -> None:
    """A warning line when the text is in a script the model does not read (the app says it before capturing)."""
    from attnviz import models

    said = caveats.language_sentence(
        example.text, handle.name, models.source_languages(handle), getattr(args, "lang", "en")
    )
    if said:
        _warning(said, example, args)


def _warning(sentence: str, example: Example, args: argparse.Namespace) -> None:
    where = _where(example, args)
    print(f"{PROG}: warning: {where}{sentence}", file=sys.stderr)


def _where(example: Example, args: argparse.Namespace) -> str:
    """Which --input line a message is about ("line 3: "), in the export's language; nothing for --text."""
    return i18n.t("cli.line", getattr(args, "lang", "en"), line=example.number) if args.input is not None else ""


def _one_index(value: str | None, what: str, size: int) -> int:
    """--layer/--head beside --aggregation: one index (default 0), checked against the map, negatives from the end."""
    chosen = _selection(value or "0", what)
    if chosen is None or len(chosen) != 1:
        raise InputError("cli_one_index", option=what, value=value)
    return analysis.indices(chosen, size, what)[0]


def _as_aggregation(layers: tuple | None, heads: tuple | None, head_reduce: str, layer_reduce: str) -> dict:
    """A listed selection as the app's aggregation it equals (so it draws the app's figure), else a custom one."""
    one_layer = layers is not None and len(layers) == 1
    if one_layer and heads is not None and len(heads) == 1:
        return {"aggregation": "head", "layer": layers[0], "head": heads[0]}
    if heads is None and head_reduce == "mean" and one_layer:
        return {"aggregation": "layer", "layer": layers[0]}
    if heads is None and head_reduce == "mean" and layers is None and layer_reduce == "mean":
        return {"aggregation": "all"}
    return {"aggregation": selection.CUSTOM, "head_reduce": head_reduce, "layer_reduce": layer_reduce}


def _head_fields(args: argparse.Namespace, amap) -> dict:
    """The ViewOptions fields of the heads chosen: by --aggregation as in the app, else by --layer/--head lists.

    With neither, the map opens as in the app. Listed indices are checked against the map (an index it lacks is an
    error, not clamped as a link's is) and also limit the grid to them.
    """
    if args.aggregation is not None:  # read where the aggregation uses them (else warned of, in _ignored_options)
        uses = {"head": ("layer", "head"), "layer": ("layer",)}.get(args.aggregation, ())
        layer = _one_index(args.layer, "layer", amap.num_layers) if "layer" in uses else ViewOptions.layer
        head = _one_index(args.head, "head", amap.num_heads) if "head" in uses else ViewOptions.head
        return {"aggregation": args.aggregation, "layer": layer, "head": head}
    if args.layer is None and args.head is None and args.aggregate is None and args.layer_aggregate == "mean":
        return {}
    head_word = (args.head or "mean").strip().lower()
    layers = _selection(args.layer or "all", "layer")
    heads = None if head_word in ("mean", "max", "all") else _selection(head_word, "head")
    head_reduce = head_word if head_word in ("mean", "max") else args.aggregate or "mean"
    layer_idx, head_idx = analysis.select_indices(amap, layers, heads)
    listed = {"layers": None if layers is None else tuple(layer_idx)}
    listed["heads"] = None if heads is None else tuple(head_idx)
    return {**listed, **_as_aggregation(listed["layers"], listed["heads"], head_reduce, args.layer_aggregate)}


# Export arguments named as the ViewOptions fields they set, which mean there what the app's controls mean.
SAME_AS_OPTIONS = (
    "words",
    "hide_special",
    "threshold",
    "step",
    "lang",
    "hide_first",
    "renormalize",
    "top_k",
    "log_scale",
    "weighting",
    "residual",
    "color_scale",
)


def _rollout_layers(value: str | None) -> tuple[int, int] | None:
    """--rollout-layers "1-3" (or one layer, "2") as (first, last); None for all layers."""
    if value is None:
        return None
    parts = value.replace("–", "-").split("-")
    try:
        first, last = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else (None, None)
    except ValueError:
        first = last = None
    if first is None:
        raise InputError("qk_rollout_layers_text", value=value)
    return first, last


def view_options(args: argparse.Namespace, result) -> ViewOptions:
    """The options an export's arguments give for `result` (the same fields the app's controls set)."""
    kind = args.kind or selection.default_kind(result)
    same = {name: getattr(args, name) for name in SAME_AS_OPTIONS}
    rolled = _rollout_layers(args.rollout_layers)
    return ViewOptions(kind=kind, **same, **_head_fields(args, result[kind]), rollout_layers=rolled)


def figure(result, args: argparse.Namespace, handle, gold: str | None = None):
    """The figure of one example: the app's figure for these options, as its download buttons write it (the model
    named in the title); `gold` links drawn over an alignment as the app draws them."""
    return _drawn(result, args, handle, gold)[0]


def _drawn(result, args: argparse.Namespace, handle, gold: str | None = None) -> tuple:
    """(the figure as `figure` gives it, the options it shows, its file name's layer and head parts, the line that
    scores it against the gold links, or None)."""
    options = view_options(args, result)
    shown = selection.show(result, options, handle.alignment_heads, (args.view,))
    scored = None
    if gold and args.view == "alignment":  # gold links are drawn over the alignment only (see _ignored_options)
        from attnviz.corpus.view import show_gold

        reverse = _reverse_view(args, result)
        against = show_gold(result, shown, options, gold, reverse)
        shown, scored = against.shown, _gold_line(against, options.lang)
    heads = shown.selection.file_heads()
    return as_file(shown.figures[args.view], handle.name), options, heads, scored


def _gold_line(against, lang: str) -> str:
    """The app's precision · recall · AER line of the view against the gold links."""
    from attnviz.figures._common import format_value

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


def _reverse_view(args: argparse.Namespace, result):
    """With --reverse-model: that model's alignment view of the pair read the other way (loaded once per run)."""
    name = getattr(args, "reverse_model", None)
    if not name:
        return None
    from attnviz.attention.capture import capture
    from attnviz.corpus.view import reading_prefix, reverse_texts, reverse_view
    from attnviz.models import source_languages, target_languages

    handle = _loaded_model(name, getattr(args, "device", "auto"))
    source, target = reverse_texts(result)
    lang = getattr(args, "lang", "en")
    said = caveats.language_sentence(source, handle.name, source_languages(handle), lang) or caveats.language_sentence(
        target, handle.name, target_languages(handle), lang, key="truth_writes_mismatch"
    )
    if said:  # a reverse model of the same direction, or of other languages: its links say little
        print(f"{PROG}: warning: --reverse-model: {said}", file=sys.stderr)
    backward = capture(handle, source, target)
    return reverse_view(backward, handle.alignment_heads, reading_prefix(result))


@functools.cache
def _loaded_model(name: str, device: str):
    from attnviz import models

    return models.load_model(name, device=device)


def capture_options(args: argparse.Namespace) -> dict:
    """The options an example is captured with, as its provenance records them (beside what generation recorded)."""
    mode = "generate" if args.generate is not None else "pair"
    return {"mode": mode, "max_new_tokens": args.generate, "truncate": args.truncate}


def _write(result, args: argparse.Namespace, handle, example: Example, path: Path | None, fmt: str) -> Path:
    """Write one example's capture or figure, with its provenance, to `path` (None: a file in the --output folder
    named after what it holds); returns where it went."""
    from dataclasses import asdict

    from attnviz import export
    from attnviz.corpus.view import gold_record
    from attnviz.provenance import view_provenance, with_provenance

    result = with_provenance(result, handle, capture_options(args))
    if args.command == "capture":
        path = path or args.output / export.capture_filename(result, fmt)
        saved = export.save_capture(result, path, fmt, overwrite=args.force)
        limit = export.UploadLimits().max_bytes
        if saved.stat().st_size > limit and fmt != "csv":  # a CSV is for reading, never opened by the app
            size, most = f"{saved.stat().st_size / 2**20:,.0f} MB", f"{limit / 2**20:.0f} MB"
            _warning(
                i18n.t("cli.capture_too_large", getattr(args, "lang", "en"), size=size, limit=most, format=fmt),
                example,
                args,
            )
        return saved
    drawn, options, heads, scored = _drawn(result, args, handle, example.gold)
    if scored:  # on stderr: stdout names the files written
        print(f"{PROG}: {_where(example, args)}{scored}", file=sys.stderr)
    if path is None:
        path = args.output / export.figure_filename(args.view, fmt, model=handle.name, text=example.text, **heads)
    size = size_options(args)
    drew_gold = example.gold if args.view == "alignment" else None
    recorded = gold_record(drew_gold, getattr(args, "reverse_model", None))  # the gold links drawn, if any
    provenance = view_provenance(result.provenance, args.view, {**asdict(options), **recorded, "export": size})
    with warnings.catch_warnings(record=True) as caught:  # said as the command's warning lines, in --lang
        warnings.simplefilter("always")
        written = export.export_figure(
            drawn, path, fmt, engine=args.engine, overwrite=args.force, provenance=provenance, **size
        )
    lang = getattr(args, "lang", "en")
    for warning in caught:
        message = warning.message
        _warning(message.sentence(lang) if isinstance(message, export.SmallLabels) else str(message), example, args)
    return written


def _progress(items, args: argparse.Namespace):
    if args.input is None or args.quiet:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=PROG, unit="example", file=sys.stderr)


def _quiet_libraries() -> None:
    """Transformers' own loading bars would interleave with ours; its warnings stay on (but for the tokenizer's
    on a too-long text, which attnviz says itself: `attnviz.attention.encoding`)."""
    try:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
    except ImportError:  # the model loader reports a missing transformers itself
        pass


def _run_models() -> int:
    from attnviz import hub, models

    for entry in models.catalogue():
        print(f"{entry.name}\t{entry.kind}\t{entry.description}")
    for entry in hub.hub_catalogue():
        downloads = i18n.t("hub_downloads", size=hub.size_text(hub.BY_ID[entry.name].download_mb))
        print(f"{entry.name}\t{entry.kind}\t{entry.description}; {downloads}")
    return 0


def _run_devices(args: argparse.Namespace) -> int:
    from attnviz import settings
    from attnviz.devices import device_report

    if args.device and not settings.DEVICE_SPEC.match(args.device.strip().lower()):
        raise InputError("device_unknown", device=args.device)  # a typo, not a device that is missing here
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
    if args.command == "find-head":
        return _run_find(args)
    if args.command in ("corpus", "corpus-workers"):
        from attnviz.corpus import command as corpus_command

        _quiet_libraries()
        return corpus_command.run(args) if args.command == "corpus" else corpus_command.stop_workers(args)
    _check(args)
    examples = _examples(args)
    if args.command == "export":
        fmt = _format(args, ("png", "svg", "pdf", "html"), None if args.input is None else "png")
    else:
        fmt = _format(args, ("json", "npz", "csv"), "json")
    paths = _output_paths(args, examples, fmt)

    from attnviz import models

    _quiet_libraries()
    handle = models.load_model(args.model, device=args.device)
    written, skipped = [], 0
    for example, path in _progress(list(zip(examples, paths)), args):
        try:
            if example.refused is not None:
                raise example.refused
            written.append(_write(_capture(handle, example, args), args, handle, example, path, fmt))
        except AttnvizError as error:
            if args.input is None:
                raise
            said = type(error)("cli_input_line", line=example.number, path=str(args.input), error=_said(error))
            print(f"{PROG}: error: {said.message(getattr(args, 'lang', 'en'))}", file=sys.stderr)  # and go on
            skipped += 1
    if args.input is None:
        print(written[0])
        return 0
    lang = getattr(args, "lang", "en")
    said = i18n.t("cli.written", lang, count=len(written), folder=args.output)
    print(said + (i18n.t("cli.skipped", lang, count=skipped) if skipped else ""))
    return 2 if skipped else 0  # a script sees that not every line was drawn


def _said(error: AttnvizError) -> Phrase | str:
    """An error as a part of another error's sentence, said in that sentence's language (when it has a key)."""
    key = f"error.{error.key}"
    return Phrase(key, **error.values) if i18n.has(key) else str(error)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 file-system failure, 2 bad arguments or input).

    Its messages are English; `export --lang zh` (Chinese titles and labels) says its errors in Chinese too, those
    of a bad argument included (the --lang is read before the arguments are parsed)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_asked_lang(argv))
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except AttnvizError as error:
        print(f"{PROG}: error: {error.message(getattr(args, 'lang', 'en'))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `... | head` stopped reading: what it took was printed; say nothing more
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout at exit: into nothing now
        return 0
    except OSError as error:
        where = f" ({error.filename})" if error.filename else ""
        print(f"{PROG}: error: {error.strerror or error}{where}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
