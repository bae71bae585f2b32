"""Turn token ids into the tokens a person reads, with character offsets into the text they came from.

No ▁, Ġ or ## markers and no mojibake: each token's text is a slice of the original text (so 早上好！ keeps its
full-width ！ even when the tokenizer normalised it), and byte-level BPE pieces that hold part of a character are
given that whole character.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

from attnviz.memo import once_per
from attnviz.types import Token

# Decoding a window of previous ids, not the whole prefix, keeps token text recovery linear in the text length.
_DECODE_WINDOW = 8
_REPLACEMENT = "\ufffd"  # what a decoder prints for an incomplete UTF-8 sequence


# Chinese punctuation that NFKC leaves alone but tokenizers write for ASCII input (the demo translators do)
_ASCII_PUNCTUATION = str.maketrans({"。": ".", "、": ",", "「": '"', "」": '"', "『": '"', "』": '"'})
_VISIBLE_CONTROLS = {code: 0x2400 + code for code in range(0x20)} | {0x7F: "␡"}
_HAS_CONTROLS = re.compile("[\x00-\x1f\x7f]")


def readable(text: str) -> str:
    """Token text a person can read: control characters become their visible symbols (NUL → ␀, newline → ␊)."""
    return text.translate(_VISIBLE_CONTROLS)


def _escape(code: int) -> str:
    return {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}.get(code, f"\\x{code:02x}")


# Where token text is drawn (figure labels on screen and in files, sentences on the page), the control pictures are
# written as the escapes a programmer reads (newline → \n, ESC → \x1b): no shipped font (Noto Sans SC, DejaVu Sans)
# and few system fonts have the Control Pictures block, so ␊ came out as a box; every font has these characters.
_DRAWN_CONTROLS = {0x2400 + code: _escape(code) for code in range(0x20)} | {ord("␡"): _escape(0x7F)}


def drawable(text: str) -> str:
    r"""Token text as any font draws it: control characters (raw, or as `readable` shows them: ␊) as escapes (\n)."""
    return readable(text).translate(_DRAWN_CONTROLS)


def shown(token: Token) -> str:
    """A token as plain text says it (sentences, tables, CSV): its text, marked "?" when the model read it as
    unknown, so no one takes those characters for what the model saw."""
    return f"{token.text}?" if token.unknown else token.text


def _special_tokens(tokenizer) -> tuple[str, ...] | None:
    """What a transformers tokenizer's special tokens are, read from its own record of them (cheap, unlike its
    properties); None for a tokenizer without that record, whose facts are then read afresh each time."""
    attributes = getattr(tokenizer, "__dict__", {})
    named = attributes.get("_special_tokens_map")
    if not isinstance(named, dict):
        return None
    return (*map(str, named.values()), "|", *map(str, attributes.get("_extra_special_tokens") or ()))


def _per_tokenizer(tokenizer, fact: str, compute):
    """`compute()` once per tokenizer and set of special tokens (adding one reads the facts again)."""
    specials = _special_tokens(tokenizer)
    return compute() if specials is None else once_per(tokenizer, (fact, specials), compute)


def special_ids(tokenizer) -> frozenset[int]:
    """Ids of special tokens (</s>, [CLS], <pad>, …); the unknown token is text, not special."""

    def read() -> frozenset[int]:
        ids = set(getattr(tokenizer, "all_special_ids", []) or [])
        ids.discard(getattr(tokenizer, "unk_token_id", None))
        return frozenset(ids)

    return _per_tokenizer(tokenizer, "special_ids", read)


_BYTE_PIECE = re.compile(r"<0x[0-9A-Fa-f]{2}>")  # sentencepiece's byte fallback: one UTF-8 byte of unseen text


def unknown_flags(tokenizer, ids: list[int]) -> list[bool]:
    """For each id, whether the model reads it as unknown: the <unk> token, or a byte-fallback piece (<0xE6>) that
    stands for one byte of a character the vocabulary lacks."""
    unknown = _per_tokenizer(tokenizer, "unknown_ids", dict)  # {id: unknown?}, learned as ids come
    missing = set(ids).difference(unknown)
    if missing:
        unknown_id = getattr(tokenizer, "unk_token_id", None)
        for token_id in missing:
            piece = tokenizer.convert_ids_to_tokens(token_id)
            unknown[token_id] = token_id == unknown_id or (
                isinstance(piece, str) and _BYTE_PIECE.fullmatch(piece) is not None
            )
    return [unknown[token_id] for token_id in ids]


def _marked(tokens: list[Token], tokenizer, ids: list[int]) -> list[Token]:
    """`tokens` (one per id) with `unknown` set where the model read an unknown id."""
    return [
        replace(token, unknown=True) if unknown and not token.special else token
        for token, unknown in zip(tokens, unknown_flags(tokenizer, ids))
    ]


def _special_token(tokenizer, token_id: int) -> Token:
    return Token(text=str(tokenizer.convert_ids_to_tokens(token_id)), start=-1, end=-1, special=True)


def vocabulary_token(tokenizer, token_id: int) -> Token:
    """One vocabulary entry as a person reads it outside any text (a prediction, an alternative): its decoded text
    ("morning", not "▁morning"); a special token by its name (</s>); the unknown token and byte-fallback pieces by
    their name, marked unknown; a piece of whitespace as " ". Its offsets are -1: it covers no text."""
    name = str(tokenizer.convert_ids_to_tokens(token_id))
    if token_id in special_ids(tokenizer):
        return Token(name, -1, -1, special=True)
    if unknown_flags(tokenizer, [token_id])[0]:
        return Token(name, -1, -1, unknown=True)
    decoded = tokenizer.decode([token_id], clean_up_tokenization_spaces=False)
    text = decoded.strip()
    return Token(readable(text) if text else " " if decoded else name, -1, -1)


def _decode(tokenizer, ids: list[int]) -> str:
    return tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False)


def piece_texts(tokenizer, ids: list[int]) -> list[str]:
    """The text each id adds when decoding the sequence incrementally ("" for specials and partial characters)."""
    specials = special_ids(tokenizer)
    pieces: list[str] = []
    for i, token_id in enumerate(ids):
        if token_id in specials:
            pieces.append("")
            continue
        start = max(0, i - _DECODE_WINDOW)
        window = [t for t in ids[start:i] if t not in specials]
        before, after = _decode(tokenizer, window), _decode(tokenizer, window + [token_id])
        # A trailing replacement char means bytes of a character still to come: that text belongs to a later id.
        settled = before.rstrip(_REPLACEMENT)
        if not after.startswith(settled):  # decoders that rewrite earlier text (rare): decode the whole prefix
            prefix = [t for t in ids[:i] if t not in specials]
            before, after = _decode(tokenizer, prefix), _decode(tokenizer, prefix + [token_id])
            settled = before.rstrip(_REPLACEMENT)
        pieces.append(after[len(settled) :].rstrip(_REPLACEMENT) if after.startswith(settled) else after)
    return pieces


def _normalised_with_positions(text: str) -> tuple[str, list[int]]:
    """NFKC-normalise text one character at a time, remembering each normalised char's original index."""
    chars: list[str] = []
    positions: list[int] = []
    for index, char in enumerate(text):
        for normal in unicodedata.normalize("NFKC", char):
            chars.append(normal)
            positions.append(index)
    return "".join(chars), positions


