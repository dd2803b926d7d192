"""A2C (stable-baselines3): its options and how they build the model."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

from agents.training.algos.base import NAME_HELP, AlgoOptions, option


@dataclass
class A2COptions(AlgoOptions):
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "n_steps": (1, math.inf),
        "ent_coef": (0, math.inf),
        "gae_lambda": (0, 1),
    }
    PASSED: ClassVar[tuple[str, ...]] = ("n_steps", "ent_coef", "gae_lambda")

    name: Literal["a2c"] = option("a2c", NAME_HELP)
    n_steps: int = option(5, "steps per env and update")
    ent_coef: float = option(0.01, "entropy bonus")
    gae_lambda: float = option(0.95)
