"""The algorithms ``qwop train`` offers: one table, read by the config, the command line,
training and model loading. Each algorithm's options live in its module under ``algos/``;
adding one is its module, a row here and a test."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from typing import Any

from agents.training.algos.a2c import A2COptions
from agents.training.algos.base import AlgoOptions, OffPolicyOptions
from agents.training.algos.dqn import DQNOptions
from agents.training.algos.pddqn import PDDQNOptions
from agents.training.algos.ppo import PPOOptions
from agents.training.algos.qrdqn import QRDQNOptions
from sim_env.errors import UserInputError


@dataclass(frozen=True)
class Algorithm:
    name: str
    package: str  # where the class lives (stable-baselines3, sb3-contrib or this project)
    class_name: str
    options: type[AlgoOptions]  # the [algo] section when algo.name is this one

    @property
    def off_policy(self) -> bool:
        """A replay buffer: demos can be injected, checkpoints save the buffer."""
        return issubclass(self.options, OffPolicyOptions)


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm("ppo", "stable_baselines3", "PPO", PPOOptions),
        Algorithm("a2c", "stable_baselines3", "A2C", A2COptions),
        Algorithm("dqn", "stable_baselines3", "DQN", DQNOptions),
        Algorithm("qrdqn", "sb3_contrib", "QRDQN", QRDQNOptions),
        Algorithm("pddqn", "agents.methods.pddqn", "PrioritizedDoubleDQN", PDDQNOptions),
    )
}


def algorithm(name: str) -> Algorithm:
    if name not in ALGORITHMS:
        raise UserInputError(f"unknown algorithm {name!r}; choose one of {tuple(ALGORITHMS)}")
    return ALGORITHMS[name]


def options_of(option: str) -> list[str]:
    """The algorithms that have an ``[algo]`` option of this name."""
    return [a.name for a in ALGORITHMS.values() if option in {f.name for f in fields(a.options)}]


def own_options(table: dict[str, Any]) -> dict[str, Any]:
    """An ``[algo]`` table as read from a file. A run folder's config.toml from before each
    algorithm had its own options lists every algorithm's; it keeps the named algorithm's (any
    other table must name only those, and is returned as it is)."""
    every = {f.name for a in ALGORITHMS.values() for f in fields(a.options)}
    if set(table) != every or table.get("name") not in ALGORITHMS:
        return table
    own = {f.name for f in fields(algorithm(table["name"]).options)}
    return {k: v for k, v in table.items() if k in own}


def algo_class(name: str) -> Any:
    """The stable-baselines3 class of an algorithm (imported when first needed)."""
    a = algorithm(name)
    try:
        module = importlib.import_module(a.package)
    except ImportError as exc:
        pip_name = a.package.replace("_", "-")
        raise UserInputError(f"{name} needs {pip_name}: .venv/bin/pip install {pip_name}") from exc
    return getattr(module, a.class_name)
