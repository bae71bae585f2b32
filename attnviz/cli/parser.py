"""The command line's parser: its commands and options, and argparse's own messages said in the language the
command line asks for (`--lang zh`)."""

from __future__ import annotations

import argparse
import functools
import re
from pathlib import Path

from attnviz import i18n
from attnviz.cli.messages import PROG
from attnviz.cli.request import Request, request_of
from attnviz.cli.view_arguments import KINDS, add_view_arguments
from attnviz.corpus import command as corpus_command
from attnviz.errors import AttnvizError, InputError
from attnviz.measures import names as measure_view
from attnviz.model import placement
from attnviz.view import viewing
from attnviz.view.viewing import ViewOptions


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


def asked_lang(argv: list[str]) -> str:
    """The --lang the command line gives ("en" when none, or not one the CLI speaks), read before argparse runs."""
    for index, word in enumerate(argv):
        value = word.split("=", 1)[1] if word.startswith("--lang=") else None
        if word == "--lang" and index + 1 < len(argv):
            value = argv[index + 1]
        if value in i18n.LANGUAGES:
            return value
    return "en"


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
    _add_placement_arguments(source, getattr(parser, "lang", "en"))
    source.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")
    out = parser.add_argument_group("output")
    out.add_argument("--output", "-o", required=True, type=Path, help="file to write (a folder with --input)")
    out.add_argument("--force", "-f", action="store_true", help="replace existing files")
    out.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _add_placement_arguments(group, lang: str) -> None:
    """--device-map, --max-memory and --offload-folder: a model larger than one device, placed by accelerate; the
    first two checked here by the parsers `load_model` reads them with (`attnviz.model.placement`), a bad one said in
    one line, and kept as written (so that an accelerator this machine lacks is named as the person named it)."""
    group.add_argument(
        "--device-map",
        type=_parsed(placement.checked(placement.device_map_of), lang),
        metavar="MAP",
        help="spread the model's layers over devices: auto, balanced, sequential, or a JSON {module path: place}",
    )
    group.add_argument(
        "--max-memory",
        type=_parsed(placement.checked(placement.max_memory_of), lang),
        metavar="LIMITS",
        help="memory per device for --device-map, e.g. npu:0=30GiB,npu:1=30GiB,cpu=64GiB (implies --device-map auto)",
    )
    group.add_argument("--offload-folder", type=Path, help="where layers that fit on no device are kept (disk)")


def _parsed(parse, lang: str):
    """An argparse type that reads a value with `parse`, its AttnvizError said as argparse's one line in `lang`."""

    def read(text: str):
        try:
            return parse(text)
        except AttnvizError as error:
            raise argparse.ArgumentTypeError(error.message(lang)) from error

    read.__name__ = parse.__name__
    return read


def build_parser(lang: str = "en") -> argparse.ArgumentParser:
    """The command line's parser; `lang`: the language its argument errors are said in."""
    parser = _Parser(prog=f"python -m {PROG}", description="Capture and export Transformer attention.", lang=lang)
    commands = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="{export,explorer,capture,contributions,find-head,compare,head-effects,faithfulness,lens,decoder-lens,atlas,corpus,corpus-workers,models,devices,doctor}",
        parser_class=functools.partial(_Parser, lang=lang),
    )

    export = commands.add_parser("export", help="draw a figure (png, svg, pdf, html)", description="Draw a figure.")
    _add_model_arguments(export)
    add_view_arguments(export)

    _add_explorer_parser(commands, lang)
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

    _add_contributions_parser(commands)
    _add_find_parser(commands)
    _add_head_effects_parser(commands)
    _add_faithfulness_parser(commands)
    _add_lens_parsers(commands)
    _add_compare_parser(commands)
    _add_atlas_parser(commands)
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


