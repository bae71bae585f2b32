"""The CLI called as a user calls it, and its one-line error read back: shared by the CLI tests."""

from __future__ import annotations

import os

from attnviz.cli import main


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse exits itself (--help, bad arguments)
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnviz: error: ") and "Traceback" not in err, err
    return lines[0]


def numbered(folder) -> list[str]:
    """The files an --input run wrote to `folder`, as "line number.extension" ("0003_alignment_m_早上好.png" ->
    "0003.png"), sorted: which lines gave files, whatever else their names say."""
    names = sorted(os.listdir(folder))
    return [f"{name.split('_', 1)[0]}.{name.rsplit('.', 1)[-1]}" for name in names]
