"""The exceptions attnviz raises: each message says what went wrong and what to do about it, in English and 中文.

An error is raised with a message key and the values its sentence needs, `InputError("text_empty", what="text")`;
the sentences live in the string catalogue (attnviz/i18n/errors.py, key `error.<key>`), so the app can say it in the
page's language: `error.message("zh")`. `str(error)` is the English sentence, for logs, the CLI and tracebacks.
"""

from __future__ import annotations


class AttnvizError(ValueError):
    """Base class of every error attnviz raises on purpose; the message is meant for a person."""

    def __init__(self, key: str, /, **values) -> None:
        self.key = key
        self.values = values
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        """The sentence in `lang`; a key not (yet) in the catalogue is itself the English sentence."""
        from attnviz import i18n  # the catalogue imports this module for its error headings

        name = f"error.{self.key}"
        return i18n.t(name, lang, **self.values) if i18n.has(name, lang) else self.key

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
