"""What a deployment lets its users load: the server-mode allowlist and size limit.

Settings come from environment variables, or from the `[attnviz]` table of `.streamlit/secrets.toml` (the environment
wins). Local use (server mode off) allows any folder or hub id; server mode allows only catalogue models, allowlisted hub
ids and folders inside allowlisted directories — after resolving `..` and symlinks, so neither can escape.

| setting (env / secrets key)                     | meaning                                                    |
|-------------------------------------------------|------------------------------------------------------------|
| ATTNVIZ_SERVER_MODE / server_mode               | "1" turns the allowlist on                                 |
| ATTNVIZ_ALLOWED_MODELS / allowed_models         | hub ids users may load (comma-separated / list)            |
| ATTNVIZ_ALLOWED_DIRS / allowed_dirs             | folders whose model subfolders users may load (os.pathsep / list) |
| ATTNVIZ_MAX_MODEL_MB / max_model_mb             | largest weights (MB) a user may load; 0 = no limit         |
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from attnviz.errors import ModelLoadError

SECRETS_FILE = Path(".streamlit") / "secrets.toml"
_TRUE = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Policy:
    server_mode: bool = False
    allowed_models: tuple[str, ...] = ()
    allowed_dirs: tuple[str, ...] = ()
    max_model_mb: float = 0.0

    @classmethod
    def from_settings(cls, settings: dict) -> Policy:
        def listed(value, separator):
            if isinstance(value, str):
                value = value.split(separator)
            return tuple(str(v).strip() for v in value or () if str(v).strip())

        try:
            max_mb = float(settings.get("max_model_mb", 0) or 0)
        except (TypeError, ValueError):
            raise ModelLoadError(f"max_model_mb must be a number of megabytes, not {settings.get('max_model_mb')!r}.")
        return cls(
            server_mode=str(settings.get("server_mode", "")).strip().lower() in _TRUE,
            allowed_models=listed(settings.get("allowed_models"), ","),
            allowed_dirs=tuple(os.path.realpath(d) for d in listed(settings.get("allowed_dirs"), os.pathsep)),
            max_model_mb=max_mb,
        )

    @classmethod
    def from_environment(cls, secrets_file: Path | None = SECRETS_FILE) -> Policy:
        settings: dict = {}
        if secrets_file is not None and Path(secrets_file).is_file():
            import tomllib

            with open(secrets_file, "rb") as handle:
                settings.update(tomllib.load(handle).get("attnviz", {}))
        for key in ("server_mode", "allowed_models", "allowed_dirs", "max_model_mb"):
            value = os.environ.get(f"ATTNVIZ_{key.upper()}")
            if value is not None:
                settings[key] = value
        return cls.from_settings(settings)

    def check_hub_id(self, model_id: str) -> None:
        if self.server_mode and model_id not in self.allowed_models:
            raise ModelLoadError(
                f"This server does not allow loading {model_id!r}; ask its operator to add it to ATTNVIZ_ALLOWED_MODELS."
            )

    def check_folder(self, folder: str, catalogued: bool = False) -> None:
        """Refuse a user-given folder outside the allowlist (resolved for `..` and symlinks) or over the size limit."""
        real = os.path.realpath(folder)
        if self.server_mode and not catalogued:
            inside = any(os.path.commonpath([real, allowed]) == allowed for allowed in self.allowed_dirs)
            if not inside:
                raise ModelLoadError(
                    f"This server does not allow loading models from {folder!r}; only catalogue models and folders "
                    "under ATTNVIZ_ALLOWED_DIRS are allowed."
                )
        if self.max_model_mb > 0:
            size_mb = sum(f.stat().st_size for f in Path(real).glob("*") if f.suffix in (
                ".safetensors", ".bin", ".pt", ".pth")) / 1e6
            if size_mb > self.max_model_mb:
                raise ModelLoadError(
                    f"{folder!r} has {size_mb:.0f} MB of weights, above this server's limit of {self.max_model_mb:.0f} MB."
                )
