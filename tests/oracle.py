"""Independent numpy implementations of the documented observation and reward formulas,
written from the tables in sim_env/observation.py and sim_env/rewards.py, used to check
the C++ implementation."""

from __future__ import annotations

import numpy as np

import sim_env

JA = np.array([a for a, _ in sim_env.JOINT_PARTS])
JB = np.array([b for _, b in sim_env.JOINT_PARTS])
REF = np.array(sim_env.JOINT_REFERENCE_ANGLES)
KNEES = [sim_env.JOINT_NAMES.index("leftKnee"), sim_env.JOINT_NAMES.index("rightKnee")]


def joint_angles(s: np.ndarray) -> np.ndarray:
    return s[..., JB, 2] - s[..., JA, 2] - REF


def observe(s: np.ndarray) -> np.ndarray:
    torso = s[..., 0, :]
    rel_x = (s[..., 1:, 0] - torso[..., None, 0]) / 10
    rel_y = (s[..., 1:, 1] - torso[..., None, 1]) / 10
    ang = ((s[..., 2] + np.pi) % (2 * np.pi) - np.pi) / np.pi
    height = (sim_env.TRACK_TOP_Y - torso[..., 1]) / 10
    parts = [
        rel_x,
        rel_y,
        ang,
        s[..., 3] / 10,
        s[..., 4] / 10,
        s[..., 5] / 10,
        joint_angles(s),
        height[..., None],
        torso[..., 3, None] / 10,
    ]
    return np.concatenate(parts, axis=-1).astype(np.float32)


def reward_terms(before, after, dt, time_after, fell, finished) -> np.ndarray:
    h = (sim_env.TRACK_TOP_Y - after[..., 0, 1]) / 10
    knees = np.abs(joint_angles(after)[..., KNEES])
    return np.stack(
        [
            (after[..., 0, 0] - before[..., 0, 0]) / 10,
            -np.broadcast_to(dt, h.shape).astype(float),
            np.where(finished, 120.0 - np.asarray(time_after), 0.0),
            -np.asarray(fell, dtype=float) * np.ones_like(h),
            -np.maximum(0.0, 0.8 - h),
            -np.abs(after[..., 0, 1] - before[..., 0, 1]) / 10,
            -np.maximum(0.0, knees - 1.2).sum(-1),
        ],
        axis=-1,
    )
