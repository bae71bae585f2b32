"""How the app runs models: which models a deployment offers, and with how many torch threads. What a run captures
(full or on demand, generated or read) is `attnviz.run`'s, shared with the command line and the corpus job.

Its settings come from `attnviz.settings` (ATTNVIZ_ALLOW_CUSTOM_MODELS, ATTNVIZ_TORCH_THREADS); `environ` arguments
stand in for the environment in tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from attnviz import settings
from attnviz.errors import ModelLoadError
from attnviz.model.load import check_allowed
from attnviz.model.policy import Policy


def model_refusal(
    model: str, catalogue_names: Sequence[str], environ: Mapping[str, str] | None = None
) -> ModelLoadError | None:
    """None when `model` may be loaded here, else the error that says why not.

    The sidebar offers "any Hugging Face id or local folder" unless ATTNVIZ_ALLOW_CUSTOM_MODELS is off: this is the
    one place that refuses the others. In server mode attnviz.model.policy's allowlists are checked here too, before
    the model cache (which a model loaded earlier in the process would answer from) and again by `load_model`.
    """
    values = settings.current(environ)
    if model not in catalogue_names and not values.allow_custom_models:
        return ModelLoadError("custom_models_off", model=model)
    if model in catalogue_names or not values.server_mode:
        return None
    try:
        check_allowed(model, Policy.from_settings(values))
    except ModelLoadError as refusal:
        return refusal
    return None


def use_interactive_threads(environ: Mapping[str, str] | None = None) -> int:
    """Set torch's intra-op threads for the app (ATTNVIZ_TORCH_THREADS, default 1); returns the number set.

    The app runs small inputs, one script thread per browser session: one intra-op thread each keeps sessions from
    oversubscribing the cores (with two threads per call on a busy 2-core machine a 16-token translation took ten
    times longer). Raise it for a single user with long inputs on a large model.
    """
    import torch  # heavy: imported when the first model loads, not when a page starts

    threads = settings.current(environ).torch_threads
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads
