"""Which sin/cos a game computes: the simulator's two variants, and probing a page or the host.

The original's physics takes ``Math.sin``/``Math.cos`` from the browser, which on Linux are
the C library's; glibc computes them with one of two builds chosen by CPU (with fused
multiply-add or without), and they differ in the last bit for about 0.07% of arguments.
The simulator computes both itself (``sim_env/cpp/engine/trig.cpp``); its default, ``"fma"``, is the
variant of the reference traces. A run found in the simulator replays exactly in a browser
only if the browser computes the same variant; :func:`identify` tells which one a set of
probe values matches.

    xs = probe_arguments()
    variant = identify(page_sin(xs), page_cos(xs))   # "fma", "generic" or "neither"
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from sim_env import _core

VARIANTS: tuple[str, ...] = ("fma", "generic")
DEFAULT_VARIANT = "fma"
NEITHER = "neither"


def sincos(x: np.ndarray, variant: str = DEFAULT_VARIANT, lanes: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The simulator's sin and cos of every element of ``x`` (flattened) in ``variant``;
    ``lanes`` computes them four at a time as the batch's lock-step solver does (needs
    ``sim_env.lockstep_available()``)."""
    return _core.sincos(np.ascontiguousarray(x, dtype=np.float64).ravel(), variant, lanes)


@cache
def probe_arguments(count: int = 32) -> np.ndarray:
    """``count`` angles in the game's range where the two variants' sin or cos differ (a
    fixed grid, so every caller gets the same set)."""
    grid = np.linspace(-7.0, 7.0, 400_001)
    s0, c0 = sincos(grid, "fma")
    s1, c1 = sincos(grid, "generic")
    differ = np.flatnonzero((s0 != s1) | (c0 != c1))
    picked = differ[np.linspace(0, len(differ) - 1, count).astype(int)]
    return grid[picked].copy()


def identify(sin_values: np.ndarray, cos_values: np.ndarray, xs: np.ndarray | None = None) -> str:
    """Which variant produced these sin/cos values of ``xs`` (default: the probe arguments)."""
    xs = probe_arguments() if xs is None else xs
    s = np.asarray(sin_values, dtype=np.float64)
    c = np.asarray(cos_values, dtype=np.float64)
    for v in VARIANTS:
        vs, vc = sincos(xs, v)
        if np.array_equal(vs.view(np.int64), s.view(np.int64)) and np.array_equal(vc.view(np.int64), c.view(np.int64)):
            return v
    return NEITHER


def host_variant() -> str:
    """Which variant this process's C library computes (Python's ``math.sin``/``math.cos``)."""
    xs = probe_arguments()
    return identify(np.array([math.sin(x) for x in xs]), np.array([math.cos(x) for x in xs]))


def mismatch_note(page_variant: str, sim_variant: str = DEFAULT_VARIANT) -> str | None:
    """A one-line warning when a page's sin/cos differ from the simulator's, else None."""
    if page_variant == sim_variant:
        return None
    if page_variant == NEITHER:
        return (
            "this browser's Math.sin/Math.cos match neither of glibc's builds, so runs found in the simulator "
            "will not replay exactly here (the simulator reproduces Chromium on Linux with glibc)"
        )
    return (
        f"this browser computes sin/cos like glibc's {page_variant!r} build, the simulator like {sim_variant!r}: "
        f"runs found in the simulator will drift here; use the simulator with sincos={page_variant!r} to match it"
    )


__all__ = [
    "DEFAULT_VARIANT",
    "NEITHER",
    "VARIANTS",
    "host_variant",
    "identify",
    "mismatch_note",
    "probe_arguments",
    "sincos",
]
