"""Options shared by the single and vector simulator envs, validated in one place."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim_env.actions import action_masks
from sim_env.rewards import REWARD_TERMS, profile_weights


@dataclass(frozen=True)
class EnvConfig:
    """Everything that defines an env's interface and dynamics.

    action_set: ``full`` (16), ``distinct`` (9) or ``article`` (11); see ``sim_env.actions``.
    frame_skip: game updates per env step (1 update = 1/30 s); 2, 3 or 4 give the seed
        article's ~18, 9-10 and 7-8 actions per second (it used 9, 18 and 25).
    reward: profile name (``progress``, ``speed``, ``shaped``); see ``sim_env.rewards``.
    reward_weights: per-term weight overrides.
    time_limit: game seconds before an episode is truncated.
    frame_stack: observations concatenated per step (oldest first).
    start_noise_updates: if > 0, each episode starts with a random number (0..N) of
        updates with random keys, drawn from the env's seeded RNG. Off by default; the
        keys are part of the episode's history, so the run still replays exactly.
    """

    action_set: str = "distinct"
    frame_skip: int = 1
    reward: str = "progress"
    reward_weights: dict[str, float] = field(default_factory=dict)
    time_limit: float = 120.0
    frame_stack: int = 1
    start_noise_updates: int = 0

    def __post_init__(self) -> None:
        action_masks(self.action_set)
        if not isinstance(self.frame_skip, int) or self.frame_skip < 1:
            raise ValueError(f"frame_skip must be an int >= 1, got {self.frame_skip!r}")
        if not isinstance(self.frame_stack, int) or self.frame_stack < 1:
            raise ValueError(f"frame_stack must be an int >= 1, got {self.frame_stack!r}")
        if not self.time_limit > 0:
            raise ValueError(f"time_limit must be positive (game seconds), got {self.time_limit!r}")
        if not isinstance(self.start_noise_updates, int) or self.start_noise_updates < 0:
            raise ValueError(f"start_noise_updates must be an int >= 0, got {self.start_noise_updates!r}")
        profile_weights(self.reward, self.reward_weights)

    @property
    def masks(self) -> np.ndarray:
        return action_masks(self.action_set)

    @property
    def weights(self) -> np.ndarray:
        return profile_weights(self.reward, self.reward_weights)

    def draw_start_noise(self, rng: np.random.Generator) -> np.ndarray:
        """The random start of one episode: 0..start_noise_updates random key masks (int8)."""
        n = self.start_noise_updates
        if not n:
            return np.zeros(0, dtype=np.int8)
        count = int(rng.integers(0, n + 1))
        return rng.integers(0, 16, count).astype(np.int8)

    @property
    def max_updates(self) -> int:
        return int(np.ceil(self.time_limit * 30.0 - 1e-9))


__all__ = ["REWARD_TERMS", "EnvConfig"]
