"""Every setting attnviz reads, in one frozen object: the ATTNVIZ_* environment variables and the `[attnviz]` table of
`.streamlit/secrets.toml` (relative to the working directory, as Streamlit reads it).

The environment wins over secrets.toml, and an empty variable counts as unset. Each value goes through the one parser
of its type, so every on/off setting understands the same words; a value that parser cannot use is a SettingError
naming the variable (or the secrets key and file) and what it accepts. `current()` is cheap enough to call wherever a
value is needed: it parses again only when one of the variables or the secrets file has changed.

| variable                    | meaning                                | accepts                       | default      |
|-----------------------------|----------------------------------------|-------------------------------|--------------|
| ATTNVIZ_DEVICE              | device when `auto` is asked for        | auto/npu[:N]/cuda[:N]/mps/cpu | auto         |
| ATTNVIZ_MEMORY_BUDGET_MB    | largest estimated capture memory (MiB) | a number > 0                  | 4096         |
| ATTNVIZ_MAX_CHARS           | longest text accepted (characters)     | a whole number ≥ 1            | 20000        |
| ATTNVIZ_LAZY_FROM_TOKENS    | app analyses on demand from (tokens)   | a whole number ≥ 1            | 1024         |
| ATTNVIZ_TORCH_THREADS       | torch threads in the app               | a whole number ≥ 1            | 1            |
| ATTNVIZ_ALLOW_PICKLE        | accept .bin/.pt weights (can run code) | on/off                        | off          |
| ATTNVIZ_SERVER_MODE         | only catalogue and allowlisted models  | on/off                        | off          |
| ATTNVIZ_ALLOWED_MODELS      | hub ids users may load (server mode)   | ids, comma-separated          | none         |
| ATTNVIZ_ALLOWED_DIRS        | folders to load from (server mode)     | paths, os.pathsep-separated   | none         |
| ATTNVIZ_MAX_MODEL_MB        | largest weights a user may load (MB)   | a number ≥ 0; 0: no limit     | 0            |
| ATTNVIZ_ALLOW_CUSTOM_MODELS | sidebar offers any hub id or folder    | on/off                        | on           |
| ATTNVIZ_EXPORT_ENGINE       | export engine when `auto` is asked for | auto, kaleido, static         | auto         |
| ATTNVIZ_CJK_FONT            | Chinese font for static exports        | a .otf/.ttf path              | Noto Sans SC |

The secrets key is the variable's name without ATTNVIZ_, in lower case (`server_mode = true`); lists may be TOML
lists there. The default CJK font is Noto Sans SC from the pylopdf-fonts-zh-cn package. On/off settings take
1, true, yes, on and 0, false, no, off (any case; TOML's true and false in secrets.toml).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache, partial
from pathlib import Path

import tomllib

from attnviz.errors import Phrase, SettingError

PREFIX = "ATTNVIZ_"
SECRETS_FILE = Path(".streamlit") / "secrets.toml"
SECRETS_TABLE = "attnviz"
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
DEVICE_SPEC = re.compile(r"^(auto|npu|cuda|mps|cpu)(?::(\d+))?$")  # "npu:1": group 1 the kind, group 2 the index
EXPORT_ENGINES = ("auto", "kaleido", "static")


class _Rejected(ValueError):
    """A value its parser cannot use; the reader turns it into a SettingError that says where the value came from."""


# ----------------------------------------------------------------------------------------------------------------------
# One parser per type. Each takes a string (from the environment) or a TOML value (from secrets.toml).


def flag(value) -> bool:
    """On or off: TRUE_WORDS or FALSE_WORDS in any case, or TOML's true and false."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, str | int) else None
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise _Rejected(value)


def number(value, *, zero_allowed: bool = False) -> float:
    """A finite number above zero (or at least zero)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _Rejected(value)
    try:
        parsed = float(value)
    except ValueError:
        raise _Rejected(value) from None
    if not math.isfinite(parsed) or parsed < 0 or (parsed == 0 and not zero_allowed):
        raise _Rejected(value)
    return parsed


def whole_number(value) -> int:
    """A whole number, 1 or more."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _Rejected(value)
    try:
        parsed = int(value)
    except ValueError:
        raise _Rejected(value) from None
    if parsed < 1:
        raise _Rejected(value)
    return parsed


def listed(value, *, separator: str) -> tuple[str, ...]:
    """Items separated by `separator` (or a TOML list of strings), blanks dropped."""
    if isinstance(value, str):
        value = value.split(separator)
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
        raise _Rejected(value)
    return tuple(item.strip() for item in value if item.strip())


def choice(value, *, options: tuple[str, ...]) -> str:
    """One of `options`, in any case."""
    word = value.strip().lower() if isinstance(value, str) else None
    if word not in options:
        raise _Rejected(value)
    return word


def device_spec(value) -> str:
    """auto, npu, npu:N, cuda, cuda:N, mps or cpu (the syntax attnviz.model.devices resolves)."""
    word = value.strip().lower() if isinstance(value, str) else ""
    if not DEVICE_SPEC.match(word):
        raise _Rejected(value)
    return word


def path(value) -> Path:
    """A file path; `~` is the home folder. Whether the file is there is checked where it is used."""
    if not isinstance(value, str) or not value.strip():
        raise _Rejected(value)
    return Path(value.strip()).expanduser()


