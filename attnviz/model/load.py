"""`load_model` for any Hugging Face Transformers model: a catalogue name (`attnviz.model.catalogue`), a local folder or
a hub id (`attnviz.model.hub`); and what a loaded model reads and writes."""

from __future__ import annotations

import os
import socket
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from attnviz import settings
from attnviz.errors import ModelLoadError
from attnviz.model import placement

# ASSETS and catalogue are also read from here by the app, the command line and the training code
from attnviz.model.catalogue import ASSETS as ASSETS
from attnviz.model.catalogue import POSITION_FIELDS, catalogue_entry, catalogue_folder, model_name
from attnviz.model.catalogue import catalogue as catalogue
from attnviz.model.hub import BY_ID, hub_cache, offline_error
from attnviz.model.policy import Policy


@dataclass
class ModelHandle:
    name: str
    model: object  # a transformers PreTrainedModel, in eval mode, on `device`
    tokenizer: object
    kind: str  # "encoder" | "decoder" | "encoder-decoder"
    num_layers: int  # attention layers per stack (the decoder's for encoder-decoder models)
    num_heads: int
    device: str
    alignment_heads: list[tuple[int, int]] = field(default_factory=list)  # (layer, head) trained to align, if any
    max_positions: int | None = None  # longest input the model accepts; None when unbounded (relative positions)
    path: str | None = None
    origin: str = "loaded"  # "loaded" by `load_model`, or "object": a model object the caller built (`from_objects`)
    # what `load_model` was given (a catalogue name, a folder's path, a hub id): what loads it again in this process;
    # files record `name` (`model_name`: a folder by its own name), never this
    loaded_from: str = ""

    @property
    def is_seq2seq(self) -> bool:
        return self.kind == "encoder-decoder"


def source_languages(handle: ModelHandle) -> tuple[str, ...]:
    """The languages a loaded model reads, as its catalogue entry says (() when not declared, or from the hub)."""
    return catalogue_entry(handle.name, handle.path, handle.kind).languages if handle.path else ()


def target_languages(handle: ModelHandle) -> tuple[str, ...]:
    """The languages a loaded translator writes, as its catalogue entry says (() when not declared, or from the hub:
    `attnviz.model.hub.BY_ID` says it for the hub models the app offers)."""
    if not handle.path:
        return BY_ID[handle.name].writes if handle.name in BY_ID else ()
    return catalogue_entry(handle.name, handle.path, handle.kind).writes


def check_allowed(name_or_path: str, policy: Policy | None = None) -> None:
    """Raise the ModelLoadError `load_model` would raise for `name_or_path` before loading anything: a folder or hub
    id the deployment's policy refuses (default: the settings in force now), or a folder that is not there. A
    server's cached models are checked with it too, so a model loaded before server mode was on stays refused."""
    _resolve_source(name_or_path.strip(), policy or Policy.from_settings())


def _resolve_source(name_or_path: str, policy: Policy) -> tuple[str, bool]:
    """(what to pass to from_pretrained, whether it is a local folder), after the deployment's policy allows it."""
    folder = catalogue_folder(name_or_path)
    if folder is not None:
        policy.check_folder(str(folder), catalogued=True)
        return str(folder), True
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        policy.check_folder(str(path))
        return str(path), True
    if path.exists():
        raise ModelLoadError("model_is_file", name=name_or_path)
    # Hub ids look like "org/name"; anything else with a path shape is a folder that is not there.
    looks_like_path = name_or_path.startswith((".", "/", "~")) or name_or_path.count("/") > 1 or "\\" in name_or_path
    if looks_like_path:
        raise ModelLoadError("model_folder_missing", name=name_or_path)
    policy.check_hub_id(name_or_path)
    return name_or_path, False


def _check_weights(folder: Path) -> None:
    if not (folder / "config.json").exists():
        raise ModelLoadError("model_no_config", folder=str(folder))
    has_safetensors = any(folder.glob("*.safetensors"))
    has_pickle = any(folder.glob("*.bin")) or any(folder.glob("*.pt")) or any(folder.glob("*.pth"))
    if not has_safetensors and has_pickle and not settings.current().allow_pickle:
        raise ModelLoadError("model_pickle_only", folder=str(folder), variable=settings.variable("allow_pickle"))
    if not has_safetensors and not has_pickle:
        raise ModelLoadError("model_no_weights", folder=str(folder))


def _model_class(config):
    import transformers
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    if getattr(config, "is_encoder_decoder", False):
        return transformers.AutoModelForSeq2SeqLM
    architectures = getattr(config, "architectures", None) or []
    if any(arch.endswith(("ForCausalLM", "LMHeadModel")) for arch in architectures):
        return transformers.AutoModelForCausalLM
    if (
        not architectures
        and config.model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
        and (config.model_type not in MODEL_FOR_MASKED_LM_MAPPING_NAMES)
    ):
        return transformers.AutoModelForCausalLM
    return transformers.AutoModel


