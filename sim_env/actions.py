"""Key masks and action sets: which masks are keys, and how a discrete action index maps to
the Q W O P keys held.

Shared by the simulator envs and the browser env; every Python check of a key mask is here
(the C++ module's is in ``cpp/bindings/bind_checks.cpp``).

- ``full`` (16): action i holds key mask i (1=Q, 2=W, 4=O, 8=P).
- ``distinct`` (9): the controls that behave differently. Q wins over W and O wins over P,
  so thighs have 3 states (none, Q, W) and calves 3 (none, O, P).
- ``article`` (11): each key alone, the 6 two-key combinations, then nothing.
"""

from __future__ import annotations

import numpy as np

from sim_env import KEY_O, KEY_P, KEY_Q, KEY_W

Q, W, O, P = KEY_Q, KEY_W, KEY_O, KEY_P  # noqa: E741  (the game's key names)
MAX_MASK = Q | W | O | P  # 15: every key held
KEY_BITS = f"(Q={Q}, W={W}, O={O}, P={P})"
KEYS_HELP = f"an int mask 0..{MAX_MASK} {KEY_BITS}"


def check_mask(keys: object) -> int:
    """``keys`` as a key mask, or ValueError saying what a key mask is (bools and floats refused)."""
    if isinstance(keys, bool) or not isinstance(keys, int | np.integer):
        raise ValueError(f"keys must be {KEYS_HELP}, got {type(keys).__name__}")
    if not 0 <= int(keys) <= MAX_MASK:
        raise ValueError(f"key mask {int(keys)} is out of range: use 0..{MAX_MASK} {KEY_BITS}")
    return int(keys)


def check_masks(keys: object, what: str = "keys", allow: tuple[int, ...] = (), empty: bool = False) -> np.ndarray:
    """A 1-D sequence of key masks as int8 (non-empty unless ``empty``), or ValueError naming the
    first bad element; ``allow``: other values the sequence may hold (a demo's -1 on the click)."""
    a = np.asarray(keys)
    if a.ndim != 1 or (a.size == 0 and not empty) or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise ValueError(f"{what} must be a 1-D sequence of key masks 0..{MAX_MASK}")
    bad = np.flatnonzero(((a < 0) | (a > MAX_MASK)) & ~np.isin(a, allow))
    if bad.size:
        raise ValueError(f"{what}[{bad[0]}] = {a[bad[0]]} is out of range 0..{MAX_MASK} {KEY_BITS}")
    return a.astype(np.int8)


ACTION_SETS: dict[str, tuple[int, ...]] = {
    "full": tuple(range(16)),
    "distinct": (0, O, P, Q, Q | O, Q | P, W, W | O, W | P),
    "article": (Q, W, O, P, Q | W, Q | O, Q | P, W | O, W | P, O | P, 0),
}


def mask_label(mask: int) -> str:
    """'QP' for 9, '-' for 0."""
    return "".join(c for c, bit in zip("QWOP", (Q, W, O, P), strict=True) if mask & bit) or "-"


def action_masks(action_set: str) -> np.ndarray:
    """Key masks of an action set as an int8 array (index = action)."""
    try:
        return np.array(ACTION_SETS[action_set], dtype=np.int8)
    except KeyError:
        raise ValueError(f"unknown action set {action_set!r}; choose one of {sorted(ACTION_SETS)}") from None


def masks_to_actions(masks: np.ndarray, action_set: str) -> np.ndarray:
    """Map key masks to action indices of a set, by the control they produce.

    Masks the set cannot express exactly (W+Q is Q in effect, so ``distinct`` maps it to Q)
    are mapped to the action with the same effect on the game.
    """
    table = action_masks(action_set)
    effect = np.array([effective_mask(int(m)) for m in table])
    out = np.empty(len(masks), dtype=np.int64)
    for i, m in enumerate(np.asarray(masks, dtype=np.int64)):
        hits = np.flatnonzero(table == m)
        if hits.size == 0:
            hits = np.flatnonzero(effect == effective_mask(int(m)))
        if hits.size == 0:
            raise ValueError(f"key mask {int(m)} ({mask_label(int(m))}) has no equivalent in action set {action_set!r}")
        out[i] = hits[0]
    return out


def effective_mask(mask: int) -> int:
    """The mask with the keys the game ignores removed (W under Q, P under O)."""
    mask = check_mask(mask)
    if mask & Q:
        mask &= ~W
    if mask & O:
        mask &= ~P
    return mask
