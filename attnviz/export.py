"""Files out of attnviz: figures as PNG/SVG/PDF/HTML, captures as JSON/NPZ/CSV — every write atomic.

Figures
-------
`figure_bytes(fig, "png" | "svg" | "pdf" | "html")`, `export_figure(fig, path)`. Two engines draw PNG/SVG/PDF:
- "kaleido": plotly's own renderer in headless Chrome/Chromium — pixel for pixel what the app shows. Needs a
  browser (Debian: `apt install chromium`; or `plotly_get_chrome`; or BROWSER_PATH). Chinese glyphs come from the
  packaged Noto Sans SC through a fonts.conf that `attnviz.fonts` hands to Chromium.
- "static": `attnviz.figures.static`, matplotlib drawing the same figure (same tokens, values, colour scale and
  title) with the packaged Noto Sans SC. Needs nothing but pip packages; SVG text becomes outlines, PDF embeds glyphs.
"auto" (default, or $ATTNVIZ_EXPORT_ENGINE) uses kaleido for PNG and PDF where a browser is found, and static
when there is none or it fails — and always static for SVG: Chromium's SVG names its fonts instead of carrying them,
so Chinese would turn to boxes in a viewer without a CJK font, while static SVG holds the glyph outlines.
HTML is always plotly's page with plotly.js inlined: it opens offline, no CDN.

Captures (JSON schema "attnviz.capture", version 1)
--------------------------------------------------
::

    {
      "schema": "attnviz.capture", "version": 1,
      "model": str, "device": str, "source_text": str, "target_text": str | null,
      "meta": {...},                                  # JSON-safe copy of AttentionCapture.meta
      "maps": {
        "<kind>": {                                   # "self" | "encoder" | "decoder" | "cross"
          "kind": str, "causal": bool,
          "shape": [layers, heads, queries, keys],
          "layer_names": [str, ...],                  # module paths, one per layer
          "query_tokens": [{"text": str, "start": int, "end": int, "special": bool}, ...],
          "key_tokens":   [... same ...],             # start/end: character offsets, -1 for special tokens
          "weights": [[[[float]]]]                    # nested lists, layers × heads × queries × keys
        }, ...
      },
      "steps": null | [                               # generation only: one entry per generated token
        {"token": {...}, "self_weights": [[[float]]] (layers × heads × keys),
         "cross_weights": [[[float]]] | null (layers × heads × source keys)}, ...
      ]
    }

Weights are written as the float64 value of each float32, so loading gives back the identical float32 arrays.
NPZ holds the same: a "header" entry (this JSON without weights, as a string) plus float32 arrays
"maps/<kind>/weights", "steps/<i>/self_weights", "steps/<i>/cross_weights"; it loads without pickle.
CSV is long format, one row per weight: kind, layer, layer_name, head, query_index, query_token, key_index,
key_token, weight (for spreadsheets; it does not load back; a carriage return in a token is written as ␍).
"""

from __future__ import annotations

import atexit
import contextlib
import csv
import html
import io
import json
import os
import re
import shutil
import tempfile
import threading
import unicodedata
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np

from attnviz import fonts
from attnviz.errors import AttnvizError, InputError
from attnviz.types import AttentionCapture, AttentionMap, GenerationStep, Token

FIGURE_FORMATS = ("png", "svg", "pdf", "html")
DATA_FORMATS = ("json", "npz", "csv")
ENGINES = ("auto", "kaleido", "static")
ENGINE_ENV = "ATTNVIZ_EXPORT_ENGINE"
SCHEMA = "attnviz.capture"
SCHEMA_VERSION = 1
_SUFFIXES = {".htm": "html"}

# ----------------------------------------------------------------------------------------------------------------------
# Writing files


def format_of(path: str | os.PathLike, fmt: str | None, allowed: tuple[str, ...]) -> str:
    """The format to write: `fmt` if given, else the file suffix; an error naming the choices otherwise."""
    suffix = Path(path).suffix.lower()
    chosen = (fmt or _SUFFIXES.get(suffix, suffix.lstrip("."))).lower()
    if chosen not in allowed:
        where = f"format {fmt!r}" if fmt else f"the suffix of {str(path)!r}"
        raise InputError(f"Cannot tell what to write from {where}; use one of: {', '.join(allowed)}.")
    return chosen


