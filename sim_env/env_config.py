"""Options shared by the single and vector simulator envs, validated in one place."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from sim_env import _core
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
    sincos: whose sin/cos the simulated game computes (``sim_env.libm``): ``fma``, the
        variant of the reference traces, or ``generic``. The browser env ignores it (the
        page computes its own; ``BrowserGame.sincos`` says which).
    """

    # Read by config loaders (agents.config validates training configs with pydantic).
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    action_set: str = field(default="distinct", metadata={"help": "full | distinct | article"})
    frame_skip: int = field(default=1, metadata={"help": "game updates per action (30 updates = 1 s)"})
    reward: str = field(default="progress", metadata={"help": "progress | speed | shaped"})
    reward_weights: dict[str, float] = field(
        default_factory=dict,
        metadata={"help": "per-term weight overrides, e.g. { time = -0.02 } (terms: sim_env.rewards.REWARD_TERMS)"},
    )
    time_limit: float = field(default=120.0, metadata={"help": "game seconds per episode"})
    frame_stack: int = field(default=1, metadata={"help": "observations per step, oldest first"})
    start_noise_updates: int = field(default=0, metadata={"help": "random-key updates (0..N) at each episode start"})
    sincos: str = field(
        default="fma", metadata={"help": "whose sin/cos the simulator computes: fma (the original's traces) | generic"}
    )

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
        if self.sincos not in ("fma", "generic"):
            raise ValueError(f"sincos must be 'fma' or 'generic' (see sim_env.libm), got {self.sincos!r}")

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
        """Updates per episode before truncation (the engine's one conversion of game time)."""
        return _core.max_updates(self.time_limit)

    def episode_args(self) -> dict[str, Any]:
        """The C++ episode's options (``sim_env._core.Env``, ``Episode``, ``BatchSim``)."""
        return {
            "frame_skip": self.frame_skip,
            "time_limit": self.time_limit,
            "frame_stack": self.frame_stack,
            "weights": self.weights,
        }


__all__ = ["REWARD_TERMS", "EnvConfig"]
