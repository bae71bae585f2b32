"""The exceptions attnviz raises: each message says what went wrong and what to do about it, in English and 中文.

An error is raised with a message key and the values its sentence needs, `InputError("text_empty", what="text")`;
the sentences live in the string catalogue (attnviz/i18n/errors.py, key `error.<key>`), so the app can say it in the
page's language: `error.message("zh")`. `str(error)` is the English sentence, for logs, the CLI and tracebacks.
A value may itself be a `Phrase` (a part of the sentence with a key of its own), said in the same language.
"""

from __future__ import annotations

from attnviz import i18n


class Phrase:
    """A part of a sentence that the catalogue words in each language: `Phrase("memory.advice_lazy")`.

    Like an error's key, a key not (yet) in the catalogue is itself the English text.
    """

    def __init__(self, key: str, /, **values) -> None:
        self.key = key
        self.values = values

    def text(self, lang: str = "en") -> str:
        return _said(self.key, self.values, lang, fallback=self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, Phrase) and (self.key, self.values) == (other.key, other.values)

    __hash__ = None  # values may be unhashable; a phrase is compared, never a dict key

    def __repr__(self) -> str:
        return f"Phrase({self.key!r}, **{self.values!r})"


def _said(key: str, values: dict, lang: str, fallback: str) -> str:
    """The catalogue's `key` in `lang`, its Phrase values said in the same language; `fallback` when it has no `key`."""
    if not i18n.has(key, lang):
        return fallback
    worded = {name: value.text(lang) if isinstance(value, Phrase) else value for name, value in values.items()}
    return i18n.t(key, lang, **worded)


class AttnvizError(ValueError):
    """Base class of every error attnviz raises on purpose; the message is meant for a person."""

    def __init__(self, key: str, /, **values) -> None:
        self.key = key
        self.values = values
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        """The sentence in `lang`; a key not (yet) in the catalogue is itself the English sentence."""
        return _said(f"error.{self.key}", self.values, lang, fallback=self.key)

    def __reduce__(self):  # pickled (e.g. between processes) by key and values, not by the English sentence
        return (_rebuild, (type(self), self.key, self.values))


def _rebuild(cls: type[AttnvizError], key: str, values: dict) -> AttnvizError:
    return cls(key, **values)


class DeviceUnavailableError(AttnvizError):
    """An explicitly requested device (npu, cuda, mps) cannot be used here."""


class ModelLoadError(AttnvizError):
    """A model name or folder could not be loaded (unknown, offline, corrupt, refused)."""


class InputError(AttnvizError):
    """Text, indices or matrices given by the user cannot be used as they are."""


class ResourceLimitError(AttnvizError):
    """The request would exceed a configured limit (memory budget, text length)."""


class SettingError(AttnvizError):
    """A setting (an ATTNVIZ_* variable or an entry of .streamlit/secrets.toml) has a value attnviz cannot use."""
