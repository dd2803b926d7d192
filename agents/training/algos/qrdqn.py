"""QR-DQN (sb3-contrib): the off-policy family's options as they are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agents.training.algos.base import NAME_HELP, OffPolicyOptions, option


@dataclass
class QRDQNOptions(OffPolicyOptions):
    name: Literal["qrdqn"] = option("qrdqn", NAME_HELP)
