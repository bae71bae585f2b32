"""attnviz: capture and show a Transformer's attention exactly — self-attention and cross-attention.

    import attnviz
    handle = attnviz.load_model("demo-zh-en")
    result = attnviz.capture(handle, "早上好！", target="Good morning!")
    result = attnviz.capture(model, tokenizer, "早上好！", target="Good morning!")  # a model object you hold

`load_model`, `from_objects`, `capture`, `capture_lazy`, `generate`, `show` (figures inline in a notebook),
`explore` (the same figures with map, head, layer and figure controls), `faithfulness` (every measure scored on one
input), `show_faithfulness` (its verdict and figures inline) and `detachment` (the detached-translation flag) are
imported when first used (PEP 562):
`import attnviz` stays quick and leaves torch and ipywidgets unimported, so the types and errors serve numpy-only
code too.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

# torch_npu installed without Ascend's CANN breaks `import torch` through the device-backend autoload; the
# guarded import in attnviz.model.devices loads it instead. This must run before torch is first imported.
os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")

from attnviz.errors import (  # noqa: E402
    AttnvizError,
    DeviceUnavailableError,
    InputError,
    ModelLoadError,
    ResourceLimitError,
)
from attnviz.types import AttentionCapture, AttentionMap, GenerationStep, Token  # noqa: E402
from attnviz.version import __version__  # noqa: E402

if TYPE_CHECKING:  # what the names below resolve to, for type checkers and editors
    from attnviz.api import capture, capture_lazy, detachment, faithfulness, generate
    from attnviz.model.load import load_model
    from attnviz.model.objects import from_objects
    from attnviz.notebook.explore import explore
    from attnviz.notebook.faithfulness import show_faithfulness
    from attnviz.notebook.show import show

# The everyday API: each name and the module that defines it (they import torch, hence loaded on first use).
_EVERYDAY = {
    "load_model": "attnviz.model.load",
    "from_objects": "attnviz.model.objects",
    "capture": "attnviz.api",
    "capture_lazy": "attnviz.api",
    "generate": "attnviz.api",
    "show": "attnviz.notebook.show",
    "explore": "attnviz.notebook.explore",
    "faithfulness": "attnviz.api",
    "show_faithfulness": "attnviz.notebook.faithfulness",
    "detachment": "attnviz.api",
}

__all__ = [
    "__version__",
    "AttentionCapture",
    "AttentionMap",
    "AttnvizError",
    "DeviceUnavailableError",
    "GenerationStep",
    "InputError",
    "ModelLoadError",
    "ResourceLimitError",
    "Token",
    "capture",
    "capture_lazy",
    "detachment",
    "explore",
    "faithfulness",
    "from_objects",
    "generate",
    "load_model",
    "show",
    "show_faithfulness",
]


def __getattr__(name: str):
    """`attnviz.capture` and the other everyday functions: imported from their module the first time they are read."""
    if name not in _EVERYDAY:
        raise AttributeError(f"module 'attnviz' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EVERYDAY[name]), name)
    globals()[name] = value  # the next read finds it directly
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EVERYDAY})
