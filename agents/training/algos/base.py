"""What every algorithm's options share: the name, the optimiser's and the return's options,
the exploration bonus, their checks, and the off-policy (replay-buffer) family's options."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.methods.rnd_decay import RND_DECAYS
from sim_env.errors import UserInputError

NAME_HELP = "the algorithm: ppo | a2c | dqn | qrdqn | pddqn (prioritised double DQN); its options follow"


def option(default: Any, help: str = "") -> Any:
    """A config option: its default and what it means (``--print-config`` prints both)."""
    if isinstance(default, list | dict):
        return field(default_factory=lambda: type(default)(default), metadata={"help": help})
    return field(default=default, metadata={"help": help})


@dataclass
class AlgoOptions:
    """The ``[algo]`` options every algorithm takes."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}
    # Least and greatest value of each numeric option (inf: no bound), checked by check().
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {"rnd_weight": (0, math.inf), "rnd_decay_steps": (0, math.inf)}
    # The options handed to the algorithm's SB3 class under their own names (model_kwargs).
    PASSED: ClassVar[tuple[str, ...]] = ()
    # Where a model file keeps an option, when not under its own name (agents/training/resumed.py):
    # "entry" or "entry.key" of its data table; "" where it is not kept.
    SAVED_AS: ClassVar[dict[str, str]] = {"name": "", "rnd_weight": "", "rnd_decay": "", "rnd_decay_steps": ""}
    # Options a resumed model keeps (its replay buffer or network was made with them): a config
    # that gives another value is refused rather than half applied.
    FIXED_ON_RESUME: ClassVar[tuple[str, ...]] = ()

    name: str = option("ppo", NAME_HELP)
    learning_rate: float = option(3e-4)
    gamma: float = option(0.99)
    rnd_weight: float = option(0.0, "> 0: random network distillation exploration bonus of this weight")
    rnd_decay: str = option("linear", "none | linear (to 0 at rnd_decay_steps) | exponential (half-life: those steps)")
    rnd_decay_steps: int = option(0, "env steps of the bonus's decay (0: run.total_timesteps)")

    def check(self) -> None:
        """Each value in its range (finite: TrainConfig.validate checks every section); one line
        naming the first that is not."""
        ranges: dict[str, tuple[float, float]] = {}
        for cls in reversed(type(self).__mro__):
            ranges.update(getattr(cls, "RANGES", {}))
        for name, (low, high) in ranges.items():
            value = getattr(self, name)
            if high == math.inf and value < low:
                raise UserInputError(f"algo.{name} must be at least {low:g}, got {value}")
            if not low <= value <= high:
                raise UserInputError(f"algo.{name} must be from {low:g} to {high:g}, got {value}")
        if not 0.0 < self.gamma <= 1.0:
            raise UserInputError(f"algo.gamma must be a discount in (0, 1], got {self.gamma}")
        if not self.learning_rate > 0:
            raise UserInputError(f"algo.learning_rate must be a positive number, got {self.learning_rate}")
        if self.rnd_decay not in RND_DECAYS:
            raise UserInputError(f"algo.rnd_decay must be none, linear or exponential, got {self.rnd_decay!r}")

    def model_kwargs(self, policy_kwargs: dict[str, Any], env_weights: list[float]) -> dict[str, Any]:
        """The algorithm's own keyword arguments of its SB3 class (``policy_kwargs``: the
        network's; ``env_weights``: the env's reward weights): the options its classes list in
        ``PASSED``, as they are."""
        passed = [n for cls in type(self).__mro__ for n in getattr(cls, "PASSED", ())]
        return {**{n: getattr(self, n) for n in passed}, "policy_kwargs": policy_kwargs}

    def schedules(self) -> dict[str, Any]:
        """Saved values a model file holds as code (schedules), supplied when it is loaded."""
        return {}


@dataclass
class OffPolicyOptions(AlgoOptions):
    """The options of the DQN family, which learns from a replay buffer (demos can be injected
    into it, checkpoints save it, an actor process can feed it)."""

    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "batch_size": (1, math.inf),
        "buffer_size": (1, math.inf),
        "learning_starts": (0, math.inf),
        "train_freq": (1, math.inf),
        "gradient_steps": (1, math.inf),
        "target_update_interval": (1, math.inf),
        "exploration_fraction": (0, 1),
        "exploration_final_eps": (0, 1),
    }
    PASSED: ClassVar[tuple[str, ...]] = (
        "buffer_size",
        "learning_starts",
        "batch_size",
        "train_freq",
        "gradient_steps",
        "target_update_interval",
        "exploration_fraction",
        "exploration_final_eps",
    )

    # learning_starts counts from a new model's first step; a resumed run learns at once (or,
    # without its buffer, once the buffer is full: agents/training/train.py)
    SAVED_AS: ClassVar[dict[str, str]] = {"learning_starts": ""}

    batch_size: int = option(1024, "transitions per gradient step")
    buffer_size: int = option(200_000, "transitions the replay buffer holds")
    learning_starts: int = option(5_000, "env steps before the first gradient step")
    train_freq: int = option(4, "env steps (per env) between gradient steps")
    gradient_steps: int = option(1, "gradient steps each time")
    target_update_interval: int = option(2_000, "env steps between copies to the target network")
    exploration_fraction: float = option(0.2, "share of the run over which epsilon falls to its floor")
    exploration_final_eps: float = option(0.05, "epsilon's floor")

    def model_kwargs(self, policy_kwargs: dict[str, Any], env_weights: list[float]) -> dict[str, Any]:
        # fused Adam: one kernel for all parameters, a third of the default's time on CPU
        return super().model_kwargs({**policy_kwargs, "optimizer_kwargs": {"fused": True}}, env_weights)


__all__ = ["NAME_HELP", "AlgoOptions", "OffPolicyOptions", "option"]
