"""DQN (stable-baselines3): the off-policy family's options as they are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agents.training.algos.base import NAME_HELP, OffPolicyOptions, option


@dataclass
class DQNOptions(OffPolicyOptions):
    name: Literal["dqn"] = option("dqn", NAME_HELP)
