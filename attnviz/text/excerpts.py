"""A person's text quoted on screen: a long one shortened to its start, an ellipsis and how much was left out, so a
20,000-character input never fills a page where one line would say what it is."""

from __future__ import annotations

from attnviz import i18n

QUOTE_CHARS = 80  # characters of a text a sentence quotes before it says how many more there are


def excerpt(text: str, lang: str = "en", limit: int = QUOTE_CHARS) -> str:
    """`text` when it has at most `limit` characters, else its first `limit` (cut at a space when one is near the
    end, so a word is not split) followed by "… (+N characters)" in `lang`."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = head.rfind(" ")
    if space >= limit * 3 // 4:
        head = head[:space]
    return head.rstrip() + i18n.t("excerpt_more", lang, count=f"{len(text) - len(head.rstrip()):,}")
