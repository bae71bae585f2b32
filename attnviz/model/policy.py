"""What a deployment lets its users load: the server-mode allowlist and size limit.

Built from attnviz.settings (server_mode, allowed_models, allowed_dirs, max_model_mb: environment variables or
`.streamlit/secrets.toml`). Local use (server mode off) allows any folder or hub id; server mode allows only catalogue
models, allowlisted hub ids and folders inside allowlisted directories — after resolving `..` and symlinks, so
neither can escape.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from attnviz import settings
from attnviz.errors import ModelLoadError

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")


@dataclass(frozen=True)
class Policy:
    server_mode: bool = False
    allowed_models: tuple[str, ...] = ()
    allowed_dirs: tuple[str, ...] = ()  # resolved (realpath) folders
    max_model_mb: float = 0.0  # 0 = no limit

    @classmethod
    def from_settings(cls, values: settings.Settings | None = None) -> Policy:
        """The policy of `values` (default: the settings in force now)."""
        values = settings.current() if values is None else values
        return cls(
            server_mode=values.server_mode,
            allowed_models=values.allowed_models,
            allowed_dirs=tuple(os.path.realpath(folder) for folder in values.allowed_dirs),
            max_model_mb=values.max_model_mb,
        )

    def check_hub_id(self, model_id: str) -> None:
        if self.server_mode and model_id not in self.allowed_models:
            raise ModelLoadError("server_refuses_hub_id", model=model_id, variable=settings.variable("allowed_models"))

    def check_folder(self, folder: str, catalogued: bool = False) -> None:
        """Refuse a user-given folder outside the allowlist (resolved for `..` and symlinks) or over the size limit."""
        real = os.path.realpath(folder)
        if self.server_mode and not catalogued:
            inside = any(os.path.commonpath([real, allowed]) == allowed for allowed in self.allowed_dirs)
            if not inside:
                raise ModelLoadError("server_refuses_folder", folder=folder, variable=settings.variable("allowed_dirs"))
        if self.max_model_mb > 0:
            size_mb = sum(f.stat().st_size for f in Path(real).glob("*") if f.suffix in WEIGHT_SUFFIXES) / 1e6
            if size_mb > self.max_model_mb:
                raise ModelLoadError("model_over_size_limit", folder=folder, size=size_mb, limit=self.max_model_mb)
