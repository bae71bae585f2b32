"""attnviz: capture and show a Transformer's attention exactly — self-attention and cross-attention."""

import os

# torch_npu installed without Ascend's CANN breaks `import torch` through the device-backend autoload; the
# guarded import in attnviz.devices loads it instead. This must run before torch is first imported.
os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")

from attnviz.errors import (  # noqa: E402
    AttnvizError,
    DeviceUnavailableError,
    InputError,
    ModelLoadError,
    ResourceLimitError,
)
from attnviz.types import AttentionCapture, AttentionMap, GenerationStep, Token  # noqa: E402

__all__ = [
    "AttentionCapture",
    "AttentionMap",
    "AttnvizError",
    "DeviceUnavailableError",
    "GenerationStep",
    "InputError",
    "ModelLoadError",
    "ResourceLimitError",
    "Token",
]
__version__ = "0.1.0"
