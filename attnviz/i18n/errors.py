"""The sentences of attnviz's errors (attnviz.errors), in English and 中文: key `error.<key>` for `Error("<key>", ...)`.

Each sentence says what went wrong and what to do about it; {placeholders} are the values the raise passes. The
parts some sentences are built from (`Phrase`s: what was being done, what to do instead) follow their sentences.
"""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "error_SettingError": "A setting is not valid",
    },
    "zh": {
        "error_SettingError": "设置有误",
    },
}
