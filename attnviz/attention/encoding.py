"""Tokenizing for capture: the ids the model sees and the tokens a person reads, or a sentence saying why not."""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass

from attnviz.errors import InputError, Phrase
from attnviz.text.tokens import tokens_for_ids, tokens_from_offsets
from attnviz.types import Token

# A text longer than the model is said by attnviz itself (text_too_many_tokens, or the truncation note): the
# tokenizer's own warning beside that sentence, on stderr, would say it twice and name another remedy.
logging.getLogger("transformers.tokenization_utils_base").setLevel(logging.ERROR)
_SURROGATE = re.compile("[\ud800-\udfff]")  # unpaired UTF-16 halves: text that cannot be encoded


@dataclass
class Encoded:
    ids: list[int]
    tokens: list[Token]


def _input(what: str) -> Phrase:
    """The input a sentence names: "text" or "target", worded in the sentence's language."""
    return Phrase(f"memory.input_{what}")


def check_text(text, what: str = "text") -> str:
    if not isinstance(text, str):
        raise InputError("text_not_a_string", what=_input(what), kind=type(text).__name__)
    if not text.strip():
        raise InputError("text_empty", what=_input(what))
    if _SURROGATE.search(text):
        raise InputError("text_broken_characters", what=_input(what))
    return text


@functools.lru_cache(maxsize=32)
def _calls_backend_only(tokenizer_class: type) -> bool:
    """Whether calling a tokenizer of this class on one text only runs its Rust backend's `encode`: transformers' own
    fast tokenizer call path, not overridden, and no source/target language modes to switch."""
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase
    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    return (
        issubclass(tokenizer_class, TokenizersBackend)
        and tokenizer_class.__call__ is PreTrainedTokenizerBase.__call__
        and tokenizer_class._encode_plus is TokenizersBackend._encode_plus
        and not hasattr(tokenizer_class, "_switch_to_input_mode")
    )


def _backend_encoding(tokenizer, text: str):
    """`tokenizer(text)`'s ids and character offsets straight from the Rust backend (a `tokenizers.Encoding`), which
    spares the wrapper's per-call Python work; None where the wrapper would do more than call it — another call path,
    or truncation, padding or special-token splitting left set on the backend (the wrapper resets those first)."""
    if not _calls_backend_only(type(tokenizer)):
        return None
    backend = tokenizer.backend_tokenizer
    if backend.truncation or backend.padding or backend.encode_special_tokens != tokenizer.split_special_tokens:
        return None
    return backend.encode(text, add_special_tokens=True)


def encode(
    tokenizer,
    text: str,
    *,
    target: bool = False,
    limit: int | None = None,
    truncate: bool = False,
    what: str = "text",
    model_name: str = "the model",
) -> Encoded:
    """Tokenize; over `limit` tokens either truncate (when asked) or refuse with a sentence offering truncation."""
    truncating = truncate and limit is not None
    direct = None if target or truncating else _backend_encoding(tokenizer, text)
    if direct is not None:
        ids, offsets = direct.ids, direct.offsets
    else:
        kwargs = {"text_target": text} if target else {"text": text}
        if truncating:
            kwargs.update(truncation=True, max_length=limit)
        fast = getattr(tokenizer, "is_fast", False)
        encoding = tokenizer(**kwargs, return_offsets_mapping=fast)
        ids = list(encoding["labels"] if target and "labels" in encoding else encoding["input_ids"])
        # a target may be tokenized in its own mode (Marian): its tokens are read by decoding instead
        offsets = encoding.get("offset_mapping") if fast and not target else None
    if not ids:
        raise InputError("text_no_tokens", what=_input(what), model=model_name)
    if limit is not None and len(ids) > limit:
        raise InputError("text_too_many_tokens", what=_input(what), count=len(ids), model=model_name, limit=limit)
    if offsets is not None:
        tokens = tokens_from_offsets(tokenizer, ids, offsets, text)
    else:
        tokens = tokens_for_ids(tokenizer, ids, text, target=target)
    return Encoded(ids, tokens)