def tokens_for_ids(tokenizer, ids: list[int], text: str, target: bool = False) -> list[Token]:
    """Tokens for `ids` that tokenize (or decode to) `text`, with offsets into `text`; `unknown` set on the ids the
    model reads as unknown (`is_unknown`). `target`: the ids are the text tokenized as a target (Marian's target
    SentencePiece model).

    A SentencePiece tokenizer whose own pieces give these ids says exactly where each piece is in `text`, whatever
    its normaliser did (spaces dropped, "." read as "。"). Otherwise, for any tokenizer with `decode`: each id's
    decoded increment is located in the NFKC-normalised text (tokenizers normalise, e.g. ！ → !), and mapped back to
    the original characters. Byte-level pieces that only complete a character together all point at that character.
    """
    ids = [int(i) for i in ids]
    offsets = sentencepiece_offsets(tokenizer, ids, text, target)
    if offsets is not None:
        return tokens_from_offsets(tokenizer, ids, offsets, text)
    return _marked(_walked_tokens(tokenizer, ids, text), tokenizer, ids)


def _processors(tokenizer, target: bool) -> list:
    """The SentencePiece processors a slow tokenizer encodes with, the one for this side first."""
    names = ("spm_target", "spm_source", "sp_model") if target else ("spm_source", "sp_model")
    found = [getattr(tokenizer, name, None) for name in names]
    return [processor for processor in found if hasattr(processor, "encode_as_proto")]


