"""The CLI called as a user calls it, and its one-line error read back: shared by the CLI tests."""

from __future__ import annotations

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