_UNSAFE_IN_NAMES = re.compile(r'[\\/:*?"<>|]')  # path separators and what Windows refuses in a file name
_WINDOWS_DEVICES = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?", re.IGNORECASE)
MAX_NAME_BYTES = 120  # well under the 255 bytes of ext4/APFS/NTFS names, leaving room for a suffix


def safe_filename(text: str, suffix: str = "", *, default: str = "attnviz", max_bytes: int = MAX_NAME_BYTES) -> str:
    """A download or output file name made from any text: `safe_filename("早上好！/a\\x00", "png")` -> "早上好！_a.png".

    No path separators or characters Windows refuses (each becomes "_"), no control or format characters (NUL,
    newlines, bidi overrides and zero-width joiners are dropped), whitespace runs become one "_", no leading dots
    or dashes, no trailing dots or spaces, not a Windows device name, at most `max_bytes` UTF-8 bytes before the
    suffix (cut between characters). Letters of every script (CJK, Arabic, emoji) stay. `default` when nothing is
    left. `suffix`: "png" or ".png", cleaned the same way.
    """
    name = unicodedata.normalize("NFC", str(text))
    name = "".join(c for c in name if unicodedata.category(c)[0] != "C" or c in "\t\n\r")  # Cc Cf Cs Co Cn
    name = _UNSAFE_IN_NAMES.sub("_", name)
    name = re.sub(r"\s+", "_", name).lstrip(".-_").rstrip(". _")
    name = name[:max_bytes]  # a character is at least one byte; what is left is trimmed to the byte budget below
    while len(name.encode("utf-8")) > max_bytes:
        name = name[:-1]
    name = name.rstrip(". _") or default
    if _WINDOWS_DEVICES.fullmatch(name):
        name = f"_{name}"
    ending = safe_filename(suffix.lstrip("."), default="", max_bytes=16) if suffix else ""
    return f"{name}.{ending}" if ending else name


