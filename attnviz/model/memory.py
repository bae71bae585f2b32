"""The memory guard: estimate what a capture needs before running it, and refuse with a sentence above a budget.

Two modes cost very differently, which is why the estimate takes one:
- "full" (`capture`): every layer × head × queries × keys weight, fp32, kept — O(layers · heads · n²).
- "lazy" (`ondemand.capture_lazy`): each layer's queries and (un-expanded) keys — O(layers · n · d) — plus, for a
  moment, the model's own n × n mask and one opened head.

Budgets are settings (attnviz.settings) so an operator can set them for the app, the CLI and the library at once:
`ATTNVIZ_MEMORY_BUDGET_MB` (default 4096, in MiB) and `ATTNVIZ_MAX_CHARS` (default 20000).
The estimate is deliberately an upper-ish bound of the *extra* memory (the loaded model itself is not counted).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from attnviz import settings
from attnviz.errors import InputError, Phrase, ResourceLimitError
from attnviz.memo import first_weight, once_per

BUDGET_ENV = settings.variable("memory_budget_mb")  # named in the refusals: the variable that raises the budget
MAX_CHARS_ENV = settings.variable("max_chars")
MODES = ("full", "lazy")
MB = 2**20

FLOAT32 = 4
# capture() holds the recorder's per-layer tensors and the stacked array at once (a padded batch adds a cropped copy).
FULL_COPIES = 2
# Hidden states, residual, norm output and the feed-forward intermediate alive during one layer.
ACTIVATION_COPIES = 4


# ----------------------------------------------------------------------------------------------------------------------
# Limits from the settings


def budget_bytes(limits: settings.Settings | None = None) -> int:
    """The memory budget in bytes: ATTNVIZ_MEMORY_BUDGET_MB megabytes (default 4096), of `limits` if given (settings
    already read) else of the settings now."""
    return int((limits or settings.current()).memory_budget_mb * MB)


def max_chars() -> int:
    """The longest text accepted, in characters: ATTNVIZ_MAX_CHARS (default 20000)."""
    return settings.current().max_chars


def check_text_length(text: str, what: str = "text", limit: int | None = None) -> str:
    """Refuse a text longer than the character limit, before it is tokenized; returns the text unchanged.

    `what`: "text" or "target", the name the refusal gives it."""
    limit = max_chars() if limit is None else limit
    if len(text) > limit:
        raise ResourceLimitError(
            "text_too_long", what=Phrase(f"memory.input_{what}"), length=len(text), limit=limit, variable=MAX_CHARS_ENV
        )
    return text


def format_bytes(count: float) -> str:
    """'512 MiB', '24.0 GiB': what people read in a refusal (binary units, as the budget's megabytes are MiB)."""
    if count >= 2**30:
        return f"{count / 2**30:.1f} GiB"
    return f"{count / MB:.0f} MiB" if count >= 10 * MB else f"{count / MB:.1f} MiB"


# ----------------------------------------------------------------------------------------------------------------------
# The model's shape, as far as memory is concerned


@dataclass(frozen=True)
class AttentionStack:
    """One family of attention modules: `layers` modules of `heads` query heads over `queries` × `keys` tokens."""

    kind: str  # "self" | "encoder" | "decoder" | "cross"
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    queries: int
    keys: int


def _first(config, *names: str) -> int | None:
    for name in names:
        value = getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _itemsize(model) -> int:
    weight = first_weight(model)
    return FLOAT32 if weight is None else weight.element_size()


@dataclass(frozen=True)
class ModelSizes:
    """What the estimate reads of a model, read once per loaded model (config reads are slow in transformers)."""

    stacks: tuple[AttentionStack, ...]  # "self", or "encoder", "decoder", "cross"; over 1 × 1 tokens
    width: int  # the widest activation per token: hidden size or feed-forward size
    vocab: int  # logits per row, 0 without an output head
    relative_bias: bool  # T5: a dense per-head position bias beside each stack


def model_sizes(handle) -> ModelSizes:
    key = ("memory_sizes", handle.is_seq2seq, handle.num_layers, handle.num_heads)
    return once_per(handle.model, key, lambda: _read_sizes(handle))


def _read_sizes(handle) -> ModelSizes:
    model, config = handle.model, handle.model.config
    hidden = _first(config, "hidden_size", "d_model", "n_embd", "dim") or 0
    ffn = _first(config, "intermediate_size", "encoder_ffn_dim", "decoder_ffn_dim", "d_ff", "n_inner", "ffn_dim")

    def stack(kind, layers, heads) -> AttentionStack:
        heads = heads or handle.num_heads or 1
        head_dim = _first(config, "head_dim", "d_kv") or max(hidden // heads, 1)
        kv_heads = _first(config, "num_key_value_heads") or heads
        return AttentionStack(kind, layers or handle.num_layers, heads, kv_heads, head_dim, 1, 1)

    if not handle.is_seq2seq:
        stacks = (stack("self", handle.num_layers, handle.num_heads),)
    else:
        encoder_layers = _first(config, "encoder_layers", "num_layers", "num_hidden_layers")
        encoder_heads = _first(config, "encoder_attention_heads", "num_heads", "num_attention_heads")
        decoder_layers = _first(config, "decoder_layers", "num_decoder_layers") or handle.num_layers
        decoder_heads = _first(config, "decoder_attention_heads", "num_heads", "num_attention_heads")
        stacks = tuple(
            stack(kind, layers, heads)
            for kind, layers, heads in (
                ("encoder", encoder_layers, encoder_heads),
                ("decoder", decoder_layers, decoder_heads),
                ("cross", decoder_layers, decoder_heads),
            )
        )
    head = getattr(model, "get_output_embeddings", lambda: None)()
    vocab = (_first(config, "vocab_size") or 0) if head is not None else 0
    relative_bias = hasattr(config, "relative_attention_num_buckets")
    return ModelSizes(stacks, max(hidden, ffn or 4 * hidden), vocab, relative_bias)


def attention_stacks(handle, n_source: int, n_target: int = 0) -> list[AttentionStack]:
    """The attention stacks a run over n_source (and n_target) tokens goes through, read from the model config."""
    queries = {"self": n_source, "encoder": n_source, "decoder": n_target, "cross": n_target}
    keys = {"self": n_source, "encoder": n_source, "decoder": n_target, "cross": n_source}
    stacks = model_sizes(handle).stacks
    if handle.is_seq2seq and not n_target:
        stacks = stacks[:1]  # the encoder alone
    return [replace(stack, queries=queries[stack.kind], keys=keys[stack.kind]) for stack in stacks]


# ----------------------------------------------------------------------------------------------------------------------
# Estimate and guard


def estimate_bytes(handle, n_source: int, n_target: int = 0, mode: str = "full", batch: int = 1) -> int:
    """Extra memory (bytes) a capture of n_source source tokens (and n_target target tokens) is expected to need.

    full: the kept fp32 weights of every stack (× FULL_COPIES while they are assembled, one more copy for a padded
    batch, which is cropped per example) + one layer's scores. lazy: every layer's queries and keys in the model's
    dtype + the model's own additive mask (and T5's relative position bias) + one opened head in fp32. Both:
    activations and the logits the model computes. `batch` examples padded to these lengths multiply all of it.
    """
    if mode not in MODES:
        raise InputError("capture_mode_unknown", mode=mode)
    sizes = model_sizes(handle)
    itemsize, relative_bias = _itemsize(handle.model), sizes.relative_bias  # (a model may be cast since)
    copies = FULL_COPIES + (batch > 1)
    total = 0
    for stack in attention_stacks(handle, n_source, n_target):
        cells = stack.queries * stack.keys
        if relative_bias:
            total += stack.heads * cells * itemsize
        if mode == "full":
            total += copies * stack.layers * stack.heads * cells * FLOAT32
            total += stack.heads * cells * itemsize  # the layer being computed: its scores before the softmax
        else:
            total += (
                stack.layers * (stack.heads * stack.queries + stack.kv_heads * stack.keys) * stack.head_dim * itemsize
            )
            total += cells * itemsize  # the eager mask transformers builds for the stack
            total += 2 * cells * FLOAT32  # one opened head and the tile it is computed in
    last_rows = n_target if handle.is_seq2seq else n_source
    logits_rows = 1 if (mode == "lazy" and not handle.is_seq2seq) else last_rows  # lazy keeps one logit row
    activations = max(n_source, n_target) * sizes.width * FLOAT32 * ACTIVATION_COPIES
    total += activations + logits_rows * sizes.vocab * FLOAT32
    return int(total * batch)


def check_bytes(needed: int, what: str | Phrase, advice: str | Phrase, budget: int | None = None) -> int:
    """Refuse `what` when it needs more than the budget; `advice` completes the sentence with what to do.

    Both are Phrases the catalogue words in each language (a plain string is said as it is, in every language)."""
    budget = budget_bytes() if budget is None else budget
    if needed > budget:
        raise ResourceLimitError(
            "over_memory_budget",
            what=what,
            needed=format_bytes(needed),
            budget=format_bytes(budget),
            advice=advice,
            variable=BUDGET_ENV,
        )
    return needed


def check_budget(
    handle, n_source: int, n_target: int = 0, mode: str = "full", budget: int | None = None, batch: int = 1
) -> int:
    """The estimate of `estimate_bytes`, or ResourceLimitError with a sentence when it is above the budget."""
    budget = budget_bytes() if budget is None else budget
    needed = estimate_bytes(handle, n_source, n_target, mode, batch)
    if needed <= budget:
        return needed
    shape = ("_batch" if batch > 1 else "") + ("_pair" if n_target else "")
    what = Phrase(
        f"memory.capturing{shape}", batch=batch, tokens=n_source, target=n_target, model=handle.name, mode=mode
    )
    if mode == "full":
        lazy = estimate_bytes(handle, n_source, n_target, "lazy", batch)
        advice = Phrase("memory.advice_full", lazy=format_bytes(lazy))
    else:
        advice = Phrase("memory.advice_lazy")
    return check_bytes(needed, what, advice, budget)