def sentencepiece_offsets(tokenizer, ids: list[int], text: str, target: bool = False) -> list[tuple[int, int]] | None:
    """Character offsets into `text` of each id, from the tokenizer's own SentencePiece model, or None when it has
    none or its pieces do not give exactly these ids (other text, language codes, truncation).

    SentencePiece records for every piece the span of the original text it covers (before normalisation), so the
    offsets are right where the text was changed; whitespace the normaliser dropped is trimmed off each span.
    Special ids get (0, 0), which `tokens_from_offsets` reads by id.
    """
    specials = special_ids(tokenizer)
    wanted = [token_id for token_id in ids if token_id not in specials]
    starts = _char_starts(text)
    for processor in _processors(tokenizer, target):
        pieces = processor.encode_as_proto(text).pieces
        if len(pieces) != len(wanted):
            continue
        spans = []
        for piece, token_id in zip(pieces, wanted):
            if tokenizer.convert_tokens_to_ids(piece.piece) != token_id:
                break
            spans.append(_trimmed(text, starts.get(piece.begin), starts.get(piece.end)))
        else:
            if all(span is not None for span in spans):
                spans_left = iter(spans)
                return [(0, 0) if token_id in specials else next(spans_left) for token_id in ids]
    return None


def _char_starts(text: str) -> dict[int, int]:
    """UTF-8 byte offset → character offset, for every character boundary of `text`."""
    starts, at = {}, 0
    for index, char in enumerate(text):
        starts[at] = index
        at += len(char.encode("utf-8", "surrogatepass"))
    starts[at] = len(text)
    return starts


def _trimmed(text: str, start: int | None, end: int | None) -> tuple[int, int] | None:
    """[start, end) without the whitespace at either end (a piece's span holds the spaces dropped next to it)."""
    if start is None or end is None:
        return None
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _walked_tokens(tokenizer, ids: list[int], text: str) -> list[Token]:
    """Tokens found by decoding each id and walking through the normalised text (see `tokens_for_ids`)."""
    specials = special_ids(tokenizer)
    unknown_id = getattr(tokenizer, "unk_token_id", None)
    walk = _TextWalk(tokenizer, ids, text)
    for index, (token_id, piece) in enumerate(zip(ids, piece_texts(tokenizer, ids))):
        if token_id in specials:
            walk.tokens.append(_special_token(tokenizer, token_id))
        elif token_id == unknown_id and not piece.strip():
            walk.wait(index, walk.unknown)
        else:
            walk.place(index, piece)
    return walk.finish()


WORD_MARKERS = "▁Ġ "  # SentencePiece's and byte-level BPE's word-boundary marks: a space in the text


class _TextWalk:
    """One pass through the normalised text with a cursor, giving each id's decoded piece the characters it covers.

    Tokens that cannot be placed yet wait as None: partial-byte pieces (`pending`) until a piece completes their
    character, and <unk> tokens (`unknown`) until the next known piece shows where the unknown text ends.
    """

    def __init__(self, tokenizer, ids: list[int], text: str):
        self.tokenizer, self.ids, self.text = tokenizer, ids, text
        self.normal, self.positions = _normalised_with_positions(text)
        self.folded = self.normal.casefold() if len(self.normal.casefold()) == len(self.normal) else self.normal
        self.tokens: list[Token | None] = []
        self.pending: list[int] = []  # indices of tokens whose characters are not complete yet (partial bytes)
        self.unknown: list[int] = []  # indices of <unk> tokens: they read as the text up to the next known piece
        self.cursor = 0

    def wait(self, index: int, queue: list[int]) -> None:
        self.tokens.append(None)
        queue.append(index)

    def place(self, index: int, piece: str) -> None:
        """The token of a decoded piece: whitespace, part of a character (it waits), or text found in `text`."""
        stripped = unicodedata.normalize("NFKC", piece).strip()
        if piece and not stripped and self.cursor < len(self.normal) and self.normal[self.cursor].isspace():
            self._whitespace(piece)
        elif not stripped:
            self.wait(index, self.pending)
        else:
            self._found(stripped)

    def finish(self) -> list[Token]:
        """The tokens, once every waiting one is settled: <unk> as the text left, incomplete bytes as their names."""
        if self.unknown:
            self._settle_unknown(len(self.normal.rstrip()))
        for waiting in self.pending:  # trailing pieces that never completed a character (e.g. truncated bytes)
            self.tokens[waiting] = self._named(waiting, len(self.text))
        return [token for token in self.tokens if token is not None]

    def _span(self, first: int, stop: int) -> Token:
        """The token for normalised characters [first, stop)."""
        start, end = self.positions[first], self.positions[stop - 1] + 1
        return Token(text=readable(self.text[start:end]), start=start, end=end)

    def _named(self, index: int, at: int) -> Token:
        """The tokenizer's own name for an id that covers no text, at character `at` (a lone word boundary: a space)."""
        name = str(self.tokenizer.convert_ids_to_tokens(self.ids[index]))
        return Token(text=name if name.strip(WORD_MARKERS) else " ", start=at, end=at)

    def _whitespace(self, piece: str) -> None:
        """A token made only of whitespace (byte-level "Ġ", newlines): it reads as that whitespace."""
        end_cursor = min(_skip_spaces(self.normal, self.cursor), self.cursor + len(piece))
        self.tokens.append(self._span(self.cursor, end_cursor))
        self.cursor = end_cursor

    def _found(self, stripped: str) -> None:
        """A piece with text: where it is in the text, settling the <unk> tokens before it and the partial-byte
        pieces whose character it completes."""
        found = _find(self.normal, self.folded, stripped, self.cursor)
        if found < 0 and stripped != stripped.translate(_ASCII_PUNCTUATION):  # "." read as "。" (not NFKC's doing)
            stripped = stripped.translate(_ASCII_PUNCTUATION)
            found = _find(self.normal, self.folded, stripped, self.cursor)
        if found < 0:  # the tokenizer changed the text beyond NFKC (e.g. <unk>): take the next non-space chars
            found = _skip_spaces(self.normal, self.cursor)
            length = min(len(stripped), len(self.normal) - found)
        else:
            length = len(stripped)
        if self.unknown:
            self._settle_unknown(found)
        start = self.positions[found] if found < len(self.positions) else len(self.text)
        end = self.positions[found + length - 1] + 1 if length > 0 else start
        self.cursor = found + length
        token = Token(text=readable(self.text[start:end]), start=start, end=end)
        self.tokens.append(token)
        for waiting in self.pending:  # partial-byte pieces share the character this piece completed
            self.tokens[waiting] = token
        self.pending.clear()

    def _settle_unknown(self, stop: int) -> None:
        """Unknown tokens read as the non-space text between the cursor and `stop`."""
        first = _skip_spaces(self.normal, self.cursor)
        while stop > first and self.normal[stop - 1].isspace():
            stop -= 1
        for waiting in self.unknown:
            if stop > first:
                self.tokens[waiting] = self._span(first, stop)
            else:  # nothing left to show: the tokenizer's own name for it
                at = self.positions[first] if first < len(self.positions) else len(self.text)
                self.tokens[waiting] = self._named(waiting, at)
        self.unknown.clear()


