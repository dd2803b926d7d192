"""Vector env over the batched C++ engine: a Gymnasium ``VectorEnv`` (and, through
``agents.training.sb3_env``, a stable-baselines3 ``VecEnv``).

    envs = sim_env.make_vec(64, num_threads=2, action_set="distinct", frame_skip=2)
    obs, info = envs.reset(seed=0)
    obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())

Auto-reset happens in the same step (Gymnasium's ``AutoresetMode.SAME_STEP``): the
returned observation of an env whose episode ended is the first of its next episode, and
``info["final_obs"]`` / ``info["final_info"]`` (with the ``_final_obs`` mask) hold the end
of the finished one. Each env steps exactly like a single ``QwopSim-v0`` with the same
actions.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import sim_env
from sim_env.env_config import EnvConfig, step_keys
from sim_env.observation import OBS_SIZE
from sim_env.rewards import REWARD_TERMS
from sim_env.starts import RunStates, clicked_start


class QwopVecEnv(VectorEnv):
    """N simulated games stepped together in C++."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        num_threads: int | None = None,
        track_keys: bool = False,
        start_keys: Sequence[Any] | None = None,
        config: EnvConfig | None = None,
        **options: Any,
    ) -> None:
        """``config``, or ``options`` as its keywords: :class:`~sim_env.env_config.EnvConfig`.
        ``start_keys``: runs' key masks (one per update from the click to begin) that episodes
        may start inside."""
        if isinstance(num_envs, np.integer):
            num_envs = int(num_envs)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        self.config = EnvConfig.given(config, options)
        self._start_runs = self.config.start_keys(start_keys)
        self._states: RunStates | None = None
        self._max_updates = self.config.max_updates
        threads = num_threads if num_threads is not None else min(os.cpu_count() or 1, num_envs)
        self._batch = sim_env.BatchSim(num_envs, threads, self.config.episode, sincos=self.config.sincos)
        self.num_envs = num_envs
        self._masks = self.config.masks.astype(np.int32)
        self.single_action_space = spaces.Discrete(len(self._masks))
        self.action_space = batch_space(self.single_action_space, num_envs)
        k = self.config.frame_stack
        self.single_observation_space = spaces.Box(-np.inf, np.inf, shape=(OBS_SIZE * k,), dtype=np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        # Key masks of each env's random start (empty without start noise), so that an
        # episode can be replayed exactly: prefix + the masks of its actions.
        self.episode_prefix: list[np.ndarray] = [np.zeros(0, dtype=np.int8) for _ in range(num_envs)]
        # Each env's click update (0: the traces' start; see EnvConfig.start_click): the replay's start.
        self.episode_click = np.zeros(num_envs, dtype=np.int64)
        self._np_random_envs: np.random.Generator = np.random.default_rng()
        # With track_keys, every episode's key masks (start included, one per update run), so
        # that final_info["keys"] replays it exactly (sim_env.replay).
        self.track_keys = track_keys
        self._keys: list[list[int]] = [[] for _ in range(num_envs)]

    @property
    def batch(self) -> sim_env.BatchSim:
        return self._batch

    def _run_states(self) -> RunStates:
        if self._states is None:  # built at the first start inside a run (a few ms a run)
            self._states = RunStates(self._start_runs, self.config.sincos)
        return self._states

    def _start_noise(self, idx: np.ndarray) -> None:
        if not (self.config.start_noise_updates or self._start_runs or self.config.start_click):
            return
        for i in idx:
            click, keys, run = self.config.draw_start(self._np_random_envs, self._start_runs)
            if click:  # the click's own update is the episode's first
                self._batch.start_env(int(i), clicked_start(click, self.config.sincos), 1)
            done = 0
            if run >= 0:  # inside a start run: from its nearest kept state (the same game)
                state, done = self._run_states().before(run, len(keys))
                if done and done < self._max_updates:
                    self._batch.start_env(int(i), state, done)
                else:
                    done = 0
            if keys.size > done:
                self._batch.advance_env(int(i), keys[done:])
            self.episode_click[int(i)] = click
            self.episode_prefix[int(i)] = keys
            if self.track_keys:
                self._keys[int(i)] = [int(k) for k in keys]

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            seeds = [seed] if isinstance(seed, int | np.integer) and not isinstance(seed, bool) else seed
            if not isinstance(seeds, list | tuple) or not all(
                isinstance(x, int | np.integer) and not isinstance(x, bool) and x >= 0 for x in seeds
            ):
                raise TypeError(f"seed must be a whole number >= 0 (or a list of them), got {seed!r}")
            self._np_random_envs = np.random.default_rng(int(seed) if seeds is not seed else [int(x) for x in seeds])
        self._batch.reset()
        self._keys = [[] for _ in range(self.num_envs)]
        everyone = np.arange(self.num_envs)
        self._start_noise(everyone)
        return self._batch.obs.copy(), {"reward_terms": np.zeros((self.num_envs, len(REWARD_TERMS)))}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got shape {a.shape} dtype {a.dtype}")
        if a.min() < 0 or a.max() >= len(self._masks):
            raise ValueError(f"actions must be in 0..{len(self._masks) - 1} (action set {self.config.action_set!r})")
        b = self._batch
        masks = self._masks[a]
        late = self.config.draw_late(self._np_random_envs, self.num_envs)
        if late is not None:
            b.late[:] = late
        b.step(masks)
        if self.track_keys:
            lates = late.tolist() if late is not None else [0] * self.num_envs
            for i, (m, n, d) in enumerate(zip(masks.tolist(), b.step_updates.tolist(), lates, strict=True)):
                self._keys[i].extend(step_keys(self._keys[i], m, n, d))
        terminated = b.terminated.astype(bool)
        truncated = b.truncated.astype(bool)
        done = terminated | truncated
        terms = b.terms.copy()
        reward = b.reward.copy()
        info: dict[str, Any] = {
            "reward_terms": terms,
            "distance_m": b.distance.copy(),
            "score_time": b.score_time.copy(),
        }
        if done.any():
            idx = np.flatnonzero(done)
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in idx:
                final_obs[i] = b.final_obs[i].copy()
            info["final_obs"] = final_obs
            info["_final_obs"] = done.copy()
            finished = terminated & b.finished.astype(bool)
            info["distance_m"][idx] = b.final_state[idx, 0, 0] / sim_env.UNITS_PER_METRE
            info["score_time"][idx] = b.final_time[idx]
            info["final_info"] = {
                "score": np.where(done, b.final_score, 0.0),
                "_score": done.copy(),
                "score_time": np.where(done, b.final_time, 0.0),
                "_score_time": done.copy(),
                "fallen": terminated & b.fallen.astype(bool) & ~finished,
                "_fallen": done.copy(),
                "finished": finished,
                "_finished": done.copy(),
            }
            if self.track_keys:
                keys = np.full(self.num_envs, None, dtype=object)
                for i in idx:
                    keys[i] = np.array(self._keys[i], dtype=np.int8)
                    self._keys[i] = []
                info["final_info"]["keys"] = keys
                info["final_info"]["_keys"] = done.copy()
                info["final_info"]["click_update"] = np.where(done, self.episode_click, 0)
                info["final_info"]["_click_update"] = done.copy()
            info["_final_info"] = done.copy()
            self._start_noise(idx)
        return b.obs.copy(), reward, terminated, truncated & ~terminated, info

    def close_extras(self, **kwargs: Any) -> None:
        del self._batch


def make_vec(num_envs: int, num_threads: int | None = None, **options: Any) -> QwopVecEnv:
    """A vector env of ``num_envs`` simulated games (see ``QwopVecEnv``)."""
    return QwopVecEnv(num_envs, num_threads, **options)
