"""Hypothesis strategies for the property tests: attention maps as capture makes them, with awkward tokens.

Random shapes (1–6 layers and heads, 1–20 tokens), token texts from every script people type (CJK, emoji and ZWJ
sequences, right-to-left, combining marks, control characters, lone surrogates) with real character offsets into
the text they were cut from, some special tokens, and softmax rows over random masks so masked cells are exactly 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from attnviz.types import MAP_KINDS, AttentionCapture, AttentionMap, GenerationStep, Token

# deadline=None: the first examples pay for imports and plotly's validators; the tests bound their own size.
PROPERTY_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def property_settings(max_examples: int):
    return settings(max_examples=max_examples, **PROPERTY_SETTINGS)


AWKWARD_PIECES = (
    "早上",
    "好",
    "！",
    "學習",
    "𠮷",  # CJK, a traditional form, a supplementary-plane ideograph
    "🙂",
    "👩‍👩‍👧",
    "🇨🇳",
    "👍🏽",  # emoji, a ZWJ family, a flag, a skin-tone modifier
    "שלום",
    "مرحبا",
    "\u200f",
    "\u202e",  # Hebrew, Arabic, a right-to-left mark, a bidi override
    "é",
    "e\u0301",
    "ﬁ",  # precomposed, combining accent, ligature
    "\x00",
    "\t",
    "\n",
    "\r",
    "\x7f",
    "\u2028",  # NUL and other controls, a line separator
    "\ud800",
    "\udfff",  # lone surrogates
    "</s>",
    "<b>",
    "&amp;",
    '"',
    ",",
    "\\",
    " ",
    "▁",
    "Ġ",
    "##ing",  # markup, CSV and tokenizer artefacts
    "Good",
    "morning",
    "a" * 40,
)
SPECIAL_TEXTS = ("</s>", "<s>", "[CLS]", "[SEP]", "<pad>", "<|endoftext|>")

piece_texts = st.one_of(
    st.sampled_from(AWKWARD_PIECES),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=5),
    st.text(st.characters(exclude_categories=()), min_size=1, max_size=3),  # every code point, surrogates too
)


@st.composite
def token_lists(draw, min_size: int = 1, max_size: int = 20) -> tuple[list[Token], str]:
    """Tokens and the text they were cut from: pieces touch or are separated by a space; specials sit outside."""
    layout = draw(
        st.lists(
            st.tuples(piece_texts, st.sampled_from(["", "", " "]), st.integers(0, 6)),
            min_size=min_size,
            max_size=max_size,
        )
    )
    tokens, text = [], ""
    for piece, gap, roll in layout:
        if roll == 0:  # about one token in seven is special
            tokens.append(Token(draw(st.sampled_from(SPECIAL_TEXTS)), -1, -1, special=True))
            continue
        text += gap
        tokens.append(Token(piece, len(text), len(text) + len(piece)))
        text += piece
    return tokens, text


def softmax_weights(
    rng: np.random.Generator, shape: tuple[int, int, int, int], causal: bool, mask_rate: float, spread: float
) -> np.ndarray:
    """float32 rows that sum to 1 over random masks (masked cells exactly 0); every row keeps at least one key.

    Causal rows keep their own position (the last query sits on the last key, as `analysis.causal_mask` draws it).
    """
    layers, heads, queries, keys = shape
    logits = rng.normal(scale=spread, size=shape)
    masked = rng.random(shape) < mask_rate  # (layers, heads, queries, keys)
    rows = np.arange(queries)
    if causal:
        offset = keys - queries
        masked |= np.arange(keys)[None, :] > (rows[:, None] + offset)
        kept = np.broadcast_to(np.clip(rows + offset, 0, keys - 1), shape[:3])
    else:
        kept = rng.integers(0, keys, size=shape[:3])  # (layers, heads, queries)
    np.put_along_axis(masked, kept[..., None], False, axis=-1)
    logits = np.where(masked, -np.inf, logits)
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)).astype(np.float32)


@dataclass(frozen=True)
class DrawnMap:
    amap: AttentionMap
    query_text: str  # the texts the token offsets point into
    key_text: str


@st.composite
def drawn_maps(
    draw, kinds=MAP_KINDS, max_layers: int = 6, max_heads: int = 6, max_tokens: int = 20, square: bool = False
) -> DrawnMap:
    """An AttentionMap of a random kind and shape; `square` keeps to self-attention kinds (queries are the keys)."""
    kinds = [k for k in kinds if k != "cross"] if square else list(kinds)
    kind = draw(st.sampled_from(kinds))
    layers, heads = draw(st.integers(1, max_layers)), draw(st.integers(1, max_heads))
    query_tokens, query_text = draw(token_lists(max_size=max_tokens))
    if kind == "cross":
        key_tokens, key_text = draw(token_lists(max_size=max_tokens))
    else:
        key_tokens, key_text = query_tokens, query_text
    causal = kind in ("self", "decoder") and draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = (layers, heads, len(query_tokens), len(key_tokens))
    weights = softmax_weights(
        rng, shape, causal, draw(st.sampled_from([0.0, 0.3, 0.8])), draw(st.sampled_from([0.5, 3.0, 30.0]))
    )
    names = [f"model.layers.{i}.{kind}_attn" for i in range(layers)]
    return DrawnMap(AttentionMap(kind, weights, query_tokens, key_tokens, names, causal=causal), query_text, key_text)


def attention_maps(**kwargs):
    return drawn_maps(**kwargs).map(lambda drawn: drawn.amap)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)


@st.composite
def captures(draw) -> AttentionCapture:
    """A capture with one to four maps of distinct kinds, texts, JSON-ready meta and, sometimes, generation steps."""
    kinds = draw(st.lists(st.sampled_from(MAP_KINDS), min_size=1, max_size=4, unique=True))
    maps = {kind: draw(attention_maps(kinds=[kind], max_layers=3, max_heads=3, max_tokens=8)) for kind in kinds}
    steps = None
    if draw(st.booleans()):
        layers, heads = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        tokens, _ = draw(token_lists(max_size=4))
        with_cross = draw(st.booleans())
        steps = [
            GenerationStep(
                token,
                rng.random((layers, heads, index + 1), dtype=np.float32),
                rng.random((layers, heads, 5), dtype=np.float32) if with_cross else None,
            )
            for index, token in enumerate(tokens)
        ]
    return AttentionCapture(
        model=draw(piece_texts),
        device=draw(st.sampled_from(["cpu", "cuda:0", "npu:0", ""])),
        maps=maps,
        source_text=draw(st.text(max_size=20)),
        target_text=draw(st.none() | st.text(max_size=20)),
        steps=steps,
        meta=draw(st.dictionaries(st.text(max_size=5), json_values, max_size=4)),
    )
