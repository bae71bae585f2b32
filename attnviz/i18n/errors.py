"""The sentences of attnviz's errors (attnviz.errors), in English and 中文: key `error.<key>` for `Error("<key>", ...)`.

Each sentence says what went wrong and what to do about it; {placeholders} are the values the raise passes.
"""

STRINGS: dict[str, dict[str, str]] = {
    "en": {},
    "zh": {},
}
