"""The algorithms ``qwop train`` offers: one table, read by the config, the command line,
training and model loading."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from sim_env.errors import UserInputError


@dataclass(frozen=True)
class Algorithm:
    name: str
    package: str  # where the class lives (stable-baselines3, sb3-contrib or this project)
    class_name: str
    off_policy: bool  # a replay buffer: demos can be injected, checkpoints save the buffer


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm("ppo", "stable_baselines3", "PPO", off_policy=False),
        Algorithm("a2c", "stable_baselines3", "A2C", off_policy=False),
        Algorithm("dqn", "stable_baselines3", "DQN", off_policy=True),
        Algorithm("qrdqn", "sb3_contrib", "QRDQN", off_policy=True),
        # prioritised double DQN (the seed article's final algorithm): SB3's DQN, agents/methods/pddqn.py
        Algorithm("pddqn", "agents.methods.pddqn", "PrioritizedDoubleDQN", off_policy=True),
    )
}


def algorithm(name: str) -> Algorithm:
    if name not in ALGORITHMS:
        raise UserInputError(f"unknown algorithm {name!r}; choose one of {tuple(ALGORITHMS)}")
    return ALGORITHMS[name]


def algo_class(name: str) -> Any:
    """The stable-baselines3 class of an algorithm (imported when first needed)."""
    a = algorithm(name)
    try:
        module = importlib.import_module(a.package)
    except ImportError as exc:
        pip_name = a.package.replace("_", "-")
        raise UserInputError(f"{name} needs {pip_name}: .venv/bin/pip install {pip_name}") from exc
    return getattr(module, a.class_name)