def model_kind(model) -> str:
    config = model.config
    if getattr(config, "is_encoder_decoder", False):
        return "encoder-decoder"
    attention = [module for module in model.modules() if "Attention" in type(module).__name__]
    if any(getattr(module, "is_causal", False) is True for module in attention) or getattr(config, "is_decoder", False):
        return "decoder"
    return "encoder"


def _count(config, *names) -> int | None:
    for name in names:
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


# One model load at a time per process: transformers' loading is not thread-safe (two at once can see each other's
# half-imported modules, or weights still on the meta device), and a server loads models for several sessions.
LOADING = threading.RLock()


@contextmanager
def without_sacremoses_request():
    """Load tokenizers in this block without MarianTokenizer's request for sacremoses, which it would import (0.4–0.6 s)
    only for a punctuation normaliser its tokenization never calls; attnviz does not install it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses")
        yield


def load_model(
    name_or_path: str,
    device: str | None = "auto",
    policy: Policy | None = None,
    dtype: str | None = None,
    *,
    compared: bool = False,
    device_map: str | dict | None = None,
    max_memory: str | dict | None = None,
    offload_folder: str | os.PathLike | None = None,
) -> ModelHandle:
    """Load a model and its tokenizer for attention capture.

    `name_or_path`: a catalogue name ("demo-zh-en", "minilm"), a local Hugging Face folder, or a hub id (needs the
    hub to be reachable, or the model in the local cache). Weights load from safetensors; pickle weights are refused
    unless ATTNVIZ_ALLOW_PICKLE is on. `policy` (default: from attnviz.settings, see attnviz.model.policy) may restrict what
    can be loaded on a shared server. `dtype` ("float16", "bfloat16") runs the model in half precision where the
    device allows it (npu, cuda; on the CPU too when the model is `compared` with its float32 self, as Compare's B);
    captured weights are still computed with an fp32 softmax. Raises ModelLoadError with a sentence saying what to do.

    A model larger than one device: `device_map` ("auto", "balanced", "sequential" or {module path: place}) lets
    accelerate place its layers across accelerators, the CPU and the disk, within `max_memory` ({0: "30GiB", "cpu":
    "64GiB"}, or "npu:0=30GiB,cpu=64GiB"); layers that fit nowhere go to `offload_folder`, and without one a
    `max_memory` that cannot hold the model is refused. `device` then names where the inputs go (the first layer's).
    """
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise ModelLoadError("model_not_given")
    name_or_path = name_or_path.strip()
    # Both import torch: this module stays light, as the app's first page imports it before torch has loaded.
    from attnviz.model.devices import check_accelerators, resolve_device  # torch: only once a model loads
    from attnviz.model.precision import dtype_policy  # torch: only once a model loads

    torch_device = resolve_device(device)
    named = placement.accelerators_named(device_map, max_memory)
    check_accelerators([(written, *placement.accelerator_of(written)) for written in named])
    torch_dtype = dtype_policy(torch_device, dtype, compared=compared)
    placing = _placing(device_map, max_memory, offload_folder, torch_dtype)
    source, is_local = _resolve_source(name_or_path, policy or Policy.from_settings())
    if is_local:
        _check_weights(Path(source))

    # A hub id: the local cache first; the network only when the hub answers (else hub clients retry for ~30 s).
    offline = is_local or _cached(source)
    if not offline and not _hub_reachable():
        raise offline_error(name_or_path)
    with LOADING:
        config, tokenizer, model = _load_pretrained(name_or_path, source, is_local, offline, placing)
        if placing:
            _check_placed(model, name_or_path, placing)
            torch_device = model.device  # where the first layer reads its inputs
        else:
            model.to(device=torch_device, dtype=torch_dtype)
        model.eval()
    name = model_name(name_or_path)  # a folder by its own name, never its path
    path = source if is_local else None
    return handle_of(name, model, tokenizer, str(torch_device), path=path, loaded_from=name_or_path)


def _placing(device_map, max_memory, offload_folder, torch_dtype) -> dict:
    """from_pretrained's placement options (accelerate), or {} to load onto one device."""
    if device_map is None and max_memory is None:
        return {}
    options = {"device_map": placement.device_map_of(device_map) or "auto", "dtype": torch_dtype}
    if max_memory is not None:
        options["max_memory"] = placement.max_memory_of(max_memory)
    if offload_folder is not None:
        options["offload_folder"] = str(offload_folder)
    return options


def _check_placed(model, name: str, placing: dict) -> None:
    """Refuse a placement that sends layers to the disk when no offload folder was given for them, or one that
    accelerate cannot run (`_unreadable_on_disk`); each in one sentence, before anything runs."""
    limits = ", ".join(f"{place}={size}" for place, size in (placing.get("max_memory") or {}).items()) or "auto"
    if "offload_folder" not in placing and placement.offloaded_to_disk(getattr(model, "hf_device_map", None)):
        raise ModelLoadError("max_memory_too_small", name=name, memory=limits)
    if model.device.type == "meta":  # where the inputs go (every caller sends them to model.device): nowhere
        raise ModelLoadError("offload_no_input_device", name=name, memory=limits)
    unreadable = _unreadable_on_disk(model)
    if unreadable:
        raise ModelLoadError("offload_unreadable", name=name, memory=limits, tensor=unreadable[0])


def _unreadable_on_disk(model) -> list[str]:
    """Tensors accelerate left on the meta device (sent to disk) that its hook cannot read back: those the checkpoint
    does not store, such as Marian's sinusoidal positions, which are computed when the model is built."""
    missing, keys = [], {}
    for path, module in model.named_modules():
        stored = getattr(getattr(module, "_hf_hook", None), "weights_map", None)
        own = [*module.named_parameters(recurse=False), *module.named_buffers(recurse=False)]
        for tensor_name, tensor in own:
            if tensor.device.type == "meta" and not _stores(stored, tensor_name, keys):
                missing.append(f"{path}.{tensor_name}" if path else tensor_name)
    return missing


def _stores(weights_map, tensor_name: str, keys: dict) -> bool:
    """Whether a hook's `weights_map` holds `tensor_name`, asked of its keys alone: accelerate's `PrefixedDataset` (a
    Mapping without `__contains__`) would answer `in` by loading the tensor from disk. `keys` keeps each underlying
    dataset's keys (listing them reads no tensor), so a model's are listed once, not once per module."""
    if weights_map is None:
        return False
    prefix = getattr(weights_map, "prefix", "")  # a PrefixedDataset: its module's path, over the model's dataset
    dataset = getattr(weights_map, "dataset", weights_map)
    if id(dataset) not in keys:
        keys[id(dataset)] = set(dataset)
    return f"{prefix}{tensor_name}" in keys[id(dataset)]


def handle_of(
    name: str,
    model,
    tokenizer,
    device: str,
    path: str | None = None,
    origin: str = "loaded",
    loaded_from: str = "",
) -> ModelHandle:
    """The handle of a model and its tokenizer: its kind and shape read from its config."""
    config = model.config
    decoder_config = getattr(config, "decoder", None) or config
    layers = _count(
        decoder_config, "decoder_layers", "num_decoder_layers", "num_hidden_layers", "n_layer", "num_layers"
    )
    heads = _count(decoder_config, "decoder_attention_heads", "num_attention_heads", "num_heads", "n_head")
    return ModelHandle(
        name=name,
        model=model,
        tokenizer=tokenizer,
        kind=model_kind(model),
        num_layers=layers or 0,
        num_heads=heads or 0,
        device=device,
        alignment_heads=[tuple(pair) for pair in (getattr(config, "alignment_heads", None) or [])],
        max_positions=_count(config, *POSITION_FIELDS),
        path=path,
        origin=origin,
        loaded_from=loaded_from,
    )


def _load_pretrained(name_or_path: str, source: str, is_local: bool, offline: bool, placing: dict | None = None):
    """Config, tokenizer and model of `source` from its files (safetensors unless pickle is allowed), placed by
    accelerate when `placing` holds from_pretrained's device_map options."""
    import transformers

    try:
        config = transformers.AutoConfig.from_pretrained(source, local_files_only=offline)
        with without_sacremoses_request():
            tokenizer = transformers.AutoTokenizer.from_pretrained(source, local_files_only=offline)
        model = _model_class(config).from_pretrained(
            source,
            config=config,
            local_files_only=offline,
            use_safetensors=None if settings.current().allow_pickle else True,
            **(placing or {}),
        )
    except Exception as error:  # loaders of arbitrary folders raise anything (SafetensorError, OSError, …)
        raise _load_failure(name_or_path, is_local, error) from error
    return config, tokenizer, model


def _cached(model_id: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(model_id, "config.json"), str)
    except Exception:  # an id the hub client rejects is simply not cached
        return False


def _hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hugging Face hub (HF_ENDPOINT) answers a TCP connection within `timeout` seconds."""
    # huggingface_hub's variable, read with the words it reads as true (the same as attnviz's on/off settings)
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in settings.TRUE_WORDS:
        return False
    from urllib.parse import urlparse

    endpoint = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
    answered = []

    def connect() -> None:
        try:
            with socket.create_connection((endpoint.hostname, port), timeout=timeout):
                answered.append(True)
        except OSError:
            pass

    # In a thread: the name lookup before the connection has no timeout of its own, and a dead resolver can stall it.
    worker = threading.Thread(target=connect, daemon=True)
    worker.start()
    worker.join(timeout)
    return bool(answered)


def _load_failure(name: str, is_local: bool, error: Exception) -> ModelLoadError:
    first_line = (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
    if is_local:
        return ModelLoadError("model_folder_unloadable", name=name, detail=first_line)
    return ModelLoadError("model_hub_unloadable", name=name, cache=hub_cache(), detail=first_line)
