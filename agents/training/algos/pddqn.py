"""Prioritised double DQN (``agents.methods.pddqn``, the seed article's final algorithm): the
off-policy options, prioritised replay's, the demonstrations' and the reward heads'."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from agents.training.algos.base import NAME_HELP, OffPolicyOptions, option
from sim_env.errors import UserInputError


@dataclass
class PDDQNOptions(OffPolicyOptions):
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "per_alpha": (0, math.inf),
        "per_beta": (0, 1),
        "per_eps": (1e-300, math.inf),
        "demo_bonus": (0, math.inf),
        "demo_margin": (0, math.inf),
        "margin": (0, math.inf),
        "multi_step": (1, 100),
    }
    PASSED: ClassVar[tuple[str, ...]] = (
        "double_q",
        "prioritized",
        "per_alpha",
        "per_beta",
        "per_eps",
        "demo_bonus",
        "demo_margin",
        "margin",
        "reward_heads",
        "overlap_targets",
        "return_bound",
    )

    SAVED_AS: ClassVar[dict[str, str]] = {
        "per_alpha": "replay_buffer_kwargs.alpha",
        "per_beta": "per_beta0",
        "per_eps": "replay_buffer_kwargs.eps",
        "demo_bonus": "replay_buffer_kwargs.demo_bonus",
        "multi_step": "replay_buffer_kwargs.n_steps",
        "overlap_targets": "",  # how a run computes, not what the model is: always the config's
        "return_bound": "replay_buffer_kwargs.episode_returns",
    }
    FIXED_ON_RESUME: ClassVar[tuple[str, ...]] = ("prioritized", "reward_heads")

    name: Literal["pddqn"] = option("pddqn", NAME_HELP)
    double_q: bool = option(True, "double Q-learning targets (online net picks, target net values)")
    prioritized: bool = option(True, "prioritised replay (false: uniform, as dqn)")
    per_alpha: float = option(0.6, "priority = (|TD error| + per_eps) ** per_alpha")
    per_beta: float = option(0.4, "importance-sampling exponent at the start, annealed to 1")
    per_eps: float = option(1e-6, "keeps every priority above zero")
    demo_bonus: float = option(1.0, "added to demonstrations' priorities (DQfD's epsilon_d)")
    demo_margin: float = option(0.0, "weight of DQfD's large-margin loss on demonstrations (0: off)")
    margin: float = option(0.8, "by how much the demonstrated action's Q must lead the others")
    reward_heads: bool = option(False, "one Q head per reward term, acting on their sum weighted as the env's reward")
    multi_step: int = option(1, "rewards summed into each target before the bootstrap (n-step returns; 1: one-step)")
    return_bound: bool = option(
        False,
        "targets at least the return the transition's episode went on to get (lower-bound Q-learning: "
        "in a deterministic game a return that happened is one Q can reach)",
    )
    overlap_targets: bool = option(
        False,
        "the next batch's targets in a second thread beside this batch's gradient step (batches sampled "
        "one step early; agents/methods/overlapped_targets.py)",
    )

    def check(self) -> None:
        super().check()
        if self.demo_margin > 0 and self.reward_heads:
            raise UserInputError("algo.demo_margin needs the scalar critic (no algo.reward_heads)")
        if self.return_bound and (self.reward_heads or not self.prioritized):
            raise UserInputError("algo.return_bound needs the scalar critic and prioritized = true")

    def model_kwargs(self, policy_kwargs: dict[str, Any], env_weights: list[float]) -> dict[str, Any]:
        reward_weights = list(env_weights) if self.reward_heads else None  # the heads' sum is the env's reward
        kwargs = super().model_kwargs(policy_kwargs, env_weights)
        # SB3's DQN calls it n_steps; not here, where PPO's n_steps is its rollout length
        return {**kwargs, "reward_weights": reward_weights, "n_steps": self.multi_step}
