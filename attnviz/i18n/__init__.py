"""The string catalogue: every string attnviz shows, in English and 中文, in one package.

Each module of this package holds the words of one area as `STRINGS = {"en": {...}, "zh": {...}}`; this module joins
them into one catalogue (a key may be defined once only) and looks keys up: `t(key, lang, **values)`. Both languages
must have the same keys with the same {placeholders}; tests/unit/test_app_i18n.py checks it.
"""

from __future__ import annotations

from attnviz.i18n import (
    app,
    atlas,
    compare,
    corpus,
    decoder,
    devices,
    effects,
    errors,
    explorer,
    faithfulness,
    figures,
    files,
    findhead,
    formulas,
    hub,
    lens,
    live,
    longtext,
    measures,
    models,
    notebook,
    qkspace,
    saliency,
    selection,
    serving,
    settings,
    truth,
    value_zeroing,
    values,
)

LANGUAGES = {"en": "English", "zh": "中文"}
# One module per area; add a new area's module here.
PARTS = (
    app,
    errors,
    devices,
    models,
    settings,
    selection,
    formulas,
    files,
    figures,
    truth,
    hub,
    values,
    longtext,
    qkspace,
    findhead,
    corpus,
    decoder,
    lens,
    live,
    compare,
    value_zeroing,
    effects,
    measures,
    saliency,
    faithfulness,
    notebook,
    serving,
    explorer,
    atlas,
)


def _joined(parts) -> dict[str, dict[str, str]]:
    joined: dict[str, dict[str, str]] = {lang: {} for lang in LANGUAGES}
    for part in parts:
        for lang in LANGUAGES:
            clash = joined[lang].keys() & part.STRINGS[lang].keys()
            if clash:
                raise RuntimeError(f"{part.__name__} defines keys another part already has: {sorted(clash)}")
            joined[lang].update(part.STRINGS[lang])
    return joined


STRINGS: dict[str, dict[str, str]] = _joined(PARTS)


def register(part) -> None:
    """Add the strings of a part outside the product (a module with `STRINGS`, such as the training tools') to the
    catalogue. A key the catalogue already holds with other words is refused, as a clash between parts is; the same
    part registered again changes nothing."""
    for lang in LANGUAGES:
        clash = sorted(key for key, text in part.STRINGS[lang].items() if STRINGS[lang].get(key, text) != text)
        if clash:
            raise RuntimeError(f"{part.__name__} defines keys the catalogue already has: {clash}")
    for lang in LANGUAGES:
        STRINGS[lang].update(part.STRINGS[lang])


def has(key: str, lang: str = "en") -> bool:
    return key in STRINGS.get(lang, {})


def t(key: str, lang: str = "en", /, **values) -> str:
    """The string `key` in `lang` ("en" or "zh"), formatted with `values`; an unknown language reads English.

    A missing key shows as the key itself rather than failing the page (the i18n test keeps that from happening).
    """
    lang = lang if lang in STRINGS else "en"
    template = STRINGS[lang].get(key, key)
    return template.format(**values) if values else template


def error_sentence(error, lang: str = "en") -> str:
    """What the page says for an error (an `attnviz.errors.AttnvizError`): a short heading, then the error's own
    sentence, both in the page's language. The heading is its kind's, `error_<class name>`, of the nearest class in
    its ancestry that has one (the catalogue is below the errors, which word their sentences with it)."""
    kind = next(cls.__name__ for cls in type(error).__mro__ if has(f"error_{cls.__name__}"))
    detail = error.message(lang).strip()
    heading = t(f"error_{kind}", lang)
    return (
        f"**{heading}.** {detail}" if lang == "en" else f"**{heading}**。{detail}"
    )  # 。 outside the ** (CommonMark), no space after it
