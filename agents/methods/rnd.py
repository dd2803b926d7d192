"""Random network distillation (Burda et al. 2018) as an exploration bonus on the env's reward.

A fixed, randomly initialised network maps each observation to features; a second network
learns to predict them from the observations the agent visits. Its error is large on what the
agent has rarely seen, so ``weight(t) x normalised error`` added to the reward pays for
novelty. The weight decays over training (``none``, ``linear`` to zero at ``decay_steps``, or
``exponential`` with half-life ``decay_steps``), so that the run ends on the task's own reward.

:class:`RNDBonus` wraps any SB3 vector env, so it serves every algorithm; it is the
framework's PPO option (``qwop train --set algo.rnd_weight=0.1``). Observations are
normalised by running statistics before both networks, and the error by the running spread
of errors, as in the paper. ``infos[i]["rnd_bonus"]`` holds each step's normalised error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.running_mean_std import RunningMeanStd
from stable_baselines3.common.vec_env import VecEnvWrapper

from agents.methods.rnd_decay import RND_DECAYS, bonus_weight

DECAYS = RND_DECAYS


def _mlp(n_in: int, hidden: int, n_out: int, layers: int) -> torch.nn.Sequential:
    mods: list[torch.nn.Module] = []
    width = n_in
    for _ in range(layers):
        mods += [torch.nn.Linear(width, hidden), torch.nn.LeakyReLU()]
        width = hidden
    mods.append(torch.nn.Linear(width, n_out))
    return torch.nn.Sequential(*mods)


class RND:
    """The two networks and their normalisers (no env): ``bonus(obs)`` and ``learn(obs)``."""

    def __init__(self, obs_size: int, features: int = 64, hidden: int = 128, lr: float = 1e-4, seed: int = 0) -> None:
        with torch.random.fork_rng(devices=[]):  # seeded networks, the global RNG untouched
            torch.manual_seed(seed)
            self.target = _mlp(obs_size, hidden, features, 2).requires_grad_(False)
            self.predictor = _mlp(obs_size, hidden, features, 3)
        self.optimizer = torch.optim.Adam(self.predictor.parameters(), lr=lr)
        self.obs_rms = RunningMeanStd(shape=(obs_size,))
        self.err_rms = RunningMeanStd(shape=())

    def _norm(self, obs: np.ndarray) -> torch.Tensor:
        z = (obs - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + 1e-8)
        return torch.as_tensor(np.clip(z, -5.0, 5.0), dtype=torch.float32)

    def error(self, obs: np.ndarray) -> np.ndarray:
        """The predictor's squared error per observation (unnormalised)."""
        with torch.no_grad():
            x = self._norm(obs)
            return ((self.predictor(x) - self.target(x)) ** 2).mean(dim=1).numpy()

    def bonus(self, obs: np.ndarray, update_stats: bool = True) -> np.ndarray:
        """The error divided by the running spread of errors (a scale that stays put)."""
        if update_stats:
            self.obs_rms.update(obs)
        err = self.error(obs)
        if update_stats:
            self.err_rms.update(err)
        return err / np.sqrt(self.err_rms.var + 1e-8)

    def learn(self, obs: np.ndarray) -> float:
        """One gradient step of the predictor on these observations; returns its loss."""
        x = self._norm(obs)
        loss = ((self.predictor(x) - self.target(x)) ** 2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return float(loss.detach())


class RNDBonus(VecEnvWrapper):
    """Adds ``weight(t) x`` the RND bonus of each step's next observation to its reward."""

    def __init__(
        self,
        venv: Any,
        weight: float = 0.1,
        decay: str = "linear",
        decay_steps: int = 1_000_000,
        learn_batch: int = 256,
        seed: int = 0,
    ) -> None:
        super().__init__(venv)
        if not weight >= 0:
            raise ValueError(f"rnd weight must be >= 0, got {weight}")
        bonus_weight(weight, decay, decay_steps, 0)  # checks the decay's name
        self.weight, self.decay, self.decay_steps = weight, decay, decay_steps
        self.rnd = RND(int(np.prod(venv.observation_space.shape)), seed=seed)
        self.learn_batch = learn_batch
        self.steps = 0
        self.last_loss = float("nan")
        self._pending: list[np.ndarray] = []

    def reset(self) -> Any:
        return self.venv.reset()

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        flat = np.asarray(obs, dtype=np.float32).reshape(self.num_envs, -1).copy()
        for i, done in enumerate(dones):  # the step's own next observation, not the reset one
            if done and "terminal_observation" in infos[i]:
                flat[i] = np.asarray(infos[i]["terminal_observation"], dtype=np.float32).ravel()
        bonus = self.rnd.bonus(flat)
        w = bonus_weight(self.weight, self.decay, self.decay_steps, self.steps)
        self.steps += self.num_envs
        for i in range(self.num_envs):
            infos[i]["rnd_bonus"] = float(bonus[i])
        self._pending.append(flat)
        if sum(len(p) for p in self._pending) >= self.learn_batch:
            self.last_loss = self.rnd.learn(np.concatenate(self._pending))
            self._pending.clear()
        return obs, (rewards + w * bonus).astype(np.float32), dones, infos


class RNDLogger(BaseCallback):
    """Logs the mean bonus of each rollout step and the predictor's last loss (TensorBoard)."""

    def _on_step(self) -> bool:
        infos = self.locals.get("infos") or []
        bonus = [i["rnd_bonus"] for i in infos if "rnd_bonus" in i]
        if bonus:
            self.logger.record_mean("rnd/bonus", float(np.mean(bonus)))
        env = self.training_env
        while env is not None and not isinstance(env, RNDBonus):
            env = getattr(env, "venv", None)
        if env is not None:
            self.logger.record("rnd/weight", bonus_weight(env.weight, env.decay, env.decay_steps, env.steps))
            self.logger.record("rnd/predictor_loss", env.last_loss)
        return True
