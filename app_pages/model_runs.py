"""How the app runs a model for a page: which models a deployment offers, with how many torch threads, whether a
capture keeps every weight or computes heads on demand, and the capture call itself.

The environment is read here, one function per setting: ATTNVIZ_ALLOW_CUSTOM_MODELS (`custom_models_allowed`),
ATTNVIZ_TORCH_THREADS (`interactive_threads`) and ATTNVIZ_LAZY_FROM_TOKENS (`lazy_from_tokens`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attnviz.errors import InputError

if TYPE_CHECKING:
    from attnviz.ondemand import LazyCapture
    from attnviz.types import AttentionCapture

MODES = ("generate", "pair")  # let the model write the target, or force-decode a given translation pair
MAX_NEW_TOKENS = 48
CUSTOM_MODELS_ENV = "ATTNVIZ_ALLOW_CUSTOM_MODELS"
LAZY_FROM_TOKENS_ENV = "ATTNVIZ_LAZY_FROM_TOKENS"
LAZY_FROM_TOKENS = 1024
THREADS_ENV = "ATTNVIZ_TORCH_THREADS"
_TRUE = ("1", "true", "yes", "on")


def custom_models_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the sidebar offers "any Hugging Face id or local folder" (ATTNVIZ_ALLOW_CUSTOM_MODELS, default on).

    The one place that decides it: a server deployment turns it off here, and attnviz.policy still limits what
    `load_model` accepts when it is on.
    """
    environ = os.environ if environ is None else environ
    return environ.get(CUSTOM_MODELS_ENV, "1").strip().lower() in _TRUE


def model_refusal(model: str, catalogue_names: Sequence[str], environ: Mapping[str, str] | None = None) -> str | None:
    """None when `model` may be loaded here, else why not (an i18n key: the app words it)."""
    if model in catalogue_names or custom_models_allowed(environ):
        return None
    return "error_custom_models_off"


def interactive_threads(environ: Mapping[str, str] | None = None) -> int:
    """Torch threads for the app: ATTNVIZ_TORCH_THREADS, default 1.

    The app runs small inputs, one script thread per browser session: one intra-op thread each keeps sessions from
    oversubscribing the cores (with two threads per call on a busy 2-core machine a 16-token translation took ten
    times longer). Raise it for a single user with long inputs on a large model.
    """
    environ = os.environ if environ is None else environ
    raw = environ.get(THREADS_ENV, "1").strip()
    try:
        threads = int(raw)
    except ValueError:
        raise InputError(
            f"{THREADS_ENV}={raw!r} is not a number of threads; use a whole number such as 1 or 4."
        ) from None
    if threads < 1:
        raise InputError(f"{THREADS_ENV} must be at least 1; got {threads}.")
    return threads


def use_interactive_threads(environ: Mapping[str, str] | None = None) -> int:
    """Set torch's intra-op threads for the app (see `interactive_threads`); returns the number set."""
    import torch

    threads = interactive_threads(environ)
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads


def lazy_from_tokens(environ: Mapping[str, str] | None = None) -> int:
    """Texts of this many tokens or more are captured lazily (ATTNVIZ_LAZY_FROM_TOKENS, default 1,024)."""
    raw = (os.environ if environ is None else environ).get(LAZY_FROM_TOKENS_ENV, "").strip()
    try:
        return max(int(raw), 1) if raw else LAZY_FROM_TOKENS
    except ValueError:
        raise InputError(f"{LAZY_FROM_TOKENS_ENV} must be a whole number of tokens, not {raw!r}.") from None


def analysis_mode(handle, text: str, target: str, mode: str, environ: Mapping[str, str] | None = None) -> str:
    """How a page captures this input: "full" keeps every weight; "lazy" (`attnviz.ondemand`) keeps each layer's
    queries and keys and computes the heads a page shows, for texts of ATTNVIZ_LAZY_FROM_TOKENS tokens or more, or
    whose whole map would not fit in the memory budget. A translation model's generation records every step in full;
    a long prompt for a decoder-only model is read, not continued."""
    from attnviz import memory

    if mode == "generate" and handle.is_seq2seq:
        return "full"
    n_source = len(handle.tokenizer(text)["input_ids"]) if text.strip() else 0
    n_target = len(handle.tokenizer(text_target=target)["input_ids"]) if handle.is_seq2seq and target.strip() else 0
    if n_source >= lazy_from_tokens(environ):
        return "lazy"
    full = memory.estimate_bytes(handle, n_source, n_target + bool(n_target), "full")  # + the decoder's start token
    return "lazy" if full > memory.budget_bytes() else "full"


def analyse(
    handle, text: str, target: str, mode: str, max_new_tokens: int = MAX_NEW_TOKENS, lazy: bool = False
) -> AttentionCapture | LazyCapture:
    """The capture a page shows: the model writes the target (mode "generate") or reads the given pair ("pair").

    Encoder-only models read the text; decoder-only models continue it when generating. `lazy` (see
    `analysis_mode`): a LazyCapture, which computes the layers and heads a page asks for (a decoder-only model then
    reads the text without continuing it).
    """
    from attnviz.capture import capture, generate
    from attnviz.ondemand import capture_lazy

    if mode not in MODES:
        raise InputError(f"Unknown mode {mode!r}; use one of {', '.join(MODES)}.")
    read = capture_lazy if lazy else capture
    if handle.kind == "encoder":
        return read(handle, text)
    if mode == "generate" and not (lazy and handle.kind == "decoder"):
        return generate(handle, text, max_new_tokens=max_new_tokens)
    if handle.kind == "decoder":
        return read(handle, text)
    if not target or not target.strip():
        raise InputError("The target is empty; type the translation to force-decode, or let the model generate it.")
    return read(handle, text, target)
