"""How large an exported figure is: its width and height in plotly pixels, how many PNG pixels each becomes, and the
named print presets.

A plotly pixel is a CSS pixel, 1/96 inch (as in a browser, and as both engines write PDF pages), so fonts keep their
printed size: a 12 px label prints at 9 pt. `scale` multiplies PNG pixels only; a PDF or SVG is vector at any size.
A print preset fixes the printed width and resolution — `"single-column"` is 3.5 in (336 px) at 300 dpi, a PNG 1050
pixels wide — and keeps the figure's proportions unless a height is given. A figure exported narrower than it
was drawn is laid out again for that width (`attnviz.figures.layout.fit_to_width`): an alignment's labels planned
for it (its height then what they need), a title too wide for it broken into lines (its height grown by them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from attnviz.errors import InputError

CSS_DPI = 96.0
MIN_SIDE, MAX_SIDE = 100, 5000  # plotly pixels; below 100 nothing but the margins is left to draw in
MIN_SCALE, MAX_SCALE = 1.0, 4.0
MIN_DPI, MAX_DPI = CSS_DPI * MIN_SCALE, CSS_DPI * MAX_SCALE
MAX_PIXELS = 60_000_000  # PNG pixels (width × height after scaling): ~240 MB of RGBA while it is drawn


@dataclass(frozen=True)
class PrintPreset:
    """A printed width and resolution, e.g. one column of a two-column paper."""

    name: str
    width_in: float
    dpi: float
    description: str

    @property
    def width_px(self) -> int:
        return round(self.width_in * CSS_DPI)


PRESETS = {
    preset.name: preset
    for preset in (
        PrintPreset("single-column", 3.5, 300, "one column of a two-column paper (ACL, IEEE, NeurIPS: 3.25–3.5 in)"),
        PrintPreset("double-column", 7.0, 300, "the whole text width of a two-column paper (6.3–7.2 in)"),
        PrintPreset("slide", 13.333, 150, "a full 16:9 slide (13.33 in wide)"),
    )
}


@dataclass(frozen=True)
class ExportSize:
    """The size a figure is exported at: `width`/`height` in plotly pixels (None: the figure's own) and `scale`, PNG
    pixels per plotly pixel. Checked where it is made; `png_dpi` is what the PNG's pHYs chunk records."""

    width: int | None = None
    height: int | None = None
    scale: float = 1.0

    def __post_init__(self) -> None:
        if not _is_side(self.width):
            raise InputError("export_width", value=self.width, low=MIN_SIDE, high=MAX_SIDE)
        if not _is_side(self.height):
            raise InputError("export_height", value=self.height, low=MIN_SIDE, high=MAX_SIDE)
        if not _is_number(self.scale) or not MIN_SCALE <= self.scale <= MAX_SCALE:
            raise InputError("export_scale", value=self.scale, low=f"{MIN_SCALE:g}", high=f"{MAX_SCALE:g}")
        object.__setattr__(self, "width", None if self.width is None else int(self.width))
        object.__setattr__(self, "height", None if self.height is None else int(self.height))
        object.__setattr__(self, "scale", float(self.scale))

    @property
    def png_dpi(self) -> float:
        return CSS_DPI * self.scale

    def of(self, fig) -> tuple[int, int]:
        """The width and height (plotly px) `fig` is drawn at: these, or the figure's own where None (plotly's
        700 × 500 when it has none either); an InputError when the PNG would have more than MAX_PIXELS pixels."""
        width = int(self.width or fig.layout.width or 700)
        height = int(self.height or fig.layout.height or 500)
        pixels = math.ceil(width * self.scale) * math.ceil(height * self.scale)
        if pixels > MAX_PIXELS:
            raise InputError("export_pixels", width=width, height=height, scale=self.scale, limit=MAX_PIXELS)
        return width, height


def _is_side(value) -> bool:
    """None (the figure's own) or a whole number of pixels from MIN_SIDE to MAX_SIDE."""
    return value is None or (_is_number(value) and value == int(value) and MIN_SIDE <= value <= MAX_SIDE)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def resolve_size(
    fig,
    *,
    preset: str | None = None,
    width: int | None = None,
    height: int | None = None,
    scale: float | None = None,
    dpi: float | None = None,
) -> ExportSize:
    """The checked size to export `fig` at, from any of: a named `preset` (see `PRESETS`), `width`/`height` (plotly
    px), and `scale` (1–4) or `dpi` (96–384) for PNG — never both. A preset's width may not be overridden; its dpi may.
    Every bad value is an InputError that says what is accepted."""
    if scale is not None and dpi is not None:
        raise InputError("export_scale_and_dpi", scale=scale, dpi=dpi)
    if dpi is not None:
        if not _is_number(dpi) or not MIN_DPI <= dpi <= MAX_DPI:
            raise InputError("export_dpi", value=dpi, low=int(MIN_DPI), high=int(MAX_DPI))
        scale = dpi / CSS_DPI
    if preset is None:
        size = ExportSize(width, height, 1.0 if scale is None else scale)
    elif preset not in PRESETS:
        raise InputError("export_preset", value=preset, choices=", ".join(PRESETS))
    elif width is not None:
        raise InputError("export_preset_width", preset=preset, width=PRESETS[preset].width_px)
    else:
        chosen = PRESETS[preset]
        if height is None:  # the figure's proportions at the preset's width
            own_width, own_height = ExportSize().of(fig)
            height = min(MAX_SIDE, max(MIN_SIDE, round(chosen.width_px * own_height / own_width)))
        size = ExportSize(chosen.width_px, height, chosen.dpi / CSS_DPI if scale is None else scale)
    size.of(fig)  # the pixel budget, checked before anything is drawn
    return size
