"""Every file uploader of the app, its built-in words in the view's language.

Streamlit 1.67 writes its uploader's own words ("Upload", "64MB per file • JSON, NPZ", "Drag and drop a file here")
in English and has no parameter for them. In another language a style sheet scoped to the uploader's key
(`.st-key-<key>`, the class Streamlit gives a keyed widget's container) hides each of those texts and writes the
translation in its place (CSS `::after` content). The selectors are the data-testid names of Streamlit 1.67's
FileUploader component (static/js/FileUploader.*.js); a browser test checks what the page shows.
"""

from __future__ import annotations

import re

import streamlit as st

from app_pages.shared import opened
from app_pages.shared.state import ViewState
from attnviz import i18n

ZONE = '[data-testid="stFileUploaderDropzone"]'
# (what holds the English text and is hidden, what shows the translation instead, its catalogue key)
BUTTON = (f'{ZONE} button [data-testid="stMarkdownContainer"] p', f'{ZONE} button [data-testid="stMarkdownContainer"]')
LIMIT = '[data-testid="stFileUploaderDropzoneInstructions"] span'
DRAG = f"{ZONE} > div:not([data-testid]) > span"  # shown only while a file is dragged over the zone


def file_uploader(view: ViewState, label: str, *, key: str, types: list[str], multiple: bool = False, **kwargs):
    """`st.file_uploader` whose built-in words follow the view's language (see the module's note)."""
    if view.lang != "en":
        limit_mb = opened.upload_limit_bytes() // opened.MIB
        st.html(f"<style>{uploader_style(view.lang, key, types, multiple, limit_mb)}</style>")
    return st.file_uploader(label, type=types, key=key, accept_multiple_files=multiple, **kwargs)


def uploader_style(lang: str, key: str, types: list[str], multiple: bool, limit_mb: int) -> str:
    """The style sheet that writes uploader `key`'s built-in words in `lang` (`limit_mb`: the server's limit)."""
    scope = ".st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())  # as Streamlit names the class
    words = {
        "button": i18n.t("uploader_button", lang),
        "limit": i18n.t(
            "uploader_limit",
            lang,
            limit=limit_mb,
            types=i18n.t("truth_list_separator", lang).join(t.upper() for t in types),
        ),
        "drag": i18n.t("uploader_drag_many" if multiple else "uploader_drag", lang),
    }
    hidden, shown = BUTTON
    return "\n".join(
        [
            f"{scope} {hidden} {{display: none;}}",
            f"{scope} {shown}::after {{content: {_css_string(words['button'])};}}",
            # font-size 0 hides the English and keeps the span's colour; the translation gets Streamlit's small size
            f"{scope} {LIMIT}, {scope} {DRAG} {{font-size: 0;}}",
            f"{scope} {LIMIT}::after {{content: {_css_string(words['limit'])}; font-size: 0.875rem;}}",
            f"{scope} {DRAG}::after {{content: {_css_string(words['drag'])}; font-size: 1rem;}}",
        ]
    )


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'
