"""A model the caller already holds: `from_objects(model, tokenizer)` wraps a transformers model object (a fine-tuned
checkpoint, a PEFT/LoRA-wrapped model, one in fp16/bf16, one spread over devices by accelerate) and its tokenizer into
the `ModelHandle` that every capture takes, as `load_model` does for a name.

Nothing is changed on the model here, and nothing is left changed by a capture: it switches the model to attnviz's
attention implementation and to eval mode only while it runs (`attention.recorder.attnviz_attention`). What cannot be
captured is refused before anything is touched, in one sentence: an object that is not a transformers model, an
architecture whose attention does not go through transformers' attention interface, a tokenizer whose ids the model
cannot read.
"""

from __future__ import annotations

from attnviz.errors import ModelLoadError
from attnviz.model.catalogue import model_name
from attnviz.model.load import ModelHandle, handle_of

# The special tokens whose ids a model's config and its tokenizer both name: they must agree (not padding, which
# callers often set on a tokenizer that has none; it only fills a batch).
SPECIAL_IDS = ("bos_token_id", "eos_token_id")


def from_objects(model, tokenizer, name: str | None = None) -> ModelHandle:
    """A handle on `model` (a transformers PreTrainedModel, or a PEFT model around one) and its `tokenizer`.

    The model stays as the caller left it (device, dtype, training mode, attention implementation); `name` (default:
    the name it was loaded from, a folder by its own name, else its class) is what captures and files call it.
    Raises ModelLoadError when the
    model cannot be captured or the tokenizer does not belong to it.
    """
    model = unwrapped(model)
    check_architecture(model)
    label = name or model_name(getattr(model.config, "_name_or_path", "") or "") or type(model).__name__
    check_tokenizer(model, tokenizer, label)
    return handle_of(label, model, tokenizer, str(model.device), origin="object")


def unwrapped(model):
    """The transformers model inside a PEFT wrapper (`PeftModel.get_base_model()`: the model with its adapter layers
    in place, so running it runs the adapters), or `model` itself."""
    get_base = getattr(model, "get_base_model", None)
    if callable(get_base) and _is_transformers_model(inner := get_base()) and inner is not model:
        return inner
    return model


def _is_transformers_model(model) -> bool:
    import transformers

    return isinstance(model, transformers.PreTrainedModel)


def check_architecture(model) -> None:
    """Refuse a model whose attention attnviz cannot see: not a transformers model, or an architecture whose attention
    does not call transformers' attention interface (switching its implementation would silently do nothing)."""
    if not _is_transformers_model(model):
        raise ModelLoadError("model_object_not_transformers", kind=type(model).__name__)
    # The test `set_attn_implementation` itself applies before it switches (else it warns and leaves eager in place):
    # whether the model's attention classes call transformers' attention interface.
    can_switch = getattr(type(model), "_can_set_attn_implementation", lambda: True)
    if not can_switch():
        raise ModelLoadError("model_object_unsupported", kind=type(model).__name__)


def check_tokenizer(model, tokenizer, name: str) -> None:
    """Refuse a tokenizer that is not the model's: ids past the model's embedding rows, or a special token (bos,
    eos) whose id differs from the one the model's config names."""
    if not callable(getattr(tokenizer, "convert_ids_to_tokens", None)):
        raise ModelLoadError("tokenizer_object_invalid", kind=type(tokenizer).__name__)
    embeddings = model.get_input_embeddings()
    rows = getattr(embeddings, "num_embeddings", None)
    if rows is not None and len(tokenizer) > rows:
        raise ModelLoadError("tokenizer_too_large", model=name, tokens=len(tokenizer), rows=rows)
    config = getattr(model.config, "get_text_config", lambda: model.config)()
    for field in SPECIAL_IDS:
        said, own = getattr(config, field, None), getattr(tokenizer, field, None)
        allowed = set(said) if isinstance(said, (list, tuple)) else {said}
        if said is not None and own is not None and own not in allowed:
            token = field.removesuffix("_token_id")
            raise ModelLoadError("tokenizer_special_differs", model=name, token=token, model_id=said, tokenizer_id=own)
