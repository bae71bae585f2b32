"""The examples a command draws or captures: the --text (and --target, --gold), or each line of an --input file
("source", "source<TAB>target" or "source<TAB>target<TAB>gold links"), a line that cannot be drawn kept with its
reason (said, and skipped)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

from attnviz import i18n
from attnviz.cli.messages import PROG
from attnviz.cli.request import Request
from attnviz.corpus.inputs import header_names, input_columns
from attnviz.errors import InputError


@dataclass(frozen=True)
class Example:
    number: int  # 1-based line number in --input, or 1 for --text
    text: str
    target: str | None
    gold: str | None = None  # gold links of the pair (Pharaoh), drawn over its alignment (`attnviz.corpus.view`)
    refused: InputError | None = None  # why this --input line cannot be drawn (said, and the line skipped)


def examples(request: Request) -> list[Example]:
    if request.input is None:
        return [Example(1, request.text, request.target, request.gold)]
    data = input_bytes(request.input)
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
            said = InputError("corpus_header", columns=", ".join(names)).message(request.lang)
            print(
                f"{PROG}: warning: {i18n.t('cli.line', getattr(request, 'lang', 'en'), line=1)}{said}", file=sys.stderr
            )
            continue
        columns = input_columns(line)
        while len(columns) > 1 and not columns[-1].strip():  # trailing tabs a spreadsheet left
            columns.pop()
        text, target, gold = (*columns, "", "")[:3]  # a third column: the pair's gold links
        example = Example(number, text, target if target.strip() else None, gold.strip() or None)
        examples.append(replace(example, refused=_refused(example, len(columns), request)))
    if not examples:
        raise InputError("cli_input_empty", path=str(request.input))
    return examples


def input_bytes(path: Path) -> bytes:
    """The bytes of an --input file; a missing file, a folder or UTF-16 text said in one sentence."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("cli_input_missing", path=str(path)) from None
    except IsADirectoryError as error:
        raise InputError("cli_input_not_text", path=str(path), detail=str(error)) from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16: every line would be unreadable
        raise InputError("cli_input_not_text", path=str(path), detail="UTF-16")
    return data


def _refused(example: Example, columns: int, request: Request) -> InputError | None:
    """Why an --input line cannot be drawn as asked: more columns than text, target and links, or a target given
    where --generate writes one."""
    if columns > 3:
        return InputError("cli_input_columns", count=columns)
    if example.target is not None and request.generate is not None:
        return InputError("cli_input_target_and_generate")
    return None
