"""Writing files: which format a path asks for, a safe file name from any text, and atomic writes."""

from __future__ import annotations

import itertools
import os
import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from attnviz.errors import InputError, Phrase

FIGURE_FORMATS = ("png", "svg", "pdf", "html")
DATA_FORMATS = ("json", "npz", "csv")
_SUFFIXES = {".htm": "html"}


def format_of(path: str | os.PathLike, fmt: str | None, allowed: tuple[str, ...]) -> str:
    """The format to write: `fmt` if given, else the file suffix; an error naming the choices otherwise."""
    suffix = Path(path).suffix.lower()
    chosen = (fmt or _SUFFIXES.get(suffix, suffix.lstrip("."))).lower()
    if chosen not in allowed:
        where = Phrase("export_where.format", fmt=fmt) if fmt else Phrase("export_where.suffix", path=str(path))
        raise InputError("export_format_unknown", where=where, formats=", ".join(allowed))
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


def _name_words(text: str, max_words: int, max_chars: int) -> str:
    """The first words of a text for a file name: letters, digits, marks and emoji, words joined by "-" (punctuation
    and spaces separate words; a Chinese sentence without spaces is one word until its punctuation). Whole words
    while they fit in `max_chars` characters; a first word longer than that is cut. Reads only as far as the words
    it needs (a long text's name costs what a short one's does)."""
    words = list(itertools.islice(_words(text), max_words))
    name = words[0][:max_chars] if words else ""
    for word in words[1:]:
        if len(name) + 1 + len(word) > max_chars:
            break
        name = f"{name}-{word}"
    return name


def _words(text: str) -> Iterator[str]:
    """The words of `text`, in order, read lazily: runs of letters, digits, marks, emoji and zero-width joiners."""
    word: list[str] = []
    for c in text:
        if unicodedata.category(c)[0] in "LMN" or unicodedata.category(c) == "So" or c == "\u200d":
            word.append(c)
        elif word:
            yield "".join(word)
            word = []
    if word:
        yield "".join(word)


def _model_part(model: str) -> str:
    """A model named by its last path component: "Helsinki-NLP/opus-mt-zh-en" -> "opus-mt-zh-en", and a local
    folder by its own name, not the path to it (which would say whose machine it was on)."""
    pieces = [piece for piece in re.split(r"[\\/]", model) if piece.strip()]
    return pieces[-1] if pieces else ""


def _selection_part(letter: str, value) -> str:
    """ "L2" for layer 2, "L0+1" for layers 0 and 1, "Hmean" for a named choice, "" for None (all of them)."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple, range)):
        return f"{letter}{'+'.join(str(v) for v in value)}" if len(value) else ""
    return f"{letter}{value}"


def figure_filename(
    view: str,
    suffix: str = "png",
    *,
    model: str | None = None,
    layer=None,
    head=None,
    text: str | None = None,
    measure: str | None = None,
    model_b: str | None = None,
    text_b: str | None = None,
    max_words: int = 4,
    max_chars: int = 24,
) -> str:
    """A file name that says what the file holds — view (and the measure, when not the weights), model, layer/head,
    the first words of the text — safe on every OS (`safe_filename`): `figure_filename("alignment", "png",
    model="demo-zh-en", layer=2, head=0, text="早上好！")` -> "alignment_demo-zh-en_L2H0_早上好.png"; with
    `measure="value-zeroing"`, `layer=2` and no head -> "alignment-value-zeroing_demo-zh-en_L2_早上好.png". A
    comparison names its second side too: `model_b` (when not `model`) and `text_b` ("…_早上好-vs-晚上好.png").
    Parts that are None or empty are left out; the texts are shortened first when the name would be too long."""
    shown = [view, *([measure] if measure and measure != "weights" else [])]
    models = [_model_file_part(model), *([_model_file_part(model_b)] if model_b and model_b != model else [])]
    texts = [_name_words(str(text or ""), max_words, max_chars)]
    if text_b is not None:
        texts.append(_name_words(str(text_b), max_words, max_chars))
    parts = [
        _name_words(" ".join(str(part) for part in shown), 10, 56),
        "-vs-".join(part for part in models if part),
        _selection_part("L", layer) + _selection_part("H", head),
        "-vs-".join(part for part in texts if part),
    ]
    return safe_filename("_".join(part for part in parts if part), suffix)


def _model_file_part(model: str | None) -> str:
    """A model's part of a file name: its own name (`_model_part`), safe ("_CON": only a whole name needs it)."""
    return safe_filename(_model_part(str(model or "")), default="").lstrip("_")


def capture_filename(capture, suffix: str = "json", **options) -> str:
    """`figure_filename` for a capture file: "capture", its model and the first words of its source text."""
    provenance_model = (capture.provenance or {}).get("model") or {}
    model = capture.model or (provenance_model.get("name") if isinstance(provenance_model, dict) else "")
    return figure_filename("capture", suffix, model=model, text=capture.source_text, **options)


def refuse_existing(path: str | os.PathLike, overwrite: bool) -> None:
    """An error when `path` exists and may not be replaced (checked before spending time making its content)."""
    if Path(path).exists() and not overwrite:
        raise InputError("file_exists", path=str(path))


def write_atomic(path: str | os.PathLike, data: bytes | str | Callable[[IO], None], *, overwrite: bool = False) -> Path:
    """Write `data` to `path` through a temporary file in the same folder and os.replace: no half-written file.
    `data` may also be a function that writes into the open binary file (a file too large to hold as bytes).

    Refuses to replace an existing file unless `overwrite`. Missing parent folders are created.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError("file_is_folder", path=str(target))
    refuse_existing(target, overwrite)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            if callable(payload):
                payload(handle)
            else:
                handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o644)
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return target