def write_atomic(path: str | os.PathLike, data: bytes | str, *, overwrite: bool = False) -> Path:
    """Write `data` to `path` through a temporary file in the same folder and os.replace: no half-written file.

    Refuses to replace an existing file unless `overwrite`. Missing parent folders are created.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{target} is a folder; give a file name.")
    if target.exists() and not overwrite:
        raise InputError(f"{target} already exists; choose another name or allow overwriting (--force).")
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o644)
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return target


# ----------------------------------------------------------------------------------------------------------------------
# Figures


def browser_path() -> str | None:
    """The Chrome/Chromium kaleido would use: $BROWSER_PATH, one downloaded by kaleido, or one on PATH."""
    if os.environ.get("BROWSER_PATH"):
        return os.environ["BROWSER_PATH"]
    try:
        from choreographer.browsers.chromium import Chromium

        found = Chromium.find_browser(skip_local=False)
        if found:
            return found
    except Exception:  # noqa: BLE001 - an internal API; fall back to a PATH search
        pass
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def resolve_engine(engine: str = "auto", fmt: str = "png") -> str:
    """ "kaleido" or "static" for a requested engine and format (see the module docstring for what "auto" picks)."""
    if engine not in ENGINES:
        raise InputError(f"Unknown export engine {engine!r}; use one of {', '.join(ENGINES)}.")
    if engine == "auto":
        engine = os.environ.get(ENGINE_ENV, "auto") or "auto"
        if engine not in ENGINES:
            raise InputError(f"{ENGINE_ENV}={engine!r} is not an engine; use one of {', '.join(ENGINES)}.")
    if engine == "auto":
        return "kaleido" if fmt != "svg" and browser_path() else "static"
    if engine == "kaleido" and not browser_path():
        raise AttnvizError(
            "The kaleido engine needs Chrome or Chromium (e.g. apt install chromium, or set BROWSER_PATH); "
            "engine='static' exports without a browser."
        )
    return engine


_kaleido_lock = threading.Lock()
_kaleido_running = False


def _stop_kaleido() -> None:
    import kaleido

    kaleido.stop_sync_server(silence_warnings=True)


def _kaleido_bytes(fig, fmt: str, width: int | None, height: int | None, scale: float) -> bytes:
    """Render with a kaleido server kept warm for the process (the first call starts Chromium: ~2 s)."""
    global _kaleido_running
    import kaleido

    with _kaleido_lock:
        first = not _kaleido_running
        if first:
            os.environ.update(fonts.chromium_environment())  # before Chromium starts: it reads fontconfig once
            os.environ.setdefault("BROWSER_PATH", browser_path() or "")
            kaleido.start_sync_server(silence_warnings=True, mathjax=False)  # MathJax would come from a CDN
            _kaleido_running = True
        opts = dict(format=fmt, width=width or fig.layout.width or 700, height=height or fig.layout.height or 500,
                    scale=scale)  # fmt: skip
        image = kaleido.calc_fig_sync(fig, opts=opts)
        if first:
            # Registered only now that Chromium's profile folder exists: atexit runs handlers last-in first-out,
            # so the browser stops before tempfile's finalizers try to delete the folder it is still writing.
            atexit.register(_stop_kaleido)
        return image


def figure_html(fig) -> str:
    """A standalone page for the figure with plotly.js inlined (~5 MB): opens offline, loads nothing."""
    page = fig.to_html(include_plotlyjs=True, full_html=True, config={"displaylogo": False, "responsive": True})
    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else "attnviz"
    heading = html.escape(html.unescape(re.sub(r"<[^<>]+>", " ", title)).strip())  # plain text for the tab
    return page.replace("<head>", f"<head>\n    <title>{heading}</title>", 1)


def figure_bytes(
    fig,
    fmt: str = "png",
    *,
    engine: str = "auto",
    width: int | None = None,
    height: int | None = None,
    scale: float = 1.0,
) -> bytes:
    """The figure as PNG, SVG, PDF or HTML bytes. `width`/`height` in px default to the figure's; `scale` multiplies
    PNG resolution. See the module docstring for the engines."""
    fmt = fmt.lower()
    if fmt not in FIGURE_FORMATS:
        raise InputError(f"Cannot export a figure as {fmt!r}; use one of {', '.join(FIGURE_FORMATS)}.")
    if fmt == "html":
        return figure_html(fig).encode("utf-8")
    if scale <= 0:
        raise InputError(f"scale must be positive; got {scale}.")
    requested = engine
    engine = resolve_engine(engine, fmt)
    if engine == "kaleido":
        try:
            return _kaleido_bytes(fig, fmt, width, height, scale)
        except Exception as error:  # noqa: BLE001 - any browser failure: say so, and draw without it when allowed
            if requested == "kaleido" or os.environ.get(ENGINE_ENV) == "kaleido":
                raise AttnvizError(f"Chromium could not render the figure ({error}); try engine='static'.") from error
            warnings.warn(f"kaleido failed ({error}); exporting with the static engine instead.", stacklevel=2)
    from attnviz.figures import static

    return static.render(fig, fmt, width=width, height=height, scale=scale)


def export_figure(
    fig,
    path: str | os.PathLike,
    fmt: str | None = None,
    *,
    engine: str = "auto",
    overwrite: bool = False,
    width: int | None = None,
    height: int | None = None,
    scale: float = 1.0,
) -> Path:
    """Write the figure to `path` (format from `fmt` or the suffix: png, svg, pdf, html), atomically."""
    fmt = format_of(path, fmt, FIGURE_FORMATS)
    if Path(path).exists() and not overwrite:  # fail before spending time rendering
        raise InputError(f"{path} already exists; choose another name or allow overwriting (--force).")
    data = figure_bytes(fig, fmt, engine=engine, width=width, height=height, scale=scale)
    return write_atomic(path, data, overwrite=overwrite)


# ----------------------------------------------------------------------------------------------------------------------
# Captures: JSON, NPZ, CSV


def as_capture(data: AttentionCapture | AttentionMap, model: str = "", text: str = "") -> AttentionCapture:
    """A capture as it is, or a single map wrapped in one (keyed by its kind)."""
    if isinstance(data, AttentionCapture):
        return data
    if isinstance(data, AttentionMap):
        return AttentionCapture(model=model, device="", maps={data.kind: data}, source_text=text)
    raise InputError(f"Expected an AttentionCapture or AttentionMap to export; got {type(data).__name__}.")


def _token_dict(token: Token) -> dict:
    return {"text": token.text, "start": token.start, "end": token.end, "special": token.special}


def _token_from(data: dict) -> Token:
    text, start, end, special = data["text"], data["start"], data["end"], data.get("special", False)
    if not isinstance(text, str) or not all(_is_int(v) for v in (start, end)) or not isinstance(special, bool):
        raise InputError(
            f"A token must be {{'text': str, 'start': int, 'end': int, 'special': bool}}; got {str(data)[:80]}."
        )
    return Token(text, start, end, special)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_safe(value):
    """Meta values as JSON: numpy arrays/scalars to lists/numbers, tuples to lists, anything else to its str."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _header(capture: AttentionCapture) -> dict:
    """Everything but the weight arrays."""
    return {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "model": capture.model,
        "device": capture.device,
        "source_text": capture.source_text,
        "target_text": capture.target_text,
        "meta": _json_safe(capture.meta),
        "maps": {
            kind: {
                "kind": amap.kind,
                "causal": amap.causal,
                "shape": list(amap.weights.shape),
                "layer_names": list(amap.layer_names),
                "query_tokens": [_token_dict(t) for t in amap.query_tokens],
                "key_tokens": [_token_dict(t) for t in amap.key_tokens],
            }
            for kind, amap in capture.maps.items()
        },
        "steps": None
        if capture.steps is None
        else [
            {"token": _token_dict(step.token), "has_cross": step.cross_weights is not None} for step in capture.steps
        ],
    }


