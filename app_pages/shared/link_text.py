"""Long texts in a shared link: a text up to `PLAIN_CHARS` characters stands in the link as itself; a longer one is
packed (zlib, then URL-safe base64) under `NAME_z`, so the link reopens the whole text. Only a text whose packed form
would still be longer than `MAX_PACKED_CHARS` (beyond what servers accept in a URL) is cut, and then the link says so
under `NAME_cut` (the whole text's length), so the reopened page can say what is missing."""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Mapping

PLAIN_CHARS = 2000  # characters a text keeps as itself in a link
MAX_PACKED_CHARS = 30_000  # characters of a packed text: well inside the 64 KiB a server reads of a request line
MAX_UNPACKED_CHARS = 1_000_000  # a packed text that unpacks to more is refused (a link is no place for a zip bomb)
PACKED, CUT = "_z", "_cut"  # suffixes of the link parameters that carry a packed text and a cut text's length


def pack(text: str) -> str:
    """`text` as URL-safe characters: zlib at level 9, base64 without padding."""
    return base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii").rstrip("=")


def unpack(packed: str) -> str:
    """The text `pack` made; ValueError when `packed` is not one (or unpacks to more than MAX_UNPACKED_CHARS)."""
    try:
        data = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(data, 4 * MAX_UNPACKED_CHARS)  # UTF-8: at most 4 bytes a character
        if inflater.unconsumed_tail or not inflater.eof:
            raise ValueError("packed text too long or incomplete")
        return raw.decode("utf-8")
    except (binascii.Error, zlib.error, UnicodeDecodeError) as error:
        raise ValueError(str(error)) from None


def link_params(name: str, text: str) -> dict[str, str]:
    """The link parameters that carry field `name`'s `text`: itself, packed, or packed and cut (with its length)."""
    if len(text) <= PLAIN_CHARS:
        return {name: text}
    packed, kept = pack(text), len(text)
    while len(packed) > MAX_PACKED_CHARS:  # packing shrinks text roughly in proportion: a few rounds at most
        kept = int(kept * MAX_PACKED_CHARS / len(packed) * 0.95)
        packed = pack(text[:kept])
    params = {name + PACKED: packed}
    if kept < len(text):
        params[name + CUT] = str(len(text))
    return params


def text_in_link(params: Mapping[str, str], name: str) -> str | None:
    """Field `name`'s text as the link gives it (packed or as itself), or None when the link has none; ValueError
    when a packed text cannot be read."""
    if name + PACKED in params:
        return unpack(params[name + PACKED])
    return params.get(name)


def cut_in_link(params: Mapping[str, str], name: str, kept: str) -> int | None:
    """The whole length of field `name`'s text when the link holds only its first `len(kept)` characters, else None."""
    try:
        whole = int(params.get(name + CUT, ""))
    except ValueError:
        return None
    return whole if whole > len(kept) else None
