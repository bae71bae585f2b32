"""The exceptions attnviz raises: each message says what went wrong and what to do about it."""


class AttnvizError(ValueError):
    """Base class of every error attnviz raises on purpose; the message is meant for a person."""


class DeviceUnavailableError(AttnvizError):
    """An explicitly requested device (npu, cuda, mps) cannot be used here."""


class ModelLoadError(AttnvizError):
    """A model name or folder could not be loaded (unknown, offline, corrupt, refused)."""


class InputError(AttnvizError):
    """Text, indices or matrices given by the user cannot be used as they are."""


class ResourceLimitError(AttnvizError):
    """The request would exceed a configured limit (memory budget, text length)."""