def capture_to_dict(capture: AttentionCapture | AttentionMap) -> dict:
    """The JSON-schema dict of a capture (see the module docstring); a bare map is wrapped first."""
    capture = as_capture(capture)
    data = _header(capture)
    for kind, amap in capture.maps.items():
        data["maps"][kind]["weights"] = amap.weights.tolist()
    if capture.steps is not None:
        data["steps"] = [
            {
                "token": _token_dict(step.token),
                "self_weights": np.asarray(step.self_weights, dtype=np.float32).tolist(),
                "cross_weights": None
                if step.cross_weights is None
                else np.asarray(step.cross_weights, dtype=np.float32).tolist(),
            }
            for step in capture.steps
        ]
    return data


_DAMAGED = (
    KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError, RecursionError, EOFError, OSError,
    zipfile.BadZipFile, zlib.error,
)  # fmt: skip


@contextlib.contextmanager
def _reading(what: str):
    """Whatever is malformed inside a file being read becomes one InputError naming it, never a raw KeyError."""
    try:
        yield
    except InputError:
        raise
    except _DAMAGED as error:
        detail = f"{type(error).__name__}: {error}"[:160]
        raise InputError(f"{what} is incomplete or damaged ({detail}); export it again with attnviz.") from None


def _check_header(data) -> None:
    """The parts every capture file has, checked before any array is read."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise InputError(f'This is not an attnviz capture (no "schema": "{SCHEMA}"); export it with attnviz first.')
    version = data.get("version")
    if not _is_int(version) or version != SCHEMA_VERSION:
        raise InputError(f"This capture uses schema version {version!r}; this attnviz reads version {SCHEMA_VERSION}.")
    maps = data.get("maps")
    if not isinstance(maps, dict) or not maps or not all(isinstance(entry, dict) for entry in maps.values()):
        raise InputError('The capture has no "maps" (an object of attention maps by kind); export it again.')
    if data.get("steps") is not None and not isinstance(data["steps"], list):
        raise InputError('The capture\'s "steps" must be a list (one entry per generated token) or null.')
    if data.get("meta") is not None and not isinstance(data["meta"], dict):
        raise InputError('The capture\'s "meta" must be an object.')
    if data.get("target_text") is not None and not isinstance(data["target_text"], str):
        raise InputError('The capture\'s "target_text" must be a string or null.')


def _weights(values, where: str, ndim: int) -> np.ndarray:
    """Stored weights as float32, refused when they are not `ndim`-dimensional, finite and non-negative."""
    with np.errstate(over="ignore"):  # a value beyond float32 becomes inf, refused just below
        array = np.asarray(values, dtype=np.float32)
    if array.ndim != ndim:
        raise InputError(f"{where} must have {ndim} dimensions; it has shape {array.shape}.")
    if not np.isfinite(array).all() or (array < 0).any():
        raise InputError(f"{where} hold NaN, infinite or negative values; attention weights are finite and ≥ 0.")
    return array


def _build(data: dict, map_weights, step_weights) -> AttentionCapture:
    """The capture a checked header describes, its arrays read through `map_weights(kind, entry)` and
    `step_weights(index, entry) -> (self, cross | None)` (nested lists from JSON, arrays from NPZ)."""
    maps = {}
    for kind, entry in data["maps"].items():
        array = _weights(map_weights(kind, entry), f"The {kind!r} weights", 4)
        if list(array.shape) != list(entry["shape"]):
            raise InputError(f"The {kind!r} weights have shape {array.shape}, but the header says {entry['shape']}.")
        names = entry["layer_names"]
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise InputError(f"The {kind!r} map's layer_names must be a list of strings.")
        maps[kind] = AttentionMap(
            kind=entry["kind"],
            weights=array,
            query_tokens=[_token_from(t) for t in entry["query_tokens"]],
            key_tokens=[_token_from(t) for t in entry["key_tokens"]],
            layer_names=list(names),
            causal=bool(entry.get("causal", False)),
        )
    generation = None
    if data.get("steps") is not None:
        generation = []
        for index, entry in enumerate(data["steps"]):
            self_w, cross_w = step_weights(index, entry)
            where = f"Step {index}'s"
            generation.append(
                GenerationStep(
                    _token_from(entry["token"]),
                    _weights(self_w, f"{where} self-attention weights", 3),
                    None if cross_w is None else _weights(cross_w, f"{where} cross-attention weights", 3),
                )
            )
    return AttentionCapture(
        model=str(data.get("model", "")),
        device=str(data.get("device", "")),
        maps=maps,
        source_text=str(data.get("source_text", "")),
        target_text=data.get("target_text"),
        steps=generation,
        meta=dict(data.get("meta") or {}),
    )


def capture_from_dict(data: dict) -> AttentionCapture:
    """The capture a `capture_to_dict` dict (or a loaded JSON file) describes; structure, shapes and values are
    checked, and anything malformed is an InputError."""
    with _reading("The capture"):
        _check_header(data)
        return _build(
            data,
            lambda kind, entry: entry["weights"],
            lambda index, entry: (entry["self_weights"], entry.get("cross_weights")),
        )


def capture_to_json(capture: AttentionCapture | AttentionMap) -> str:
    return json.dumps(capture_to_dict(capture), ensure_ascii=False, separators=(",", ":"))


def capture_to_npz(capture: AttentionCapture | AttentionMap) -> bytes:
    capture = as_capture(capture)
    arrays = {"header": np.array(json.dumps(_header(capture), ensure_ascii=False))}
    for kind, amap in capture.maps.items():
        arrays[f"maps/{kind}/weights"] = amap.weights
    for index, step in enumerate(capture.steps or []):
        arrays[f"steps/{index}/self_weights"] = np.asarray(step.self_weights, dtype=np.float32)
        if step.cross_weights is not None:
            arrays[f"steps/{index}/cross_weights"] = np.asarray(step.cross_weights, dtype=np.float32)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def capture_from_npz(source: bytes | str | os.PathLike) -> AttentionCapture:
    """The capture in an NPZ written by `capture_to_npz` (bytes or a path); malformed archives are InputErrors."""
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    with _reading("The NPZ capture"):
        try:
            archive = np.load(stream, allow_pickle=False)
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
            raise InputError(f"This is not an NPZ archive ({error}); export the capture again as .npz.") from None
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise InputError("This is a single .npy array, not an attnviz NPZ capture; export the capture as .npz.")
        with archive:
            data = json.loads(str(archive["header"]))
            _check_header(data)
            return _build(
                data,
                lambda kind, entry: archive[f"maps/{kind}/weights"],
                lambda index, entry: (
                    archive[f"steps/{index}/self_weights"],
                    archive[f"steps/{index}/cross_weights"] if entry.get("has_cross") else None,
                ),
            )


CSV_COLUMNS = ("kind", "layer", "layer_name", "head", "query_index", "query_token", "key_index", "key_token", "weight")


def _csv_cell(text: str) -> str:
    """Python's csv quotes a cell holding "\n" but not a bare "\r", which readers take as a row end: show it as ␍."""
    return text.replace("\r", "\u240d")


