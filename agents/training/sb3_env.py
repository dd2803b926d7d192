"""stable-baselines3 ``VecEnv`` adapter over the batched simulator.

    from agents.training.sb3_env import make_sb3_vec
    venv = make_sb3_vec(16, num_threads=2, action_set="distinct", frame_skip=2)
    model = stable_baselines3.PPO("MlpPolicy", venv)

Follows SB3's conventions: ``step_wait`` returns (obs, rewards, dones, infos) with one
info dict per env; an env that finished has ``terminal_observation`` and
``TimeLimit.truncated`` in its info and its returned observation is already the first of
the next episode. ``make_sb3_vec`` wraps it in SB3's own ``VecMonitor``, which puts episode
statistics in ``info["episode"]`` (``r``, ``l``, ``t``), so ``ep_rew_mean`` shows in the logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from sim_env.vec_env import QwopVecEnv


class QwopSB3VecEnv(VecEnv):
    """SB3 view of a :class:`QwopVecEnv`."""

    def __init__(self, vec: QwopVecEnv) -> None:
        self.vec = vec
        super().__init__(vec.num_envs, vec.single_observation_space, vec.single_action_space)
        self._actions: np.ndarray | None = None
        self._seed: int | None = None

    def reset(self) -> VecEnvObs:
        obs, _ = self.vec.reset(seed=self._seed)
        self._seed = None
        return obs

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._seed = seed
        return [seed] * self.num_envs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> VecEnvStepReturn:
        assert self._actions is not None, "step_async must be called first"
        obs, reward, terminated, truncated, info = self.vec.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        infos: list[dict[str, Any]] = []
        terms = info["reward_terms"]
        for i in range(self.num_envs):
            d: dict[str, Any] = {"reward_terms": terms[i], "distance_m": float(info["distance_m"][i])}
            if dones[i]:
                d["terminal_observation"] = info["final_obs"][i]
                d["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                fi = info["final_info"]
                d["final_score"] = float(fi["score"][i])
                d["final_time"] = float(fi["score_time"][i])
                d["finished"] = bool(fi["finished"][i])
            infos.append(d)
        return obs, reward.astype(np.float32), dones, infos

    def close(self) -> None:
        self.vec.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self.vec.config, attr_name, None) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError("QwopSB3VecEnv has no per-env attributes to set; create a new env instead")

    def env_method(self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any) -> list[Any]:
        raise AttributeError(f"QwopSB3VecEnv envs have no method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs


def make_sb3_vec(num_envs: int, num_threads: int | None = None, **options: Any) -> VecMonitor:
    """An SB3 VecEnv of ``num_envs`` simulated games, with SB3's episode monitor."""
    return VecMonitor(QwopSB3VecEnv(QwopVecEnv(num_envs, num_threads, **options)))
