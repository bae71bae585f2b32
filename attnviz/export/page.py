"""The standalone HTML page of a figure: plotly.js inlined, the Chinese font embedded, its provenance in a <meta>.

It opens offline and loads nothing — no CDN, no web font service: the page's only font beyond the viewer's own is a
WOFF subset of the CJK font holding exactly the characters the figure shows (`attnviz.export.fontsubset`), inlined
as a base64 @font-face under the name "attnviz CJK" and put first in the figure's font family, so Chinese shows on
a machine with no CJK font at all.
"""

from __future__ import annotations

import base64
import html
import re

from attnviz.export import fontsubset
from attnviz.export.stamp import html_meta


def _font_face(woff: bytes) -> str:
    data = base64.b64encode(woff).decode("ascii")
    return (
        f'<style>@font-face {{ font-family: "{fontsubset.WEB_FAMILY}"; '
        f'src: url(data:font/woff;base64,{data}) format("woff"); }}</style>'
    )


def _with_embedded_family(fig):
    """A copy of `fig` whose text asks for the embedded font first (the viewer's fonts follow, for anything else)."""
    import plotly.graph_objects as go  # plotly loads only when a figure is written as HTML

    family = fig.layout.font.family or "sans-serif"
    quoted = f'"{fontsubset.WEB_FAMILY}"'
    copy = go.Figure(fig)
    if quoted not in family:
        copy.update_layout(font_family=f"{quoted}, {family}")
    return copy


def figure_html(fig, provenance: dict | None = None) -> str:
    """A standalone page for the figure with plotly.js inlined (~5 MB) and the CJK glyphs it shows embedded (a few
    KB): opens offline, loads nothing. `provenance` (a dict) goes into a <meta name="attnviz-provenance">."""
    woff = fontsubset.web_font(fontsubset.figure_text(fig))
    shown = _with_embedded_family(fig) if woff else fig
    page = shown.to_html(include_plotlyjs=True, full_html=True, config={"displaylogo": False, "responsive": True})
    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else "attnviz"
    heading = html.escape(html.unescape(re.sub(r"<[^<>]+>", " ", title)).strip())  # plain text for the tab
    head = [f"<title>{heading}</title>"]
    if provenance is not None:
        head.append(html_meta(provenance))
    if woff:
        head.append(_font_face(woff))
    return page.replace("<head>", "<head>\n    " + "\n    ".join(head), 1)
