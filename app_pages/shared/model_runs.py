"""How the app runs a model for a page: which models a deployment offers, with how many torch threads, whether a
capture keeps every weight or computes heads on demand, and the capture call itself.

Its settings come from `attnviz.settings` (ATTNVIZ_ALLOW_CUSTOM_MODELS, ATTNVIZ_TORCH_THREADS,
ATTNVIZ_LAZY_FROM_TOKENS); `environ` arguments stand in for the environment in tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attnviz import settings
from attnviz.errors import InputError, ModelLoadError

if TYPE_CHECKING:
    from attnviz.attention.ondemand import LazyCapture
    from attnviz.types import AttentionCapture

MODES = ("generate", "pair")  # let the model write the target, or force-decode a given translation pair
MAX_NEW_TOKENS = 48


def model_refusal(
    model: str, catalogue_names: Sequence[str], environ: Mapping[str, str] | None = None
) -> ModelLoadError | None:
    """None when `model` may be loaded here, else the error that says why not.

    The sidebar offers "any Hugging Face id or local folder" unless ATTNVIZ_ALLOW_CUSTOM_MODELS is off: this is the
    one place that refuses the others, and attnviz.policy still limits what `load_model` accepts when it is on.
    """
    if model in catalogue_names or settings.current(environ).allow_custom_models:
        return None
    return ModelLoadError("custom_models_off", model=model)


def use_interactive_threads(environ: Mapping[str, str] | None = None) -> int:
    """Set torch's intra-op threads for the app (ATTNVIZ_TORCH_THREADS, default 1); returns the number set.

    The app runs small inputs, one script thread per browser session: one intra-op thread each keeps sessions from
    oversubscribing the cores (with two threads per call on a busy 2-core machine a 16-token translation took ten
    times longer). Raise it for a single user with long inputs on a large model.
    """
    import torch

    threads = settings.current(environ).torch_threads
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads


def source_tokens(handle, text: str) -> int:
    """How many tokens the model's tokenizer makes of `text`, special tokens included (none for an empty text)."""
    from attnviz.long_texts import token_count

    return token_count(handle, text)


def analysis_mode(
    handle, text: str, target: str, mode: str, environ: Mapping[str, str] | None = None, truncate: bool = False
) -> str:
    """How a page captures this input: "full" keeps every weight; "lazy" (`attnviz.attention.ondemand`) keeps each layer's
    queries and keys and computes the heads a page shows, for texts longer than a page draws whole and readably
    (`selection.long_view`), of ATTNVIZ_LAZY_FROM_TOKENS tokens or more, or whose whole map would not fit in the
    memory budget. `truncate`: the text is cut to the model's positions first. A translation model's generation
    records every step in full; a long prompt for a decoder-only model is read, not continued."""
    from attnviz import memory, selection

    if mode == "generate" and handle.is_seq2seq:
        return "full"
    n_source = source_tokens(handle, text)
    if truncate and handle.max_positions:
        n_source = min(n_source, handle.max_positions)
    n_target = len(handle.tokenizer(text_target=target)["input_ids"]) if handle.is_seq2seq and target.strip() else 0
    if n_source >= settings.current(environ).lazy_from_tokens or selection.long_view(n_source):
        return "lazy"
    full = memory.estimate_bytes(handle, n_source, n_target + bool(n_target), "full")  # + the decoder's start token
    return "lazy" if full > memory.budget_bytes() else "full"


def analyse(
    handle,
    text: str,
    target: str,
    mode: str,
    max_new_tokens: int = MAX_NEW_TOKENS,
    lazy: bool = False,
    truncate: bool = False,
) -> AttentionCapture | LazyCapture:
    """The capture a page shows: the model writes the target (mode "generate") or reads the given pair ("pair").

    Encoder-only models read the text; decoder-only models continue it when generating. `lazy` (see
    `analysis_mode`): a LazyCapture, which computes the layers and heads a page asks for (a decoder-only model then
    reads the text without continuing it). `truncate`: a text longer than the model's positions keeps its first
    tokens (recorded in the capture's provenance) instead of being refused.
    """
    from attnviz.attention.capture import capture
    from attnviz.attention.generation import generate
    from attnviz.attention.ondemand import capture_lazy

    if mode not in MODES:
        raise InputError("mode_unknown", mode=mode, modes=", ".join(MODES))
    chosen = capture_lazy if lazy else capture

    def read(*texts):
        return chosen(handle, *texts, truncate=truncate)

    if handle.kind == "encoder":
        return read(text)
    if mode == "generate" and not (lazy and handle.kind == "decoder"):
        return generate(handle, text, max_new_tokens=max_new_tokens, truncate=truncate)
    if handle.kind == "decoder":
        return read(text)
    if not target or not target.strip():
        raise InputError("target_empty")
    return read(text, target)
