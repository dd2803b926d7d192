"""Draws the simulated runner as an RGB image (numpy only), for rgb_array renders and GIFs.

The view is the game's: 20 pixels per physics unit and a camera that keeps the torso
14 units from the left edge. Parts are drawn as their boxes; the track, the hurdle and
distance marks every 10 m are drawn too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sim_env import HURDLE_HALF_EXTENTS, PART_HALF_EXTENTS, PART_NAMES, TRACK_TOP_Y
from sim_env.files import write_new
from sim_env.spec import UPDATES_PER_SECOND

WIDTH, HEIGHT = 640, 400
PIXELS_PER_UNIT = 20.0
_TOP_Y = -8.5  # world y at the top of the image
_SKY = np.array([235, 238, 242], dtype=np.uint8)
_TRACK = np.array([196, 120, 72], dtype=np.uint8)
_MARK = np.array([250, 250, 250], dtype=np.uint8)
_HURDLE = np.array([200, 40, 40], dtype=np.uint8)
_SKIN = np.array([230, 180, 140], dtype=np.uint8)
_SHIRT = np.array([40, 80, 160], dtype=np.uint8)
_SHORTS = np.array([30, 30, 30], dtype=np.uint8)
_FAR = 0.75  # the far-side limbs are drawn darker
# Far-side (left) limbs first so the near side is on top.
_DRAW_ORDER = [
    "leftArm",
    "leftForearm",
    "leftThigh",
    "leftCalf",
    "leftFoot",
    "torso",
    "head",
    "rightThigh",
    "rightCalf",
    "rightFoot",
    "rightArm",
    "rightForearm",
]


def _color(part: str) -> np.ndarray:
    base = _SHIRT if part in ("torso", "leftArm", "rightArm") else (_SHORTS if "Thigh" in part else _SKIN)
    if part.startswith("left"):
        return (base * _FAR).astype(np.uint8)
    return base


def _fill_box(img: np.ndarray, cx: float, cy: float, hx: float, hy: float, angle: float, color: np.ndarray) -> None:
    c, s = np.cos(angle), np.sin(angle)
    corners = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    pts = np.stack([cx + c * corners[:, 0] - s * corners[:, 1], cy + s * corners[:, 0] + c * corners[:, 1]], 1)
    x0, y0 = np.floor(pts.min(0)).astype(int)
    x1, y1 = np.ceil(pts.max(0)).astype(int)
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, img.shape[1] - 1), min(y1, img.shape[0] - 1)
    if x1 < x0 or y1 < y0:
        return
    ys, xs = np.mgrid[y0 : y1 + 1, x0 : x1 + 1]
    dx, dy = xs + 0.5 - cx, ys + 0.5 - cy
    u = c * dx + s * dy
    v = -s * dx + c * dy
    inside = (np.abs(u) <= hx) & (np.abs(v) <= hy)
    img[y0 : y1 + 1, x0 : x1 + 1][inside] = color


def render_state(state: np.ndarray, hurdle: np.ndarray | None = None, camera_x: float | None = None) -> np.ndarray:
    """An (HEIGHT, WIDTH, 3) uint8 image of body state (12, 6) and the hurdle pose (2, 3)."""
    img = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    img[:] = _SKY
    left = (state[0, 0] - 14.0) if camera_x is None else camera_x / PIXELS_PER_UNIT

    def px(x: float) -> float:
        return (x - left) * PIXELS_PER_UNIT

    def py(y: float) -> float:
        return (y - _TOP_Y) * PIXELS_PER_UNIT

    track_top = round(py(TRACK_TOP_Y))
    img[max(track_top, 0) :] = _TRACK
    first_mark = int(np.ceil(left / 100.0)) * 100
    for x in range(first_mark, int(left + WIDTH / PIXELS_PER_UNIT) + 1, 100):  # every 10 m
        col = int(px(x))
        img[max(track_top, 0) : min(track_top + 12, HEIGHT), max(col - 1, 0) : col + 2] = _MARK
    if hurdle is not None:
        for (x, y, a), (hx, hy) in zip(hurdle, HURDLE_HALF_EXTENTS, strict=True):
            _fill_box(img, px(x), py(y), hx * PIXELS_PER_UNIT, hy * PIXELS_PER_UNIT, a, _HURDLE)
    for name in _DRAW_ORDER:
        i = PART_NAMES.index(name)
        x, y, a = state[i, :3]
        hx, hy = PART_HALF_EXTENTS[i]
        _fill_box(img, px(x), py(y), hx * PIXELS_PER_UNIT, hy * PIXELS_PER_UNIT, a, _color(name))
    return img


def gif_durations(n: int, fps: float) -> list[int]:
    """Frame durations in ms for ``n`` frames at ``fps``: GIF stores hundredths of a second, so
    each frame gets the whole hundredths that keep the running total on the real clock
    (15 fps: 70, 60, 70, ... ms, not 60 ms each, which would play 10% fast)."""
    ends = [round((i + 1) * 100 / fps) * 10 for i in range(n)]
    return [b - a for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def save_gif(
    frames: list[np.ndarray], path: str, fps: float = UPDATES_PER_SECOND, labels: list[str] | None = None
) -> Path:
    """Write frames as an animated GIF (needs Pillow) that plays at ``fps`` on average, with an
    optional caption per frame; written whole, under the next free name if ``path`` is taken
    (sim_env.files). Returns the path written."""
    try:
        from PIL import Image, ImageDraw
    except ImportError as exc:
        raise RuntimeError("writing a GIF needs Pillow: pip install pillow") from exc
    if not frames:
        raise ValueError("no frames to write")
    images = [Image.fromarray(f) for f in frames]
    for im, text in zip(images, labels or [], strict=False):
        ImageDraw.Draw(im).text((10, 8), text, fill=(20, 20, 20))
    durations = gif_durations(len(images), fps)
    return write_new(
        path,
        lambda f: images[0].save(
            f, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True
        ),
    )
