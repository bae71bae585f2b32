"""Writing files: which format a path asks for, a safe file name from any text, and atomic writes."""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata
from pathlib import Path

from attnviz.errors import InputError

FIGURE_FORMATS = ("png", "svg", "pdf", "html")
DATA_FORMATS = ("json", "npz", "csv")
_SUFFIXES = {".htm": "html"}


def format_of(path: str | os.PathLike, fmt: str | None, allowed: tuple[str, ...]) -> str:
    """The format to write: `fmt` if given, else the file suffix; an error naming the choices otherwise."""
    suffix = Path(path).suffix.lower()
    chosen = (fmt or _SUFFIXES.get(suffix, suffix.lstrip("."))).lower()
    if chosen not in allowed:
        where = f"format {fmt!r}" if fmt else f"the suffix of {str(path)!r}"
        raise InputError(f"Cannot tell what to write from {where}; use one of: {', '.join(allowed)}.")
    return chosen


_UNSAFE_IN_NAMES = re.compile(r'[\\/:*?"<>|]')  # path separators and what Windows refuses in a file name
_WINDOWS_DEVICES = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?", re.IGNORECASE)
MAX_NAME_BYTES = 120  # well under the 255 bytes of ext4/APFS/NTFS names, leaving room for a suffix


def safe_filename(text: str, suffix: str = "", *, default: str = "attnviz", max_bytes: int = MAX_NAME_BYTES) -> str:
    """A download or output file name made from any text: `safe_filename("早上好！/a\\x00", "png")` -> "早上好！_a.png".

    No path separators or characters Windows refuses (each becomes "_"), no control or format characters (NUL,
    newlines, bidi overrides and zero-width joiners are dropped), whitespace runs become one "_", no leading dots
    or dashes, no trailing dots or spaces, not a Windows device name, at most `max_bytes` UTF-8 bytes before the
    suffix (cut between characters). Letters of every script (CJK, Arabic, emoji) stay. `default` when nothing is
    left. `suffix`: "png" or ".png", cleaned the same way.
    """
    name = unicodedata.normalize("NFC", str(text))
    name = "".join(c for c in name if unicodedata.category(c)[0] != "C" or c in "\t\n\r")  # Cc Cf Cs Co Cn
    name = _UNSAFE_IN_NAMES.sub("_", name)
    name = re.sub(r"\s+", "_", name).lstrip(".-_").rstrip(". _")
    name = name[:max_bytes]  # a character is at least one byte; what is left is trimmed to the byte budget below
    while len(name.encode("utf-8")) > max_bytes:
        name = name[:-1]
    name = name.rstrip(". _") or default
    if _WINDOWS_DEVICES.fullmatch(name):
        name = f"_{name}"
    ending = safe_filename(suffix.lstrip("."), default="", max_bytes=16) if suffix else ""
    return f"{name}.{ending}" if ending else name


def refuse_existing(path: str | os.PathLike, overwrite: bool) -> None:
    """An error when `path` exists and may not be replaced (checked before spending time making its content)."""
    if Path(path).exists() and not overwrite:
        raise InputError(f"{path} already exists; choose another name or allow overwriting (--force).")


def write_atomic(path: str | os.PathLike, data: bytes | str, *, overwrite: bool = False) -> Path:
    """Write `data` to `path` through a temporary file in the same folder and os.replace: no half-written file.

    Refuses to replace an existing file unless `overwrite`. Missing parent folders are created.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{target} is a folder; give a file name.")
    refuse_existing(target, overwrite)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o644)
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return target