def _skip_spaces(text: str, cursor: int) -> int:
    while cursor < len(text) and text[cursor].isspace():
        cursor += 1
    return cursor


def _find(normal: str, folded: str, piece: str, cursor: int) -> int:
    at = _skip_spaces(normal, cursor)
    if normal.startswith(piece, at):
        return at
    if len(folded) == len(normal) and folded.startswith(piece.casefold(), at):
        return at  # lower-casing tokenizers (uncased BERT)
    found = normal.find(piece, cursor)
    return found


def tokens_from_offsets(tokenizer, ids: list[int], offsets: list[tuple[int, int]], text: str) -> list[Token]:
    """Tokens from a fast tokenizer's offset mapping (exact and linear; used when the text was tokenized here)."""
    specials = special_ids(tokenizer)
    shown = readable if _HAS_CONTROLS.search(text) else str  # most texts have nothing to make visible
    tokens = []
    for token_id, (start, end), unknown in zip(ids, offsets, unknown_flags(tokenizer, ids)):
        if token_id in specials:
            tokens.append(_special_token(tokenizer, token_id))
            continue
        if unknown:
            tokens.append(_unknown_token(tokenizer, token_id, text, start, end))
            continue
        piece = text[start:end]
        word = piece.lstrip()  # offsets of "▁word" / "Ġword" may include the space
        if word:
            tokens.append(Token(shown(word), end - len(word), end))
        elif piece:  # a piece of spaces only
            tokens.append(Token(readable(piece), start, end))
        else:  # offsets of nothing: show what the id decodes to
            decoded = tokenizer.decode([token_id], clean_up_tokenization_spaces=False) or str(
                tokenizer.convert_ids_to_tokens(token_id)
            )
            decoded = decoded if decoded.strip(WORD_MARKERS) else " "  # a lone word boundary (▁): a space, drawn ␣
            tokens.append(Token(readable(decoded), start, end))
    return tokens


def _unknown_token(tokenizer, token_id: int, text: str, start: int, end: int) -> Token:
    """An id the model reads as unknown: the text it stands for (trimmed of spaces), or the tokenizer's name for it
    where it covers none (a <unk> the model wrote)."""
    span = _trimmed(text, start, end)
    if span is not None and span[0] < span[1]:
        return Token(readable(text[span[0] : span[1]]), span[0], span[1], unknown=True)
    return Token(str(tokenizer.convert_ids_to_tokens(token_id)), start, end, unknown=True)