def _add_explorer_parser(commands, lang: str) -> None:
    """`explorer`: one offline HTML file of every layer and head of one input, its view picked by the reader."""
    explorer = commands.add_parser(
        "explorer",
        help="one offline HTML file of every layer and head, in which a reader picks the view (html)",
        description="Write one self-contained HTML file holding every figure of one input: the reader picks the "
        "map, figure, heads, word view, weakest link and language, as in the app.",
    )
    explorer.add_argument("--model", "-m", required=True, help="catalogue name (see `models`), HF folder or hub id")
    explorer.add_argument("--text", "-t", required=True, help="the input (source) text")
    explorer.add_argument("--target", help="target text to force-decode (encoder-decoder models)")
    explorer.add_argument("--generate", type=int, metavar="N", help="let the model write up to N tokens instead")
    explorer.add_argument("--beams", type=int, metavar="N", help="with --generate: beams of beam search")
    explorer.add_argument("--device", default="auto", help="auto (npu → cuda → mps → cpu), cpu, cuda, npu, mps")
    _add_placement_arguments(explorer, lang)
    explorer.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")
    held = explorer.add_argument_group("what the file holds")
    held.add_argument("--kinds", type=_listed(KINDS, lang), help="only these maps, e.g. cross,encoder (default: all)")
    held.add_argument(
        "--measures",
        type=_listed(measure_view.CONTRIBUTIONS, lang),
        help="measures of what each layer uses, computed and put in: alti, alti-rollout, value-zeroing (default: none)",
    )
    held.add_argument("--languages", type=_listed(tuple(i18n.LANGUAGES), lang), help="en, zh or en,zh (default: both)")
    held.add_argument(
        "--thresholds",
        type=_parsed(_thresholds, lang),
        help="the weakest links a reader may pick, e.g. 0.05,0.1,0.2,0.3,0.5 (the default)",
    )
    held.add_argument(
        "--subwords",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="hold the subword-piece view beside the word view (default on; --no-subwords halves the file)",
    )
    held.add_argument("--lang", choices=("en", "zh"), default="en", help="the language the file opens in, and errors")
    explorer.add_argument("--output", "-o", required=True, type=Path, help="the .html file to write")
    explorer.add_argument("--force", "-f", action="store_true", help="replace an existing file")
    explorer.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _comma_list(text: str) -> tuple[str, ...]:
    """An argparse type: the names of a comma-separated list (the command checks them)."""
    return tuple(item.strip() for item in text.split(",") if item.strip())


def _listed(choices: tuple[str, ...], lang: str):
    """An argparse type: a comma-separated list of `choices`."""

    def read(text: str) -> tuple[str, ...]:
        items = tuple(item.strip() for item in text.split(",") if item.strip())
        unknown = [item for item in items if item not in choices]
        if not items or unknown:
            error = InputError("cli_list_choice", value=text, choices=", ".join(choices))
            raise argparse.ArgumentTypeError(error.message(lang))
        return items

    read.__name__ = "list"
    return read


def _thresholds(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(item) for item in text.split(",") if item.strip())
    except ValueError:
        raise InputError("explorer_threshold", thresholds=text) from None


def _add_contributions_parser(commands) -> None:
    """`contributions`: what each token contributes to each other, per layer, as a capture file."""
    contributions = commands.add_parser(
        "contributions",
        help="write what each token contributes (ALTI …) as attention data (json, npz, csv)",
        description="Write per-layer token × token contributions (layer-major, rows = queries) with tokens and "
        "provenance, as capture writes weights.",
    )
    contributions.add_argument(
        "--model", "-m", required=True, help="catalogue name (see `models`), HF folder or hub id"
    )
    text = contributions.add_mutually_exclusive_group(required=True)
    text.add_argument("--text", "-t", help="the input (source) text")
    text.add_argument("--input", "-i", type=Path, help="a UTF-8 file, one example per line (source<TAB>target)")
    contributions.add_argument("--target", help="target text to force-decode (encoder-decoder models)")
    contributions.add_argument(
        "--method",
        default="alti",
        help="alti (each layer's own contributions, the default), alti-rollout (traced back to the input tokens; "
        "ALTI+ through a translator's decoder), value-zeroing (Mohebbi et al. 2023) or saliency (gradient × input "
        "of each output token)",
    )
    contributions.add_argument(
        "--kind", choices=("self", "encoder", "decoder", "cross"), help="only this map's layers (not for saliency)"
    )
    contributions.add_argument("--device", default="auto", help="auto (npu → cuda → mps → cpu), cpu, cuda, npu, mps")
    contributions.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")
    contributions.add_argument(
        "--format", choices=("json", "npz", "csv"), help="default: from the output suffix, else json"
    )
    contributions.add_argument("--output", "-o", required=True, type=Path, help="file to write (a folder with --input)")
    contributions.add_argument("--force", "-f", action="store_true", help="replace existing files")
    contributions.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _add_atlas_parser(commands) -> None:
    """`atlas`: every head of a long text as block maps, exact, through fused kernels."""
    atlas = commands.add_parser(
        "atlas",
        help="every head of a long text as exact block maps (npz, png, svg, pdf)",
        description="Run the model once through fused kernels and write every head's block masses, head statistics "
        "and provenance (npz, with the queries, keys and LSE that reopen exact windows), or a poster of every head.",
    )
    atlas.add_argument("--model", "-m", required=True, help="catalogue name (see `models`), HF folder or hub id")
    text = atlas.add_mutually_exclusive_group(required=True)
    text.add_argument("--text", "-t", help="the input (source) text")
    text.add_argument("--input", "-i", type=Path, help="a UTF-8 file: the whole file is one text")
    atlas.add_argument("--target", help="target text to force-decode (encoder-decoder models)")
    atlas.add_argument("--kind", choices=KINDS, help="poster: which map (default: self, or encoder)")
    atlas.add_argument("--block", type=int, default=64, help="tokens per block along each axis (default 64)")
    atlas.add_argument(
        "--sink", type=int, default=4, help="the first tokens whose weight is the sink mass (default 4, StreamingLLM)"
    )
    atlas.add_argument(
        "--no-windows",
        dest="windows",
        action="store_false",
        help="npz: keep blocks and statistics only, not the queries, keys and LSE that reopen exact windows",
    )
    atlas.add_argument("--device", default="auto", help="auto (npu → cuda → mps → cpu), cpu, cuda, npu, mps")
    atlas.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")
    atlas.add_argument("--format", choices=("npz", "png", "svg", "pdf"), help="default: from the output suffix")
    atlas.add_argument("--engine", choices=("auto", "kaleido", "static"), default="auto", help="png/svg/pdf renderer")
    atlas.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the poster and messages")
    atlas.add_argument("--output", "-o", required=True, type=Path, help="the file to write")
    atlas.add_argument("--force", "-f", action="store_true", help="replace an existing file")
    atlas.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


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
    _add_placement_arguments(find, getattr(find, "lang", "en"))
    find.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")


