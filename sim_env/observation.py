"""The observation layout, defined once for the simulator envs and the browser env.

Built from the game state every env has: the (12, 6) body state (x, y, angle, vx, vy,
omega per part in ``PART_NAMES`` order; physics units, y down, radians). Elements, in order:

| slice | count | element | unit | normalisation |
| --- | --- | --- | --- | --- |
| 0:22 | 11 | x of every part except the torso, relative to the torso | units | / 10 (metres) |
| ... | 11 | y of the same parts relative to the torso (positive = below) | units | / 10 |
| 22:34 | 12 | angle of every part, wrapped to [-pi, pi) | rad | / pi |
| 34:46 | 12 | vx of every part | units/s | / 10 (m/s) |
| 46:58 | 12 | vy of every part (positive = down) | units/s | / 10 |
| 58:70 | 12 | angular velocity of every part | rad/s | / 10 |
| 70:81 | 11 | joint angles, angle(B) - angle(A) - reference, ``JOINT_NAMES`` order | rad | none |
| 81 | 1 | torso height above the track surface | units | / 10 (metres) |
| 82 | 1 | torso forward speed (same value as torso vx) | units/s | / 10 (m/s) |

The values are computed in C++ (``sim_env/cpp/game/env_features.cpp``) by the batched engine's
threads; :func:`observe` calls the same code for any array of states. ``OBS_NAMES`` names
every element. With ``frame_stack`` k > 1 the env concatenates the last
k observations, oldest first.
"""

from __future__ import annotations

import numpy as np

from sim_env import JOINT_NAMES, PART_NAMES
from sim_env._core import OBS_SIZE
from sim_env._core import observe as _observe
from sim_env.spec import SPEC

# Positions and velocities are divided by these (spec.json; the C++ side's are generated from it).
POSITION_SCALE = float(SPEC["observation_scales"]["position"])
VELOCITY_SCALE = float(SPEC["observation_scales"]["velocity"])


def _names() -> tuple[str, ...]:
    others = list(PART_NAMES[1:])
    names = [f"{p}.dx" for p in others] + [f"{p}.dy" for p in others]
    names += [f"{p}.angle" for p in PART_NAMES]
    names += [f"{p}.vx" for p in PART_NAMES] + [f"{p}.vy" for p in PART_NAMES]
    names += [f"{p}.omega" for p in PART_NAMES]
    names += [f"{j}.angle" for j in JOINT_NAMES]
    names += ["torso.height", "torso.speed"]
    return tuple(names)


OBS_NAMES: tuple[str, ...] = _names()
assert len(OBS_NAMES) == OBS_SIZE


def observe(state: np.ndarray) -> np.ndarray:
    """Observation(s) (..., OBS_SIZE) float32 from body state(s) (..., 12, 6)."""
    s = np.asarray(state, dtype=np.float64)
    if s.shape[-2:] != (len(PART_NAMES), 6):
        raise ValueError(f"state must have shape (..., 12, 6), got {s.shape}")
    return _observe(s)


__all__ = ["OBS_NAMES", "OBS_SIZE", "POSITION_SCALE", "VELOCITY_SCALE", "observe"]
