"""Every exported heatmap carries its scale: the colour bar's gradient is found in the file's pixels, beside the plot
where the layout puts it (under it in a paper's column, right of it otherwise), for every print preset and every
format each engine writes. PNG is read as it is; PDF is rasterised by PDFium; SVG by Chromium."""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pytest
from PIL import Image
from plotly.colors import sample_colorscale, unlabel_rgb

from attnviz import export
from attnviz.figures.heatmap import heatmap
from attnviz.figures.layout import PRINT_WIDTH_PX
from tests.support import browser
from tests.support.maps import random_map, tokens_from

PRESETS = (None, "single-column", "double-column", "slide")
WORDS = "the committee announced comprehensive regulations yesterday regarding environmental protection".split()
SCALE_STEPS = 256
JITTER = 12  # scale steps a pixel's place may fall back by along a bar (colours are quantised to 5 bits a channel)
ON_SCALE = 14.0  # RGB distance within which a pixel is a colour of the scale (anti-aliasing and rounding aside)


def _figure():
    queries, keys = tokens_from(WORDS[:5]), tokens_from(WORDS)
    return heatmap(random_map(queries, keys, kind="cross", seed=3))  # Viridis, the default colour scale


def _scale_lookup() -> np.ndarray:
    """For every colour quantised to 5 bits a channel, (index of the nearest of the scale's SCALE_STEPS colours,
    its distance): a pixel's place on the colour scale without searching the scale per pixel."""
    scale = np.array([unlabel_rgb(c) for c in sample_colorscale("Viridis", np.linspace(0, 1, SCALE_STEPS))], float)
    levels = np.arange(32) * 8 + 4.0
    grid = np.stack(np.meshgrid(levels, levels, levels, indexing="ij"), -1).reshape(-1, 1, 3)
    distance = np.linalg.norm(grid - scale[None], axis=-1)  # (32768, SCALE_STEPS)
    return np.stack([distance.argmin(1), distance.min(1)], -1)


LOOKUP = _scale_lookup()


def _gradient_runs(places: np.ndarray, on_scale: np.ndarray) -> list[tuple[int, int, int]]:
    """(line, start, stop) of every run along a line of `places` that climbs the whole colour scale smoothly: on the
    scale throughout, never stepping back (beyond a quantised colour's jitter), rising steadily, from its bottom tenth to its top tenth, through many distinct colours (a
    heatmap's cells give a few flat steps, never this)."""
    runs = []
    for line, (row, ok) in enumerate(zip(places, on_scale)):
        start = 0
        for stop in range(1, len(row) + 1):
            if stop < len(row) and ok[stop] and ok[stop - 1] and row[stop] >= row[stop - 1] - JITTER:
                continue
            run = row[start:stop]
            if (
                ok[start]
                and len(run) >= 30
                and run.min() < 0.1 * SCALE_STEPS
                and run.max() > 0.9 * SCALE_STEPS
                and len(np.unique(run)) >= 30
                and np.corrcoef(np.arange(len(run)), run)[0, 1] > 0.98
            ):
                runs.append((line, start, stop))
            start = stop
    return runs


def colour_bar(image: Image.Image) -> tuple[str, tuple[float, float, float, float]] | None:
    """("h" or "v", (left, top, right, bottom) as shares of the image) of the colour bar found in `image`, or None."""
    pixels = np.asarray(image.convert("RGB"), dtype=np.int64)
    keys = (pixels[..., 0] >> 3) * 1024 + (pixels[..., 1] >> 3) * 32 + (pixels[..., 2] >> 3)
    places, distance = LOOKUP[keys, 0].astype(int), LOOKUP[keys, 1]
    on_scale = distance < ON_SCALE
    height, width = places.shape
    across = _gradient_runs(places, on_scale)  # rows, low to high left to right
    if across:
        lines = [run[0] for run in across]
        return "h", (
            min(r[1] for r in across) / width,
            min(lines) / height,
            max(r[2] for r in across) / width,
            (max(lines) + 1) / height,
        )
    down = _gradient_runs(places.T[:, ::-1], on_scale.T[:, ::-1])  # columns, low at the bottom
    if down:
        lines = [run[0] for run in down]
        return "v", (
            min(lines) / width,
            1 - max(r[2] for r in down) / height,
            (max(lines) + 1) / width,
            1 - min(r[1] for r in down) / height,
        )
    return None


def _pdf_image(data: bytes) -> Image.Image:
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        page = document[0]
        return page.render(scale=800 / page.get_width()).to_pil()  # ~800 px wide, whatever the page's size
    finally:
        document.close()


def _expected_place(width: int) -> str:
    return "h" if width < PRINT_WIDTH_PX else "v"


def _check_bar(image: Image.Image, width: int) -> None:
    found = colour_bar(image)
    assert found is not None, "no colour bar in the file"
    orientation, (left, top, right, bottom) = found
    assert orientation == _expected_place(width)
    if orientation == "h":  # under the plot: in the bottom band, across the middle
        assert top > 0.6 and left > 0.05 and right < 0.98
    else:  # right of the plot
        assert left > 0.6 and bottom - top > 0.2


def _width(fig, preset: str | None) -> int:
    return export.resolve_size(fig, preset=preset).of(fig)[0]


@pytest.mark.parametrize("preset", PRESETS)
def test_every_png_and_pdf_heatmap_carries_its_colour_bar(engine, preset):
    fig = _figure()
    png = Image.open(io.BytesIO(export.figure_bytes(fig, "png", engine=engine, preset=preset)))
    _check_bar(png, _width(fig, preset))
    _check_bar(_pdf_image(export.figure_bytes(fig, "pdf", engine=engine, preset=preset)), _width(fig, preset))


def test_the_bar_finder_finds_no_bar_where_there_is_none(engine):
    fig = _figure().update_traces(showscale=False)
    png = Image.open(io.BytesIO(export.figure_bytes(fig, "png", engine=engine, preset="single-column")))
    assert colour_bar(png) is None  # the heatmap's own cells are never taken for a bar


def _svg_size(svg: str) -> tuple[float, float]:
    box = re.search(r'viewBox="([\d.\s-]+)"', svg)
    assert box is not None
    _, _, width, height = (float(v) for v in box.group(1).split())
    return width, height


@pytest.mark.browser
def test_every_svg_heatmap_carries_its_colour_bar(engine):
    browser.require_browser()
    fig = _figure()
    with browser.chromium(viewport=(800, 800)) as page:
        for preset in PRESETS:
            svg = export.figure_bytes(fig, "svg", engine=engine, preset=preset).decode("utf-8")
            box_width, box_height = _svg_size(svg)
            shown = (800, round(800 * box_height / box_width))
            page.set_viewport_size({"width": shown[0], "height": shown[1]})
            source = "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
            page.set_content(
                f'<body style="margin:0"><img src="{source}" style="display:block;width:{shown[0]}px;'
                f'height:{shown[1]}px"></body>'
            )
            page.wait_for_function("document.images[0].complete")
            _check_bar(Image.open(io.BytesIO(page.screenshot())), _width(fig, preset))