def _add_head_effects_parser(commands) -> None:
    """`head-effects`: the exact effect of removing each head, its estimate, per-token effects."""
    effects = commands.add_parser(
        "head-effects",
        help="how much removing each head changes the output (csv, parquet)",
        description="Remove each head in turn (exactly, batched) and write its effect on the output, the fast "
        "estimate and the per-token effects: one row per stack, layer and head.",
    )
    effects.add_argument("--model", "-m", required=True, help="catalogue name (see `models`), HF folder or hub id")
    effects.add_argument("--text", "-t", required=True, help="the input (source) text")
    effects.add_argument("--target", help="the translation or continuation whose log-probability is measured")
    effects.add_argument("--generate", type=int, metavar="N", help="without --target: the model writes up to N (32)")
    effects.add_argument(
        "--estimate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also the attribution-patching estimate and its Spearman ρ (default on)",
    )
    effects.add_argument("--format", choices=("csv", "parquet"), help="default: from the output suffix")
    effects.add_argument("--device", default="auto", help="auto (npu → cuda → mps → cpu), cpu, cuda, npu, mps")
    effects.add_argument("--output", "-o", required=True, type=Path, help="the file to write (.csv or .parquet)")
    effects.add_argument("--force", "-f", action="store_true", help="replace existing files")


def _add_faithfulness_parser(commands) -> None:
    """`faithfulness`: every measure scored on one input by removing tokens in its order (ERASER, deletion curves)."""
    scored = commands.add_parser(
        "faithfulness",
        help="score every measure on one input: which explanation to believe (csv, json, png, svg, pdf, html)",
        description="Remove input tokens in each measure's order of relevance (mask and random tokens), score the "
        "output's change (ERASER comprehensiveness and sufficiency, deletion and insertion curves) beside random "
        "orders, and rank the measures. A translation also gets the detached-translation flag.",
    )
    scored.add_argument("--model", "-m", required=True, help="catalogue name (see `models`), HF folder or hub id")
    scored.add_argument("--text", "-t", required=True, help="the input (source) text")
    scored.add_argument("--target", help="a translator's target, force-decoded (default: the model writes it)")
    scored.add_argument(
        "--row", type=int, help="a translator's target token scored, from 0 (default: the whole target)"
    )
    scored.add_argument(
        "--measures", type=_comma_list, help="comma-separated measures (default: all; attention weights always)"
    )
    scored.add_argument("--random-orders", type=int, default=3, help="random orders averaged into the floor (3)")
    scored.add_argument("--seed", type=int, default=0, help="seed of the random orders and random tokens (0)")
    scored.add_argument("--format", choices=("csv", "json", "png", "svg", "pdf", "html"), help="default: the suffix")
    scored.add_argument("--device", default="auto", help="auto (npu → cuda → mps → cpu), cpu, cuda, npu, mps")
    scored.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the verdict, figure, errors")
    scored.add_argument("--output", "-o", required=True, type=Path, help="the file to write; its suffix says how")
    scored.add_argument("--force", "-f", action="store_true", help="replace existing files")


