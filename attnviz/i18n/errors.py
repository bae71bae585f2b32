"""The sentences of attnviz's errors (attnviz.errors), in English and 中文: key `error.<key>` for `Error("<key>", ...)`.

Each sentence says what went wrong and what to do about it; {placeholders} are the values the raise passes. The
parts some sentences are built from (`Phrase`s: what was being done, what to do instead) follow their sentences.
"""

from attnviz.i18n import errors_en, errors_zh

STRINGS: dict[str, dict[str, str]] = {"en": errors_en.STRINGS, "zh": errors_zh.STRINGS}
