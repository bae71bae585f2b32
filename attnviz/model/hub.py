"""The well-known Hugging Face hub models attnviz offers beside its embedded ones: what each one is, the languages
it reads, what it downloads on first use; and the sentence said, in seconds, when one cannot be had offline.

Sizes are the weights a first use downloads (model.safetensors or pytorch_model.bin as the hub lists them), rounded:
parameters × bytes per parameter (fp32, Qwen2.5 bf16), plus buffers saved with them (GPT-2's causal masks).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from attnviz import i18n, settings
from attnviz.errors import ModelLoadError, Phrase
from attnviz.model.catalogue import CatalogueEntry, catalogue
from attnviz.model.policy import Policy


@dataclass(frozen=True)
class HubModel:
    id: str  # the hub id `load_model` is given
    kind: str  # attnviz.model.catalogue.KINDS
    languages: tuple[str, ...]  # ISO 639-1 codes of the languages it reads
    download_mb: int  # what the first use downloads
    writes: tuple[str, ...] = ()  # a translator's: the languages it writes (its model card's translation pairs)


HUB_MODELS: tuple[HubModel, ...] = (
    HubModel("Helsinki-NLP/opus-mt-zh-en", "encoder-decoder", ("zh",), 312, ("en",)),  # 78M parameters, fp32
    HubModel("Helsinki-NLP/opus-mt-en-zh", "encoder-decoder", ("en",), 312, ("zh",)),
    HubModel("facebook/nllb-200-distilled-600M", "encoder-decoder", ("zh", "en"), 2460, ("zh", "en")),  # 615M, fp32
    HubModel("google-t5/t5-small", "encoder-decoder", ("en",), 242, ("de", "fr", "ro")),  # 60M, fp32
    HubModel("bert-base-chinese", "encoder", ("zh",), 412),  # 102M, fp32
    HubModel("bert-base-multilingual-cased", "encoder", ("zh", "en"), 714),  # 178M, fp32
    HubModel("gpt2", "decoder", ("en",), 548),  # 124M, fp32, with the saved attention masks
    HubModel("Qwen/Qwen2.5-0.5B", "decoder", ("zh", "en"), 988),  # 494M, bf16
)
BY_ID = {model.id: model for model in HUB_MODELS}


def size_text(megabytes: float) -> str:
    """A download size as people write it: "310 MB", "2.5 GB"."""
    return f"{megabytes / 1000:.1f} GB" if megabytes >= 1000 else f"{megabytes:.0f} MB"


def hub_catalogue(lang: str = "en", policy: Policy | None = None) -> list[CatalogueEntry]:
    """The hub models this deployment may load (server mode: only allowlisted ids), described in `lang`.

    Each entry's `path` is its hub id; `BY_ID[entry.name].download_mb` is what its first use downloads."""
    policy = policy or Policy.from_settings()
    offered = [model for model in HUB_MODELS if not policy.server_mode or model.id in policy.allowed_models]
    return [
        CatalogueEntry(
            model.id,
            model.id,
            model.kind,
            i18n.t(f"hub_description.{model.id}", lang),
            languages=model.languages,
            writes=model.writes,
        )
        for model in offered
    ]


def option_label(entry: CatalogueEntry, lang: str = "en") -> str:
    """How a hub model is named in a sentence or a list: its id, what it is, what it reads, its size, and that it
    downloads."""
    return i18n.t("hub_option", lang, name=entry.name, **_about(entry, lang))


def picked_caption(entry: CatalogueEntry, lang: str = "en") -> str:
    """What the line under the model picker says of a picked hub model (the picker itself shows only its id, whole):
    what it is, what it reads, its size and where it downloads to."""
    return i18n.t("hub_caption", lang, name=entry.name, cache=hub_cache(), **_about(entry, lang))


def _about(entry: CatalogueEntry, lang: str) -> dict[str, str]:
    join = i18n.t("hub_language_join", lang)
    return {
        "kind": i18n.t(f"hub_kind.{entry.kind}", lang),
        "languages": join.join(i18n.t(f"hub_language.{code}", lang) for code in entry.languages),
        "size": i18n.t("hub_size", lang, size=size_text(BY_ID[entry.name].download_mb)),
    }


def hub_cache() -> str:
    """The folder the Hugging Face hub client downloads models into (HF_HUB_CACHE, HF_HOME)."""
    try:
        from huggingface_hub import constants

        return constants.HF_HUB_CACHE
    except ImportError:  # pragma: no cover
        return "~/.cache/huggingface/hub"


def offline_error(name: str) -> ModelLoadError:
    """What `load_model` says for a hub id that is neither in the local cache nor downloadable now."""
    known = BY_ID.get(name)
    size = Phrase("hub_size", size=size_text(known.download_mb)) if known else Phrase("hub_size_unknown")
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in settings.TRUE_WORDS:
        reason = Phrase("hub_reason_offline_setting")
    else:
        reason = Phrase("hub_reason_unreachable", endpoint=os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    return ModelLoadError(
        "hub_offline", name=name, size=size, reason=reason, cache=hub_cache(), suggestion=embedded_like(known)
    )


def embedded_like(model: HubModel | None) -> str:
    """The embedded model nearest a hub model, to use instead while it cannot download: of its kind, reading and
    writing what it does where one does (demo-en-zh for opus-mt-en-zh), else of its kind; demo-zh-en for the rest."""
    entries = catalogue()
    if model is not None:
        for alike in (
            lambda entry: entry.languages[:1] == model.languages[:1] and set(entry.writes) <= set(model.writes or ()),
            lambda entry: True,
        ):
            found = [entry.name for entry in entries if entry.kind == model.kind and alike(entry)]
            if found:
                return found[0]
    return "demo-zh-en"
