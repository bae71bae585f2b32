"""`attnviz corpus` and `attnviz corpus-workers`: the corpus job (`attnviz.corpus.command`, which reads its own
arguments into the job's config)."""

from __future__ import annotations

import argparse

from attnviz.cli.messages import quiet_libraries
from attnviz.corpus import command as corpus_command


def run(args: argparse.Namespace) -> int:
    quiet_libraries()
    return corpus_command.run(args) if args.command == "corpus" else corpus_command.stop_workers(args)
