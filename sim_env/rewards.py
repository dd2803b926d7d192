"""Reward terms and the reward profiles built from them.

Every step yields a vector of terms (``REWARD_TERMS``), reported as
``info["reward_terms"]`` so that an agent can learn a critic per term; a profile is a set
of weights over the terms and the scalar reward is their weighted sum. With x and y the
torso centre (metres, y down), h the torso height above the track (metres), dt the game
time of the step (seconds) and t the game time at the end of the step:

| term | value per step |
| --- | --- |
| ``progress`` | x_after - x_before (forward torso progress, metres) |
| ``time`` | -dt |
| ``finish`` | 120 - t on the step that finishes 100 m, else 0 |
| ``fall`` | -1 on the step the runner falls, else 0 |
| ``low_torso`` | -max(0, h_min - h) with h_min = ``LOW_TORSO_M`` (0.8 m) |
| ``vertical`` | -abs(y_after - y_before) (metres) |
| ``knee`` | -sum over both knees of max(0, abs(knee angle) - ``KNEE_BEND_RAD`` (1.2 rad)) |

Profiles (weights; terms not named have weight 0):

- ``progress``: progress.
- ``speed``: progress - 1.0 * dt + finish bonus (120 - seconds) - 10 on a fall, i.e.
  weights progress 1, time 1, finish 1, fall 10.
- ``shaped``: progress with penalties for a low torso, vertical torso motion and excessive
  knee bend (the seed article's stride-learning stage): progress 1, low_torso 1,
  vertical 1, knee 0.25.

``reward_weights`` on the envs overrides or adds weights. The terms are computed in C++
(``sim_env/cpp/game/env_features.cpp``); :func:`reward_terms` calls the same code.
"""

from __future__ import annotations

import numpy as np

from sim_env._core import reward_terms as _reward_terms
from sim_env.spec import SPEC

# The terms in order, their profiles and constants: spec.json, from which the C++ side's are
# generated (cpp/game/spec.h). Adding a term is an entry there, its computation in
# cpp/game/env_features.cpp, and a test.
REWARD_TERMS: tuple[str, ...] = tuple(SPEC["reward_terms"])
PROFILES: dict[str, dict[str, float]] = {k: dict(v) for k, v in SPEC["reward_profiles"].items()}
DEFAULT_PROFILE: str = SPEC["default_reward_profile"]
LOW_TORSO_M = float(SPEC["reward_constants"]["low_torso_m"])
KNEE_BEND_RAD = float(SPEC["reward_constants"]["knee_bend_rad"])
FINISH_BONUS_TIME_S = float(SPEC["reward_constants"]["finish_bonus_time_s"])


def profile_weights(profile: str, overrides: dict[str, float] | None = None) -> np.ndarray:
    """Weight vector over REWARD_TERMS for a profile, with optional overrides."""
    if profile not in PROFILES:
        raise ValueError(f"unknown reward profile {profile!r}; choose one of {sorted(PROFILES)}")
    w = dict(PROFILES[profile])
    for k, v in (overrides or {}).items():
        if k not in REWARD_TERMS:
            raise ValueError(f"unknown reward term {k!r}; terms are {REWARD_TERMS}")
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating) or not np.isfinite(v):
            raise ValueError(f"reward_weights[{k!r}] must be a finite number, got {v!r}")
        w[k] = float(v)
    return np.array([w.get(t, 0.0) for t in REWARD_TERMS])


def reward_terms(
    before: np.ndarray,
    after: np.ndarray,
    dt: np.ndarray | float,
    time_after: np.ndarray | float,
    fell: np.ndarray | bool,
    finished: np.ndarray | bool,
) -> np.ndarray:
    """Terms (..., len(REWARD_TERMS)) for state(s) (..., 12, 6) before and after a step."""
    return _reward_terms(
        np.asarray(before, dtype=np.float64),
        np.asarray(after, dtype=np.float64),
        np.atleast_1d(np.asarray(dt, dtype=np.float64)),
        np.atleast_1d(np.asarray(time_after, dtype=np.float64)),
        np.atleast_1d(np.asarray(fell, dtype=bool)),
        np.atleast_1d(np.asarray(finished, dtype=bool)),
    )


__all__ = [
    "FINISH_BONUS_TIME_S",
    "KNEE_BEND_RAD",
    "LOW_TORSO_M",
    "PROFILES",
    "REWARD_TERMS",
    "profile_weights",
    "reward_terms",
]
