"""Where a figure file says what it shows and where it came from: a provenance dict (`attnviz.provenance`) written
into the file's own metadata, the same way whichever engine drew it, and read back by `read_stamp`.

- PNG: an iTXt chunk "attnviz:provenance" (UTF-8 JSON) and "Software"; its pHYs chunk records the print resolution
  (96 × scale dpi), so a word processor places it at its intended printed size.
- PDF: the document information dictionary: /Title (the figure's title), /Creator, and /AttnvizProvenance (JSON).
- SVG: a <metadata id="attnviz-provenance"> element holding the JSON.
- HTML: <meta name="attnviz-provenance" content="JSON"> (written by `attnviz.export.html`).
The JSON is written with non-ASCII characters as they are (Chinese stays readable); lone surrogates and the two
non-characters XML refuses are \\u-escaped, which JSON reads back identically.
"""

from __future__ import annotations

import html
import io
import json
import re
import struct
import zlib
from xml.sax.saxutils import escape

from attnviz.errors import InputError
from attnviz.version import __version__

KEY = "attnviz:provenance"
PDF_KEY = "/AttnvizProvenance"
SVG_ID = "attnviz-provenance"
SOFTWARE = f"attnviz {__version__}"
_UNWRITABLE = re.compile("[\ud800-\udfff\ufffe\uffff]")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def provenance_json(provenance: dict) -> str:
    """The provenance as one line of JSON that UTF-8, XML and HTML can all carry."""
    text = json.dumps(provenance, ensure_ascii=False, separators=(",", ":"), default=str)
    return _UNWRITABLE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def stamp(data: bytes, fmt: str, provenance: dict | None = None, *, dpi: float | None = None, title: str = "") -> bytes:
    """`data` (a PNG, PDF or SVG file) with `provenance` in its metadata and, for PNG, `dpi` in its pHYs chunk."""
    if fmt == "png":
        return _stamp_png(data, provenance, dpi)
    if fmt == "pdf":
        return _stamp_pdf(data, provenance, title)
    if fmt == "svg":
        return _stamp_svg(data, provenance)
    raise InputError("stamp_format", fmt=fmt)


def _png_chunks(data: bytes):
    """(type, body) of each chunk of a PNG file, in order."""
    if not data.startswith(_PNG_SIGNATURE):
        raise InputError("stamp_not_png")
    offset = len(_PNG_SIGNATURE)
    while offset + 8 <= len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        yield kind, data[offset + 8 : offset + 8 + length]
        offset += 12 + length


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _stamp_png(data: bytes, provenance: dict | None, dpi: float | None) -> bytes:
    """The same PNG with a pHYs chunk for `dpi` (replacing any) and the provenance as iTXt, both right after IHDR."""
    added = b""
    if dpi:
        per_metre = round(dpi / 0.0254)
        added += _png_chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1))
    if provenance is not None:
        for keyword, text in ((KEY, provenance_json(provenance)), ("Software", SOFTWARE)):
            body = keyword.encode("latin-1") + b"\x00\x00\x00\x00\x00" + text.encode("utf-8")  # uncompressed, no lang
            added += _png_chunk(b"iTXt", body)
    out = [_PNG_SIGNATURE]
    for kind, body in _png_chunks(data):
        if (kind == b"pHYs" and dpi) or (kind in (b"tEXt", b"iTXt") and provenance is not None):
            continue  # replaced by ours (an engine's own Software text included)
        out.append(_png_chunk(kind, body))
        if kind == b"IHDR":
            out.append(added)
    return b"".join(out)


def _stamp_pdf(data: bytes, provenance: dict | None, title: str) -> bytes:
    from pypdf import PdfWriter  # pypdf loads only for a PDF

    writer = PdfWriter(clone_from=io.BytesIO(data))
    info = {"/Creator": SOFTWARE}
    if title:
        info["/Title"] = title
    if provenance is not None:
        info[PDF_KEY] = provenance_json(provenance)
    writer.add_metadata(info)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _stamp_svg(data: bytes, provenance: dict | None) -> bytes:
    if provenance is None:
        return data
    text = data.decode("utf-8")
    root = re.search(r"<svg\b[^>]*>", text)
    if root is None:
        raise InputError("stamp_not_svg")
    element = f'\n<metadata id="{SVG_ID}">{escape(provenance_json(provenance))}</metadata>'
    return (text[: root.end()] + element + text[root.end() :]).encode("utf-8")


def html_meta(provenance: dict) -> str:
    """The <meta> element that carries the provenance in an HTML page's head."""
    return f'<meta name="{SVG_ID}" content="{html.escape(provenance_json(provenance), quote=True)}">'


def read_stamp(data: bytes, fmt: str) -> dict | None:
    """The provenance a figure file carries (PNG, PDF, SVG or HTML), or None when it has none."""
    if fmt == "png":
        found = [body for kind, body in _png_chunks(data) if kind == b"iTXt" and body.startswith(KEY.encode() + b"\0")]
        text = found[0].split(b"\x00", 5)[5].decode("utf-8") if found else None
    elif fmt == "pdf":
        from pypdf import PdfReader  # pypdf loads only for a PDF

        text = (PdfReader(io.BytesIO(data)).metadata or {}).get(PDF_KEY)
    elif fmt == "svg":
        match = re.search(rf'<metadata id="{SVG_ID}">(.*?)</metadata>', data.decode("utf-8"), re.DOTALL)
        text = html.unescape(match.group(1)) if match else None
    elif fmt == "html":
        match = re.search(rf'<meta name="{SVG_ID}" content="([^"]*)">', data.decode("utf-8"))
        text = html.unescape(match.group(1)) if match else None
    else:
        raise InputError("stamp_read_format", fmt=fmt)
    return None if text is None else json.loads(str(text))
