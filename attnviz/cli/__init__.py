"""`python -m attnviz`: capture attention and export figures or data from the command line.

    python -m attnviz export --model demo-zh-en --text 早上好！ --target "Good morning!" --view alignment -o a.png
    python -m attnviz export --model minilm --text "The cat sat." --view heatmap --layer 5 --head 2 -o h.svg
    python -m attnviz capture --model demo-en-zh --text "Good morning!" --generate 16 -o c.json
    python -m attnviz export --model minilm --input lines.txt --view grid --format png -o figures/
    python -m attnviz contributions --model demo-zh-en --text 早上好！ --target "Good morning!" --method alti -o c.npz
    python -m attnviz find-head --model minilm --text "The animal was tired because it ran." --query it --key animal
    python -m attnviz head-effects --model demo-zh-en --text 早上好！ --target "Good morning!" -o effects.csv
    python -m attnviz faithfulness --model demo-zh-en --text 早上好！ --target "Good morning!" --row 1 -o scores.csv
    python -m attnviz lens --model demo-decoder --text "早上好！Good morning" -o lens.csv
    python -m attnviz decoder-lens --model demo-zh-en --text 早上好！ -o decoder-lens.png
    python -m attnviz compare --model minilm --text "The animal was too tired." --text-b "The animal was too wide." -o r.csv
    python -m attnviz explorer --model demo-zh-en --text 早上好！ --target "Good morning!" -o explorer.html
    python -m attnviz atlas --model demo-decoder --input long.txt -o atlas.npz
    python -m attnviz models

With --input FILE every non-empty line is one example ("source" or "source<TAB>target"), a progress bar runs on
stderr, and --output names a folder that receives 0001.<format>, 0002.<format>, ... (numbered by line). With --text,
an --output that is an existing folder receives one file named after what it holds (`attnviz.export.figure_filename`: no
path separators or control characters; png or json unless --format says otherwise).
Bad arguments and attnviz errors print one line on stderr and exit with 2 (in English, or in Chinese for
`export --lang zh`, whose figures speak Chinese: argparse's own messages too); existing files are kept unless --force;
every file is written atomically (temporary file, then rename).

A figure is the one the app draws for the same options (`attnviz.view.selection`, which both call), written as the app's
download buttons write it: --aggregation, --layer, --head, --words, --hide-special, --threshold, --step and --lang
mean what the app's controls of those names mean, with the app's defaults. --layer and --head also take lists
("0,2", "all") and --head "mean" or "max", which the app does not offer.

A file in an --output folder is named as the app's downloads are: view, model, layer/head and the first words of the
text (e.g. alignment_demo-zh-en_Halign_早上好.png), a capture by its model and text (`capture_filename`). Figure
size (`attnviz.export.sizing`): --width/--height in px (1/96 in), --scale (1–4) or --dpi (96–384) for PNG, or a print
--preset (single-column: 3.5 in at 300 dpi; double-column; slide). Every capture and figure written records its
provenance (`attnviz.provenance`): model and weights hash, device, dtype, versions, texts, options and time.

The package: `parser` (commands, options, argparse's messages in --lang), `request` (the arguments as one frozen
Request), `inputs` (--text or --input examples), `options` (the request as the app's ViewOptions, sizes, argument
checks), `outputs` (file names and formats), `batch` (each example through `attnviz.run` and written) and one
module per command in `commands`.
"""

from __future__ import annotations

import contextlib
import os
import sys

from attnviz.cli.commands import (
    atlas,
    capture,
    compare,
    contributions,
    corpus,
    devices,
    doctor,
    explorer,
    export,
    faithfulness,
    find_head,
    head_effects,
    lens,
    models,
)
from attnviz.cli.messages import PROG
from attnviz.cli.parser import asked_lang, build_parser
from attnviz.cli.request import Request, request_of
from attnviz.errors import AttnvizError

COMMANDS = {
    "export": export.run,
    "explorer": explorer.run,
    "capture": capture.run,
    "contributions": contributions.run,
    "find-head": find_head.run,
    "head-effects": head_effects.run,
    "faithfulness": faithfulness.run,
    "lens": lens.run_lens,
    "decoder-lens": lens.run_decoder_lens,
    "compare": compare.run,
    "devices": devices.run,
    "doctor": doctor.run,
    "atlas": atlas.run,
}


def _run(request: Request) -> int:
    if request.command == "models":
        return models.run()
    return COMMANDS[request.command](request)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 file-system failure, 2 bad arguments or input).

    Its messages are English; `export --lang zh` (Chinese titles and labels) says its errors in Chinese too, those
    of a bad argument included (the --lang is read before the arguments are parsed)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(asked_lang(argv)).parse_args(argv)
    request = request_of(args)  # the one place the Namespace is read; the corpus job reads its own arguments
    try:
        return corpus.run(args) if request.command in ("corpus", "corpus-workers") else _run(request)
    except AttnvizError as error:
        print(f"{PROG}: error: {error.message(request.lang)}", file=sys.stderr)
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
