"""The explorer file's HTML page: plotly.js and the figures gzipped and base64'd into <script> elements, the choice
menu and the words in both languages as JSON, the CJK glyphs the figures show as an embedded WOFF font, the
provenance in a <meta>, and explorer.js, which unpacks them with the browser's DecompressionStream and draws the
chosen figure. The page loads nothing: no CDN, no web font, no request at all."""

from __future__ import annotations

import base64
import functools
import gzip
import html
import json
import re
from collections.abc import Mapping
from pathlib import Path

from attnviz import i18n
from attnviz.export import fontsubset
from attnviz.export.stamp import html_meta, provenance_json

SCRIPT = Path(__file__).with_name("explorer.js")
PLOT_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["toImage"]}  # the app's own chart config
# The page's words (both languages go in; dynamic ones by their prefix: kinds, views, aggregations, measures).
WORDS = (
    "language",
    "explorer_map",
    "measure",
    "explorer_view",
    "aggregation",
    "layer",
    "head",
    "explorer_tokens",
    "explorer_tokens_words",
    "explorer_tokens_pieces",
    "threshold",
    "explorer_title",
    "explorer_model",
    "explorer_source",
    "explorer_target",
    "explorer_fixed",
    "explorer_made",
    "explorer_not_held",
    "explorer_loading",
    "explorer_no_decompression",
)
WORD_PREFIXES = ("kind_", "explorer_view_", "aggregation_", "measure_choice.")
STYLE = """
body { font-family: "attnviz CJK", system-ui, sans-serif; margin: 1.2rem 1.6rem; color: #1c1c1c; }
h1 { font-size: 1.35rem; margin: 0 0 .4rem; }
p { margin: .25rem 0; }
.texts { color: #333; }
#controls { display: flex; flex-wrap: wrap; gap: .6rem 1rem; margin: .9rem 0 .5rem; }
.control { display: flex; flex-direction: column; font-size: .85rem; color: #444; gap: .15rem; }
.control select { font-size: .95rem; padding: .15rem .3rem; }
#note, #status { color: #8a5300; min-height: 1.2em; }
footer { color: #666; font-size: .8rem; margin-top: 1rem; max-width: 60rem; }
"""


def strings() -> dict[str, dict[str, str]]:
    """The page's words in every language: `WORDS` and every key starting with one of `WORD_PREFIXES`."""
    return {
        lang: {key: text for key, text in table.items() if key in WORDS or key.startswith(WORD_PREFIXES)}
        for lang, table in i18n.STRINGS.items()
    }


@functools.lru_cache(maxsize=1)
def plotly_gzipped() -> bytes:
    """plotly.js (the copy plotly.py ships, ~4.8 MB), gzipped once per process (~1.4 MB)."""
    from plotly.offline import get_plotlyjs  # plotly.py's own plotly.min.js: no network

    return gzipped(get_plotlyjs())


def _packed(element_id: str, data: bytes) -> str:
    text = base64.b64encode(data).decode("ascii")
    return f'<script id="{element_id}" type="application/octet-stream">{text}</script>'


def _font_face(text: str) -> tuple[str, str | None]:
    """(an @font-face rule of the CJK glyphs `text` shows, the family name the figures put first), or ("", None)
    without a CJK font."""
    woff = fontsubset.web_font(fontsubset.ALWAYS + text)
    if not woff:
        return "", None
    data = base64.b64encode(woff).decode("ascii")
    family = f'"{fontsubset.WEB_FAMILY}"'
    return f'@font-face {{ font-family: {family}; src: url(data:font/woff;base64,{data}) format("woff"); }}', family


def explorer_page(payload: dict, info: Mapping, texts: Mapping[str, str], provenance: dict | None) -> str:
    """The page: `payload` (`explorer_file.shared_nodes`) and `info` (the default choice, the menu, the languages,
    thresholds and word views) for explorer.js; `texts`: model, source and target, shown in the header."""
    words = strings()
    shown_text = "".join(sorted(set(json.dumps(words, ensure_ascii=False) + "".join(texts.values()))))
    font_face, family = _font_face(characters(payload) + shown_text)
    page_info = {**info, "strings": words, "languageNames": i18n.LANGUAGES, "config": PLOT_CONFIG}
    page_info["fontFamily"] = family
    lang = info["default"]["lang"]
    head = [
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(i18n.t('explorer_title', lang))} · {html.escape(texts.get('model', ''))}</title>",
        html_meta(provenance) if provenance is not None else "",
        f"<style>{font_face}{STYLE}</style>",
    ]
    body = [
        f'<h1 data-text="explorer_title">{html.escape(i18n.t("explorer_title", lang))}</h1>',
        *(_said(key, {"text": texts[name]}, lang) for key, name in _TEXT_LINES if texts.get(name)),
        '<div id="controls"></div>',
        f'<p id="status">{html.escape(i18n.t("explorer_loading", lang))}</p>',
        '<p id="note"></p>',
        '<div id="figure"></div>',
        "<footer>",
        _said("explorer_fixed", {}, lang),
        _said("explorer_made", {"version": str(info.get("version", ""))}, lang),
        "</footer>",
        _packed("attnviz-plotly", plotly_gzipped()),
        _packed("attnviz-figures", gzipped(json.dumps(payload, ensure_ascii=False, separators=(",", ":")))),
        f'<script id="attnviz-explorer-info" type="application/json">{_script_json(page_info)}</script>',
        f"<script>{SCRIPT.read_text(encoding='utf-8')}</script>",
    ]
    noscript = f"<noscript>{html.escape(i18n.t('explorer_no_script', lang))}</noscript>"
    html_lang = "zh-CN" if lang == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{html_lang}">\n<head>\n{"".join(head)}\n</head>\n<body>\n{noscript}\n'
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


_TEXT_LINES = (("explorer_model", "model"), ("explorer_source", "source"), ("explorer_target", "target"))


def _said(key: str, values: dict, lang: str) -> str:
    """A paragraph explorer.js says again in the reader's language (`data-text`, `data-values`)."""
    encoded = html.escape(json.dumps(values, ensure_ascii=False), quote=True)
    text = html.escape(i18n.t(key, lang, **values))
    return f'<p class="texts" data-text="{key}" data-values="{encoded}">{text}</p>'


def _script_json(value) -> str:
    """JSON safe inside a <script> element: every "<" escaped, so nothing in it can end or comment out the script."""
    return provenance_json(value).replace("<", "\\u003c")


def gzipped(text: str) -> bytes:
    """`text` as UTF-8, gzipped (mtime 0: the same figures make the same bytes)."""
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def characters(payload: dict) -> str:
    """Every character the payload's figures may show (entities decoded), sorted: for the embedded font's subset."""
    found: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, str):
            found.update(html.unescape(value))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(payload["nodes"])
    walk(payload["figures"])
    return "".join(sorted(found))


def read_page(page: bytes) -> tuple[dict, dict]:
    """(info, payload) of an explorer page, unpacked as explorer.js unpacks them: what a test or a script reads."""
    text = page.decode("utf-8")

    def element(element_id: str) -> str:
        found = re.search(rf'<script id="{element_id}" type="[^"]+">(.*?)</script>', text, re.S)
        if found is None:
            raise ValueError(f"not an explorer file: no {element_id}")
        return found.group(1)

    payload = json.loads(gzip.decompress(base64.b64decode(element("attnviz-figures"))).decode("utf-8"))
    return json.loads(element("attnviz-explorer-info")), payload