def _add_lens_parsers(commands) -> None:
    """`lens` (the logit lens) and `decoder-lens` (DecoderLens): what each layer would write."""
    lens = commands.add_parser(
        "lens",
        help="the logit lens: each layer's next-token prediction (csv, json, png, svg, pdf, html)",
        description="Read every layer's residual stream through the model's own final norm and output embedding.",
    )
    decoder = commands.add_parser(
        "decoder-lens",
        help="DecoderLens: what a translator writes from each encoder layer (json, png, svg, pdf, html)",
        description="Let the decoder read each encoder layer's output in place of the last one.",
    )
    for parser in (lens, decoder):
        parser.add_argument("--model", "-m", required=True, help="catalogue name (see `models`), HF folder or hub id")
        parser.add_argument("--text", "-t", required=True, help="the input (source) text")
        parser.add_argument("--generate", type=int, metavar="N", help="a translator writes up to N tokens (32)")
        parser.add_argument("--device", default="auto", help="auto (npu → cuda → mps → cpu), cpu, cuda, npu, mps")
        parser.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")
        parser.add_argument("--output", "-o", required=True, type=Path, help="the file to write; its suffix says how")
        parser.add_argument("--force", "-f", action="store_true", help="replace an existing file")
        parser.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the figure and errors")
        parser.add_argument("--engine", choices=("auto", "kaleido", "static"), default="auto", help="figure renderer")
    lens.add_argument("--target", help="a translator's target, force-decoded (default: the model writes it)")
    lens.add_argument("--top-k", type=int, default=5, help="the most probable tokens kept per layer and position (5)")
    decoder.add_argument(
        "--beams", type=int, metavar="N", help="beams of beam search, 1 = greedy (default: the model's)"
    )


def _add_compare_parser(commands) -> None:
    """`compare`: two inputs, two models or two devices, head by head (`attnviz.compare`)."""
    compare = commands.add_parser(
        "compare",
        help="compare the attention of two inputs, two models or two devices head by head",
        description="Rank every head by how much its attention changed from A to B (Jensen–Shannon divergence of "
        "matched rows), and draw A − B.",
    )
    side = compare.add_argument_group("A and B")
    side.add_argument("--model", "-m", required=True, help="model A: catalogue name, HF folder or hub id")
    side.add_argument("--model-b", help="model B (default: model A)")
    side.add_argument("--text", "-t", required=True, help="text A")
    side.add_argument("--text-b", help="text B (default: text A)")
    side.add_argument("--target", help="target A to force-decode (encoder-decoder models)")
    side.add_argument("--target-b", help="target B (default: target A)")
    side.add_argument("--kind", choices=KINDS, help="map of A (default: cross for translation pairs, else self)")
    side.add_argument("--kind-b", choices=KINDS, help="map of B (default: A's, or the one reading the same tokens)")
    side.add_argument("--device", default="auto", help="device of A: auto, cpu, cuda, npu, mps")
    side.add_argument("--device-b", help="device of B (default: A's); the same model on two devices is a parity check")
    side.add_argument(
        "--dtype-b",
        choices=("float16", "bfloat16"),
        help="run model B in this half precision (the CPU runs it for this comparison too; float16 only on mps); "
        "the same model in two precisions is a parity check",
    )
    side.add_argument(
        "--pair-heads",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="pair each head of A with the head of B that looks most alike (minimum-cost assignment); default: "
        "when the models differ",
    )
    side.add_argument("--truncate", action="store_true", help="keep the first tokens of too-long input")
    _add_compare_output_arguments(compare.add_argument_group("view and output"))


def _add_compare_output_arguments(view) -> None:
    """What a comparison compares and draws, and the file it writes."""
    view.add_argument("--weighting", choices=viewing.WEIGHTINGS, default=ViewOptions.weighting, help="what is compared")
    view.add_argument(
        "--hide-special",
        action=argparse.BooleanOptionalAction,
        default=ViewOptions.hide_special,
        help="leave special tokens out (default on, as in the app)",
    )
    view.add_argument(
        "--figure",
        choices=("diff", "sides"),
        default="diff",
        help="the figure file: diff (A − B on the words both share) or sides (A's and B's alignment diagrams side by "
        "side, laid out alike)",
    )
    view.add_argument("--layer", default=None, help="figure: this layer (default: the mean of all)")
    view.add_argument("--head", default=None, help="figure: this head of --layer (default: their mean)")
    view.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the figure and messages")
    view.add_argument("--engine", choices=("auto", "kaleido", "static"), default="auto", help="png/svg/pdf renderer")
    view.add_argument(
        "--output",
        "-o",
        required=True,
        type=Path,
        help="ranking.csv (kind, layer, head, layer_b, head_b, js) or the --figure: .png, .svg, .pdf, .html, .json (the "
        "plotly figure)",
    )
    view.add_argument("--force", "-f", action="store_true", help="replace an existing file")


def parse(argv: list[str]) -> Request:
    """The request a command line makes (argparse's Namespace made a Request at once), its errors said in the
    language it asks for; a bad argument exits with 2."""
    return request_of(build_parser(asked_lang(argv)).parse_args(argv))