# ----------------------------------------------------------------------------------------------------------------------
# The settings


def _setting(default, parse: Callable, accepts: Phrase):
    return field(default=default, metadata={"parse": parse, "accepts": accepts})


_FLAG = Phrase("setting_accepts.flag")


@dataclass(frozen=True)
class Settings:
    """What this deployment is set to; the defaults are the values used when nothing is set."""

    device: str = _setting("auto", device_spec, Phrase("setting_accepts.device"))
    memory_budget_mb: float = _setting(4096.0, number, Phrase("setting_accepts.memory_budget_mb"))
    max_chars: int = _setting(20_000, whole_number, Phrase("setting_accepts.max_chars"))
    lazy_from_tokens: int = _setting(1024, whole_number, Phrase("setting_accepts.lazy_from_tokens"))
    torch_threads: int = _setting(1, whole_number, Phrase("setting_accepts.torch_threads"))
    allow_pickle: bool = _setting(False, flag, _FLAG)
    server_mode: bool = _setting(False, flag, _FLAG)
    allowed_models: tuple[str, ...] = _setting(
        (), partial(listed, separator=","), Phrase("setting_accepts.allowed_models")
    )
    allowed_dirs: tuple[str, ...] = _setting(
        (), partial(listed, separator=os.pathsep), Phrase("setting_accepts.allowed_dirs", separator=os.pathsep)
    )
    max_model_mb: float = _setting(0.0, partial(number, zero_allowed=True), Phrase("setting_accepts.max_model_mb"))
    allow_custom_models: bool = _setting(True, flag, _FLAG)
    export_engine: str = _setting(
        "auto", partial(choice, options=EXPORT_ENGINES), Phrase("setting_accepts.export_engine")
    )
    cjk_font: Path | None = _setting(None, path, Phrase("setting_accepts.cjk_font"))


NAMES = tuple(spec.name for spec in fields(Settings))


def variable(name: str) -> str:
    """The environment variable of the setting `name`: "memory_budget_mb" → "ATTNVIZ_MEMORY_BUDGET_MB"."""
    return PREFIX + name.upper()


VARIABLES = tuple(variable(name) for name in NAMES)


def read(environ: Mapping[str, str] | None = None, secrets_file: Path | None = SECRETS_FILE) -> Settings:
    """Parse the settings now from `environ` (default: os.environ) and `secrets_file` (None: no secrets file)."""
    environ = os.environ if environ is None else environ
    secrets = _secrets_table(secrets_file)
    return Settings(**{spec.name: _parsed(spec, environ, secrets, secrets_file) for spec in fields(Settings)})


def _parsed(spec, environ: Mapping[str, str], secrets: dict, secrets_file: Path | None):
    """One setting: its variable if set (not empty), else its secrets key if there, else its default."""
    parse, accepts = spec.metadata["parse"], spec.metadata["accepts"]
    raw = environ.get(variable(spec.name)) or ""
    if raw.strip():
        try:
            return parse(raw)
        except _Rejected:
            raise SettingError(
                "setting_in_environment", variable=variable(spec.name), value=raw, accepts=accepts
            ) from None
    if spec.name not in secrets:
        return spec.default
    try:
        return parse(secrets[spec.name])
    except _Rejected:
        raise SettingError(
            "setting_in_secrets", key=spec.name, value=secrets[spec.name], file=str(secrets_file), accepts=accepts
        ) from None


def current(environ: Mapping[str, str] | None = None, secrets_file: Path | None = SECRETS_FILE) -> Settings:
    """The settings as they are now; parsed again only when a variable or the secrets file (its mtime) has changed."""
    environ = os.environ if environ is None else environ
    snapshot = tuple((name, value) for name in VARIABLES if (value := environ.get(name)) is not None)
    return _cached(snapshot, secrets_file, _stamp(secrets_file))


@lru_cache(maxsize=16)
def _cached(snapshot: tuple[tuple[str, str], ...], secrets_file: Path | None, stamp) -> Settings:
    return read(dict(snapshot), secrets_file)


def _stamp(secrets_file: Path | None) -> tuple[int, int] | None:
    try:
        status = os.stat(secrets_file) if secrets_file is not None else None
    except OSError:  # no secrets file: the usual case
        return None
    return (status.st_mtime_ns, status.st_size) if status else None


def _secrets_table(secrets_file: Path | None) -> dict:
    """The `[attnviz]` table of the secrets file ({} when there is no file or no table)."""
    if secrets_file is None or not Path(secrets_file).is_file():
        return {}
    try:
        with open(secrets_file, "rb") as handle:
            table = tomllib.load(handle).get(SECRETS_TABLE, {})
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SettingError("secrets_unreadable", file=str(secrets_file), detail=str(error)) from error
    if not isinstance(table, dict):
        raise SettingError("secrets_not_a_table", file=str(secrets_file), table=SECRETS_TABLE)
    unknown = sorted(set(table) - set(NAMES))
    if unknown:  # a misspelt server_mode must not silently leave a server open
        raise SettingError("secrets_unknown_key", file=str(secrets_file), key=unknown[0], known=", ".join(NAMES))
    return table
