"""What a command says beside its files: warning lines on stderr (naming the --input line they are about), errors
as part of another error's sentence, and transformers' own loading bars kept quiet."""

from __future__ import annotations

import sys

from attnviz import i18n
from attnviz.cli.request import Request
from attnviz.errors import AttnvizError, Phrase

PROG = "attnviz"


def warning(sentence: str, line: int, request: Request) -> None:
    """A warning line on stderr about --input line `line` (the only line of --text, which is not named)."""
    print(f"{PROG}: warning: {where(line, request)}{sentence}", file=sys.stderr)


def where(line: int, request: Request) -> str:
    """Which --input line a message is about ("line 3: "), in the export's language; nothing for --text."""
    return i18n.t("cli.line", request.lang, line=line) if request.input is not None else ""


def error_phrase(error: AttnvizError) -> Phrase | str:
    """An error as a part of another error's sentence, said in that sentence's language (when it has a key)."""
    key = f"error.{error.key}"
    return Phrase(key, **error.values) if i18n.has(key) else str(error)


def quiet_libraries() -> None:
    """Transformers' own loading bars would interleave with ours; its warnings stay on (but for the tokenizer's
    on a too-long text, which attnviz says itself: `attnviz.attention.encoding`)."""
    try:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
    except ImportError:  # the model loader reports a missing transformers itself
        pass
