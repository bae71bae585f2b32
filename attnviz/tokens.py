"""Turn token ids into the tokens a person reads, with character offsets into the text they came from.

No ▁, Ġ or ## markers and no mojibake: each token's text is a slice of the original text (so 早上好！ keeps its
full-width ！ even when the tokenizer normalised it), and byte-level BPE pieces that hold part of a character are
given that whole character.
"""

from __future__ import annotations

import re
import unicodedata

from attnviz.types import Token

# Decoding a window of previous ids, not the whole prefix, keeps token text recovery linear in the text length.
_DECODE_WINDOW = 8
_REPLACEMENT = "\ufffd"  # what a decoder prints for an incomplete UTF-8 sequence


_VISIBLE_CONTROLS = {code: 0x2400 + code for code in range(0x20)} | {0x7F: "␡"}
_HAS_CONTROLS = re.compile("[\x00-\x1f\x7f]")


def readable(text: str) -> str:
    """Token text a person can read: control characters become their visible symbols (NUL → ␀, newline → ␊)."""
    return text.translate(_VISIBLE_CONTROLS)


def special_ids(tokenizer) -> set[int]:
    """Ids of special tokens (</s>, [CLS], <pad>, …); the unknown token is text, not special."""
    ids = set(getattr(tokenizer, "all_special_ids", []) or [])
    ids.discard(getattr(tokenizer, "unk_token_id", None))
    return ids


def _special_token(tokenizer, token_id: int) -> Token:
    return Token(text=str(tokenizer.convert_ids_to_tokens(token_id)), start=-1, end=-1, special=True)


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
        pieces.append(after[len(settled):].rstrip(_REPLACEMENT) if after.startswith(settled) else after)
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


def tokens_for_ids(tokenizer, ids: list[int], text: str) -> list[Token]:
    """Tokens for `ids` that tokenize (or decode to) `text`, with offsets into `text`.

    Works for any tokenizer with `decode`: each id's decoded increment is located in the NFKC-normalised text
    (tokenizers normalise, e.g. ！ → !), and mapped back to the original characters. Byte-level pieces that only
    complete a character together all point at that character.
    """
    ids = [int(i) for i in ids]
    specials = special_ids(tokenizer)
    normal, positions = _normalised_with_positions(text)
    normal_folded = normal.casefold() if len(normal.casefold()) == len(normal) else normal
    unknown_id = getattr(tokenizer, "unk_token_id", None)
    tokens: list[Token | None] = []
    pending: list[int] = []  # indices of tokens whose characters are not complete yet (partial bytes)
    unknown: list[int] = []  # indices of <unk> tokens: they read as the text up to the next known piece
    cursor = 0

    def span(first: int, stop: int) -> Token:  # the token for normalised characters [first, stop)
        start, end = positions[first], positions[stop - 1] + 1
        return Token(text=readable(text[start:end]), start=start, end=end)

    def settle_unknown(stop: int) -> None:  # unknown tokens read as the non-space text before `stop`
        first = _skip_spaces(normal, cursor)
        while stop > first and normal[stop - 1].isspace():
            stop -= 1
        for waiting in unknown:
            if stop > first:
                tokens[waiting] = span(first, stop)
            else:  # nothing left to show: the tokenizer's own name for it
                at = positions[first] if first < len(positions) else len(text)
                tokens[waiting] = Token(text=str(tokenizer.convert_ids_to_tokens(ids[waiting])), start=at, end=at)
        unknown.clear()

    for index, (token_id, piece) in enumerate(zip(ids, piece_texts(tokenizer, ids))):
        if token_id in specials:
            tokens.append(_special_token(tokenizer, token_id))
            continue
        if token_id == unknown_id and not piece.strip():
            tokens.append(None)
            unknown.append(index)
            continue
        stripped = unicodedata.normalize("NFKC", piece).strip()
        if piece and not stripped and cursor < len(normal) and normal[cursor].isspace():
            # A token made only of whitespace (byte-level "Ġ", newlines): it reads as that whitespace.
            end_cursor = min(_skip_spaces(normal, cursor), cursor + len(piece))
            start, end = positions[cursor], positions[end_cursor - 1] + 1
            tokens.append(Token(text=readable(text[start:end]), start=start, end=end))
            cursor = end_cursor
            continue
        if not stripped:
            tokens.append(None)
            pending.append(index)
            continue
        found = _find(normal, normal_folded, stripped, cursor)
        if found < 0:  # the tokenizer changed the text beyond NFKC (e.g. <unk>): take the next non-space chars
            found = _skip_spaces(normal, cursor)
            length = min(len(stripped), len(normal) - found)
        else:
            length = len(stripped)
        if unknown:
            settle_unknown(found)
        start = positions[found] if found < len(positions) else len(text)
        end = positions[found + length - 1] + 1 if length > 0 else start
        cursor = found + length
        tokens.append(Token(text=readable(text[start:end]), start=start, end=end))
        for waiting in pending:  # partial-byte pieces share the character this piece completed
            tokens[waiting] = Token(text=readable(text[start:end]), start=start, end=end)
        pending.clear()
    if unknown:
        settle_unknown(len(normal.rstrip()))
    for waiting in pending:  # trailing pieces that never completed a character (e.g. truncated bytes)
        token_id = ids[waiting]
        tokens[waiting] = Token(text=str(tokenizer.convert_ids_to_tokens(token_id)), start=len(text), end=len(text))
    return [token for token in tokens if token is not None]


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
    for token_id, (start, end) in zip(ids, offsets):
        if token_id in specials:
            tokens.append(_special_token(tokenizer, token_id))
            continue
        piece = text[start:end]
        word = piece.lstrip()  # offsets of "▁word" / "Ġword" may include the space
        if word:
            tokens.append(Token(shown(word), end - len(word), end))
        elif piece:  # a piece of spaces only
            tokens.append(Token(readable(piece), start, end))
        else:  # offsets of nothing: show what the id decodes to
            decoded = tokenizer.decode([token_id], clean_up_tokenization_spaces=False) or str(
                tokenizer.convert_ids_to_tokens(token_id))
            tokens.append(Token(readable(decoded), start, end))
    return tokens
