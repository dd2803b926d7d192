"""How the planner's beams move and keep diversity. Unguided (``BeamSearch`` in
``agents/search/planner.py``): random held key masks for the copies of a game, and the next
beam chosen by score with at most a few games per cell of (distance, torso angle, thigh
spread), so that different gaits survive. Guided (``GuidedSearch``): the next beam chosen by
rollout rank with at most a few tries of one game, so that several games' lines go on."""

from __future__ import annotations

import numpy as np

from agents.search.state import LEFT_THIGH, RIGHT_THIGH, TORSO
from sim_env.spec import UNITS_PER_METRE


def segments(rng: np.random.Generator, masks: np.ndarray, n: int, horizon: int, lo: int, hi: int) -> np.ndarray:
    """``n`` rows of ``horizon`` key masks made of held segments."""
    longest = (horizon + lo - 1) // lo + 1
    durations = rng.integers(lo, hi + 1, (n, longest))
    choices = masks[rng.integers(0, len(masks), (n, longest))]
    ends = np.cumsum(durations, axis=1)
    t = np.arange(horizon)
    seg = (t[None, :, None] >= ends[:, None, :]).sum(axis=2)
    return np.take_along_axis(choices, seg, axis=1).astype(np.int8)


def cells(state: np.ndarray, cell_m: float) -> np.ndarray:
    """Each game's diversity cell: (distance in cells of ``cell_m``, torso angle, thigh spread)."""
    x = state[:, TORSO, 0] / UNITS_PER_METRE
    angle = np.round(state[:, TORSO, 2] / 0.35)
    spread = np.round((state[:, LEFT_THIGH, 2] - state[:, RIGHT_THIGH, 2]) / 0.5)
    return np.stack([np.floor(x / cell_m), angle, spread], axis=1).astype(np.int64)


def _rank_in_group(group: np.ndarray) -> np.ndarray:
    """For each entry, how many entries of the same group come before it."""
    by_group = np.argsort(group, kind="stable")
    g = group[by_group]
    first = np.r_[0, np.flatnonzero(g[1:] != g[:-1]) + 1]
    rank = np.empty(len(group), dtype=np.int64)
    rank[by_group] = np.arange(len(group)) - np.repeat(first, np.diff(np.r_[first, len(group)]))
    return rank


def select_diverse(score: np.ndarray, cell: np.ndarray, k: int, per_cell: int) -> np.ndarray:
    """Up to ``k`` indices by score, at most ``per_cell`` per cell (then the rest by score)."""
    order = np.argsort(-score, kind="stable")
    _, cell_id = np.unique(cell[order], axis=0, return_inverse=True)
    rank = _rank_in_group(cell_id.ravel())
    first = order[rank < per_cell]
    if len(first) >= k:
        return first[:k]
    rest = order[rank >= per_cell]
    return np.concatenate([first, rest[: k - len(first)]])


def best_per_parent(idx: np.ndarray, score: np.ndarray, parent: np.ndarray, k: int, per_parent: int) -> np.ndarray:
    """Up to ``k`` of the rows ``idx``, best ``score`` first (the first of equals first), at most
    ``per_parent`` of each parent (0: no limit)."""
    order = idx[np.argsort(-score[idx], kind="stable")]
    if per_parent > 0:
        order = order[_rank_in_group(parent[order]) < per_parent]
    return order[:k]


__all__ = ["best_per_parent", "cells", "segments", "select_diverse"]
