"""PPO (stable-baselines3): its options and how they build the model."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from agents.training.algos.base import NAME_HELP, AlgoOptions, option


@dataclass
class PPOOptions(AlgoOptions):
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "n_steps": (1, math.inf),
        "batch_size": (2, math.inf),  # SB3 normalises advantages over a minibatch
        "n_epochs": (1, math.inf),
        "ent_coef": (0, math.inf),
        "clip_range": (1e-12, math.inf),
        "gae_lambda": (0, 1),
    }
    PASSED: ClassVar[tuple[str, ...]] = ("n_steps", "batch_size", "n_epochs", "ent_coef", "clip_range", "gae_lambda")

    SAVED_AS: ClassVar[dict[str, str]] = {"clip_range": ""}  # kept as code: a resumed run takes the config's

    name: Literal["ppo"] = option("ppo", NAME_HELP)
    n_steps: int = option(256, "steps per env and update")
    batch_size: int = option(1024, "minibatch size")
    n_epochs: int = option(5, "passes over each rollout")
    ent_coef: float = option(0.01, "entropy bonus")
    clip_range: float = option(0.2, "policy ratio clipping")
    gae_lambda: float = option(0.95)

    def schedules(self) -> dict[str, Any]:
        return {"clip_range": self.clip_range}