def capture_to_csv(capture: AttentionCapture | AttentionMap) -> str:
    """Long-format CSV, one row per weight of every map (columns: `CSV_COLUMNS`)."""
    capture = as_capture(capture)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for kind, amap in capture.maps.items():
        queries = [_csv_cell(t.text) for t in amap.query_tokens]
        keys = [_csv_cell(t.text) for t in amap.key_tokens]
        for layer, name in enumerate(map(_csv_cell, amap.layer_names)):
            for head in range(amap.num_heads):
                block = amap.weights[layer, head]  # (queries, keys)
                writer.writerows(
                    (kind, layer, name, head, q, queries[q], k, keys[k], repr(float(block[q, k])))
                    for q in range(block.shape[0])
                    for k in range(block.shape[1])
                )
    return buffer.getvalue()


def capture_bytes(capture: AttentionCapture | AttentionMap, fmt: str) -> bytes:
    """A capture (or one map) as JSON, NPZ or CSV bytes."""
    fmt = fmt.lower()
    if fmt == "json":
        try:
            return capture_to_json(capture).encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates in a text: \u-escaped, which JSON reads back exactly
            return json.dumps(capture_to_dict(capture), separators=(",", ":")).encode("ascii")
    if fmt == "npz":
        return capture_to_npz(capture)
    if fmt == "csv":  # for reading, not loading back: a lone surrogate is written as its \u escape
        return capture_to_csv(capture).encode("utf-8", "backslashreplace")
    raise InputError(f"Cannot export attention data as {fmt!r}; use one of {', '.join(DATA_FORMATS)}.")


def save_capture(
    capture: AttentionCapture | AttentionMap,
    path: str | os.PathLike,
    fmt: str | None = None,
    *,
    overwrite: bool = False,
) -> Path:
    """Write a capture (or one map) as JSON, NPZ or CSV (format from `fmt` or the suffix), atomically."""
    fmt = format_of(path, fmt, DATA_FORMATS)
    return write_atomic(path, capture_bytes(capture, fmt), overwrite=overwrite)


def load_capture(path: str | os.PathLike) -> AttentionCapture:
    """Read a capture written by `save_capture` as JSON or NPZ (by suffix)."""
    source = Path(path)
    if not source.is_file():
        raise InputError(f"{source} does not exist or is not a file.")
    fmt = format_of(source, None, ("json", "npz"))
    if fmt == "npz":
        return capture_from_npz(source)
    try:
        data = json.loads(source.read_text(encoding="utf-8-sig"))  # -sig: a byte-order mark is not an error
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"{source} is not valid JSON ({error}).") from None
    except RecursionError:
        raise InputError(f"{source} nests too deeply to be an attnviz capture.") from None
    return capture_from_dict(data)
