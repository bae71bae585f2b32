"""Hand-built attention maps (and one capture of a translation) for the analysis, selection, figure and export
tests."""

from __future__ import annotations

import numpy as np

from attnviz.types import AttentionCapture, AttentionMap, Token


def tokens_from(words: list[str], text: str | None = None, specials: tuple[str, ...] = ()) -> list[Token]:
    """Tokens for `words` laid out in `text` (found left to right); words in `specials` become special tokens."""
    text = text if text is not None else " ".join(w for w in words if w not in specials)
    tokens, cursor = [], 0
    for word in words:
        if word in specials:
            tokens.append(Token(word, -1, -1, special=True))
            continue
        start = text.index(word, cursor)
        tokens.append(Token(word, start, start + len(word)))
        cursor = start + len(word)
    return tokens


def random_map(
    query_tokens: list[Token],
    key_tokens: list[Token] | None = None,
    layers: int = 2,
    heads: int = 3,
    kind: str | None = None,
    causal: bool = False,
    seed: int = 0,
) -> AttentionMap:
    """Softmax-normalised random weights (float32, rows sum to 1, causal cells exactly 0)."""
    key_tokens = query_tokens if key_tokens is None else key_tokens
    kind = kind or ("self" if key_tokens is query_tokens else "cross")
    rng = np.random.default_rng(seed)
    logits = rng.normal(scale=2.0, size=(layers, heads, len(query_tokens), len(key_tokens)))
    if causal:
        logits = np.where(np.triu(np.ones(logits.shape[-2:], bool), 1), -np.inf, logits)
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    names = [f"model.layers.{i}.attn" for i in range(layers)]
    return AttentionMap(kind, weights.astype(np.float32), query_tokens, key_tokens, names, causal=causal)


def seed_pair_map(layers: int = 2, heads: int = 3, seed: int = 0) -> AttentionMap:
    """A cross map: target "Good Morning !" (queries) over source "早上 好 ！ </s>" (keys)."""
    source = tokens_from(["早上", "好", "！", "</s>"], "早上好！", specials=("</s>",))
    target = tokens_from(["Good", "Morning", "!"], "Good Morning!")
    return random_map(target, source, layers, heads, seed=seed)


def numbered_map(kind="cross", layers=3, heads=4, queries=5, keys=6, seed=0, causal=False, specials=()) -> AttentionMap:
    """Uniform random weights, rows normalised, over tokens named q0, q1 … and k0, k1 … (`specials`: the
    positions that are special tokens on both sides)."""
    rng = np.random.default_rng(seed)
    weights = rng.random((layers, heads, queries, keys)).astype(np.float32)
    weights /= weights.sum(-1, keepdims=True)
    q_tokens = [Token(f"q{i}", i, i + 1, special=i in specials) for i in range(queries)]
    k_tokens = [Token(f"k{i}", i, i + 1, special=i in specials) for i in range(keys)]
    return AttentionMap(kind, weights, q_tokens, k_tokens, [f"layers.{i}" for i in range(layers)], causal=causal)


def seq2seq_capture() -> AttentionCapture:
    source, target = "早上好！", "Good morning!"
    src = [Token("早上", 0, 2), Token("好", 2, 3), Token("！", 3, 4), Token("</s>", -1, -1, True)]
    tgt = [
        Token("Good", 0, 4),
        Token("morn", 5, 9),
        Token("ing", 9, 12),
        Token("!", 12, 13),
        Token("</s>", -1, -1, True),
    ]
    rng = np.random.default_rng(1)
    cross = rng.random((2, 2, len(tgt), len(src))).astype(np.float32)
    cross /= cross.sum(-1, keepdims=True)
    encoder = rng.random((2, 2, len(src), len(src))).astype(np.float32)
    encoder /= encoder.sum(-1, keepdims=True)
    maps = {
        "cross": AttentionMap("cross", cross, tgt, src, ["c0", "c1"]),
        "encoder": AttentionMap("encoder", encoder, src, src, ["e0", "e1"]),
    }
    return AttentionCapture("test", "cpu", maps, source_text=source, target_text=target)
