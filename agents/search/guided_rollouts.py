"""A trained policy's greedy rollouts in the exact simulator: the guide of ``qwop search --guide``.

The planner asks, for each game of its beam and each action, how far the runner gets when
that action is taken for one decision and the trained policy then acts greedily for
``lookahead`` more decisions (a rollout: the classic one-step policy improvement, here inside
a beam). ``GuidePolicy`` is the model's network as plain float64 arrays, evaluated in C++
(``sim_env.GuidePolicy``, ``sim_env/cpp/search/guide_policy.h``) with every output's products
summed in input order, so its choice for a state does not depend on the other rows, the
threads or the machine: the same search gives the same run on any number of threads or Ray
workers (BLAS matrix products may round differently for different batch shapes, and a near
tie between two actions would then go either way). The rollouts themselves run in C++ too
(``GameSet.rollouts``), on every core, with no Python between decisions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

import sim_env
from sim_env.actions import action_masks
from sim_env.errors import UserInputError
from sim_env.starts import start_game

# A fall's rank: its distance plus this, below any rollout still running
FELL_RANK = -1e6

# How a rollout ended (rollout_end)
RUNNING, FINISHED, FELL = sim_env.ROLLOUT_RUNNING, sim_env.ROLLOUT_FINISHED, sim_env.ROLLOUT_FELL


@dataclass
class GuidePolicy:
    """Greedy actions of an MLP policy: ``layers`` of (weight (in, out), bias, activation) in
    float64, then the action values ``(heads, actions)`` combined by ``head_weights``."""

    layers: list[tuple[np.ndarray, np.ndarray, str]]
    n_actions: int
    head_weights: np.ndarray  # (heads,): 1 for a scalar critic or actor; quantiles averaged
    frame_skip: int
    action_set: str

    @property
    def native(self) -> sim_env.GuidePolicy:
        """The network in C++, built once (not pickled: a Ray worker builds its own)."""
        if self.__dict__.get("_native") is None:
            self.__dict__["_native"] = sim_env.GuidePolicy(
                [(w, b, act) for w, b, act in self.layers],
                self.n_actions,
                self.head_weights,
                self.masks,
                self.frame_skip,
            )
        return self.__dict__["_native"]

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_native"}

    def values(self, obs: np.ndarray) -> np.ndarray:
        """Action values (n, n_actions) of observations (n, OBS_SIZE)."""
        return self.native.values(np.asarray(obs, dtype=np.float32))

    def act(self, states: np.ndarray) -> np.ndarray:
        """Greedy action index per body state (n, 12, 6)."""
        return self.native.act(np.asarray(states, dtype=np.float64).reshape(-1, 12, 6))

    def act_mask(self, state: np.ndarray) -> int:
        """The greedy action's key mask for one (12, 6) body state (the plain policy's keys)."""
        return int(self.masks[int(self.act(np.asarray(state)[None])[0])])

    def act_obs(self, obs: np.ndarray) -> np.ndarray:
        """Greedy action index per observation (n, OBS_SIZE)."""
        return np.argmax(self.values(obs), axis=1)

    @property
    def masks(self) -> np.ndarray:
        return action_masks(self.action_set).astype(np.int8)


def _mlp(seq: Any) -> list[tuple[np.ndarray, np.ndarray, str]]:
    import torch

    layers: list[tuple[np.ndarray, np.ndarray, str]] = []
    for mod in seq:
        if isinstance(mod, torch.nn.Linear):
            w = mod.weight.detach().cpu().double().numpy().T.copy()
            b = mod.bias.detach().cpu().double().numpy().copy()
            layers.append((w, b, "none"))
        elif isinstance(mod, torch.nn.ReLU | torch.nn.Tanh) and layers:
            w, b, _ = layers[-1]
            layers[-1] = (w, b, "relu" if isinstance(mod, torch.nn.ReLU) else "tanh")
        else:
            raise UserInputError(
                f"--guide takes MLP policies (Linear, ReLU, Tanh); this model has a {type(mod).__name__} layer"
            )
    return layers


def guide_from_model(path: str) -> GuidePolicy:
    """The greedy policy of a model trained by ``qwop train`` (DQN family: argmax of Q;
    PPO/A2C: the most likely action)."""
    from agents.training.model_files import load_model

    model, info = load_model(path)
    return guide_from_sb3(model, info["env"], path)


def guide_from_sb3(model: Any, env: dict[str, Any], path: str = "the model") -> GuidePolicy:
    """The greedy policy of an SB3 model trained on the env options ``env``."""
    if int(env.get("frame_stack", 1)) != 1:
        raise UserInputError(f"--guide needs a model trained with env.frame_stack = 1; {path} stacks frames")
    policy = model.policy
    n_actions = int(model.action_space.n)
    if hasattr(policy, "q_net") and hasattr(policy.q_net, "q_net"):  # DQN, pddqn (also with reward heads)
        layers = _mlp(policy.q_net.q_net)
        out = layers[-1][0].shape[1]
        if hasattr(policy.q_net, "reward_weights"):
            weights = policy.q_net.reward_weights.detach().cpu().double().numpy()
        else:
            weights = np.ones(out // n_actions)
    elif hasattr(policy, "quantile_net"):  # QR-DQN: the mean over quantiles
        layers = _mlp(policy.quantile_net.quantile_net)
        q = layers[-1][0].shape[1] // n_actions
        weights = np.full(q, 1.0 / q)
    elif hasattr(policy, "mlp_extractor") and hasattr(policy, "action_net"):  # PPO, A2C
        layers = _mlp(policy.mlp_extractor.policy_net) + _mlp([policy.action_net])
        weights = np.ones(1)
    else:
        raise UserInputError(f"--guide cannot read the policy of {path} ({type(policy).__name__})")
    if layers[-1][0].shape[1] != len(weights) * n_actions:
        raise UserInputError(f"--guide cannot read the output layer of {path}")
    return GuidePolicy(
        layers, n_actions, np.asarray(weights, dtype=np.float64), int(env["frame_skip"]), str(env["action_set"])
    )


def game_after(keys: np.ndarray, sincos: str = "fma", click_update: int = 0) -> sim_env.GameSet:
    """A set of one game: a game at the start (``sim_env.starts.start_game``) after the update keys
    ``keys`` (where a line of search or a rollout policy's run starts)."""
    sim = start_game(sincos, click_update)
    sim.advance(np.asarray(keys, dtype=np.int8))
    games = sim_env.GameSet(sincos).select(np.zeros(0, dtype=np.int32))
    games.add(sim.snapshot())
    return games


def finished_100m(out: dict[str, Any]) -> np.ndarray:
    """The game's own end: the final jump landed and the score it shows is 100 m."""
    return sim_env.finished_100m(out["ended"], out["landed"], out["score"])


def rollout_rank(out: dict[str, Any]) -> np.ndarray:
    """How good each row's rollout was, higher is better: a finish before any other (the
    faster the better), then the farthest, a fall last."""
    end, x = out["rollout_end"], out["rollout_x"]
    return np.where(end == FINISHED, 1e6 - out["rollout_time"], np.where(end == FELL, x + FELL_RANK, x))


def policy_rollouts(
    games: sim_env.GameSet,
    parent: np.ndarray,
    keys: np.ndarray,
    policy: GuidePolicy,
    lookahead: int,
    threads: int = 1,
    deadline: float | None = None,
) -> dict[str, Any]:
    """For each row c: copy game ``parent[c]``, run ``keys[c]`` (the first decision), then let
    ``policy`` act greedily for ``lookahead`` decisions (stopping when the game ends).

    Returns the first decision's outcome (``state``, ``score_time``, ``score``, ``updates``,
    ``ended``, ``fallen``, ``landed``, as ``GameSet.expand``) and the rollout's: ``rollout_end``
    (RUNNING, FINISHED, FELL), ``rollout_x`` (torso x in metres where it ended),
    ``rollout_time`` (the finish time, else the game time where it ended), ``rollout_state``
    (the body state where it ended), ``rollout_keys``
    (n, lookahead * frame_skip) with ``rollout_len`` updates used, and ``total_updates``.
    ``deadline`` (``time.monotonic()``): stop the rollouts there, all rows at the same depth
    (``rollout_depth``: the decisions they got), for a controller that must answer in time.
    """
    seconds = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
    return games.rollouts(parent, keys, policy.native, lookahead, threads=threads, seconds=seconds)


__all__ = [
    "FELL",
    "FELL_RANK",
    "FINISHED",
    "RUNNING",
    "GuidePolicy",
    "finished_100m",
    "game_after",
    "guide_from_model",
    "guide_from_sb3",
    "policy_rollouts",
    "rollout_rank",
]
