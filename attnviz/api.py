"""The everyday capture functions as `import attnviz` offers them: each takes a handle from `load_model`, or a
transformers model object and its tokenizer, which `attnviz.model.objects.from_objects` wraps into a handle first.

    attnviz.capture(handle, "早上好！", target="Good morning!")
    attnviz.capture(model, tokenizer, "早上好！", target="Good morning!")
    board = attnviz.faithfulness(handle, "早上好！", target="Good morning!", row=0)  # which explanation to believe

The captures themselves are those of `attention.capture`, `attention.ondemand` and `attention.generation`; a model
object is left as it was given (implementation, training mode), and the call works inside `torch.no_grad()` or
`torch.inference_mode()`.
"""

from __future__ import annotations

from attnviz.attention import capture as full
from attnviz.attention import generation, ondemand
from attnviz.measures import detached
from attnviz.measures import faithfulness as scoreboard
from attnviz.model.load import ModelHandle
from attnviz.model.objects import from_objects


def handle_and_rest(model, args: tuple) -> tuple[ModelHandle, tuple]:
    """(the handle, the other positional arguments): `model` itself when it is a handle, else `model` and the first
    argument (its tokenizer) wrapped by `from_objects`."""
    if isinstance(model, ModelHandle):
        return model, args
    tokenizer, *rest = args or (None,)
    return from_objects(model, tokenizer), tuple(rest)


def capture(model, *args, **options):
    """`capture(handle, text, target=None, truncate=False)` or `capture(model, tokenizer, text, …)`: every map of one
    pass, bit-equal to eager attention (`attnviz.attention.capture.capture`)."""
    handle, rest = handle_and_rest(model, args)
    return full.capture(handle, *rest, **options)


def capture_lazy(model, *args, **options):
    """`capture_lazy(handle, text, target=None, truncate=False)` or `capture_lazy(model, tokenizer, text, …)`: queries
    and keys kept, each head computed when asked (`attnviz.attention.ondemand.capture_lazy`)."""
    handle, rest = handle_and_rest(model, args)
    return ondemand.capture_lazy(handle, *rest, **options)


def generate(model, *args, **options):
    """`generate(handle, text, max_new_tokens=32, …)` or `generate(model, tokenizer, text, …)`: the model writes and
    every step's attention is recorded (`attnviz.attention.generation.generate`)."""
    handle, rest = handle_and_rest(model, args)
    return generation.generate(handle, *rest, **options)


def faithfulness(model, *args, **options):
    """`faithfulness(handle, text, target=None, row=None, measures=None, …)` or `faithfulness(model, tokenizer, text,
    …)`: every measure scored on this input by removing tokens in its order (`attnviz.measures.faithfulness`); show
    it with `attnviz.show_faithfulness`."""
    handle, rest = handle_and_rest(model, args)
    return scoreboard.faithfulness(handle, *rest, **options)


def detachment(model, *args, **options):
    """`detachment(handle, text, target=None)` or `detachment(model, tokenizer, text, …)`: a translation's ALTI+
    source share and sequence log-probability, flagged where the model has calibrated thresholds
    (`attnviz.measures.detached`)."""
    handle, rest = handle_and_rest(model, args)
    return detached.detachment(handle, *rest, **options)
