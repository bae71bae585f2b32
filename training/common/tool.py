"""How a training command ends on a refused input: one line on stderr, exit code 2."""

from __future__ import annotations

import sys

from attnviz.errors import AttnvizError


def run_tool(prog: str, work, *arguments):
    """`work(*arguments)` for a command-line tool: an AttnvizError is one line on stderr and exit code 2."""
    try:
        return work(*arguments)
    except AttnvizError as error:
        print(f"{prog}: error: {error.message('en')}", file=sys.stderr)
        sys.exit(2)
