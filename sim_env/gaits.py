"""Built-in open-loop gaits: key patterns repeated for as long as needed.

``SHUFFLE`` was found by a small search over two-phase patterns in this simulator
(hold Q+P for 6 updates, then Q+O for 12); it runs about 40 m in 60 s without falling.
"""

from __future__ import annotations

import numpy as np

from sim_env import KEY_O, KEY_P, KEY_Q

# (key mask, updates held) phases
SHUFFLE: tuple[tuple[int, int], ...] = ((KEY_Q | KEY_P, 6), (KEY_Q | KEY_O, 12))


def gait_keys(pattern: tuple[tuple[int, int], ...], updates: int) -> np.ndarray:
    """The pattern repeated to exactly ``updates`` key masks (int8)."""
    if updates < 0:
        raise ValueError(f"updates must be >= 0, got {updates}")
    cycle = np.concatenate([np.full(n, mask, dtype=np.int8) for mask, n in pattern])
    reps = -(-updates // len(cycle)) if updates else 0
    return np.tile(cycle, reps)[:updates]
