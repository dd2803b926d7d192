"""``QwopSim-v0``: one QWOP game in the native simulator as a Gymnasium env.

    env = gymnasium.make("QwopSim-v0", action_set="distinct", frame_skip=2, reward="speed")

Observation: ``sim_env.observation`` (83 floats per frame, times ``frame_stack``).
Action: an index into the chosen action set (``sim_env.actions``). Episodes start from
the traces' initial state (a fresh page), end when the game ends (a fall, or finishing
100 m), and are truncated at ``time_limit`` game seconds. ``info`` carries the reward
terms, the distance, the game time and the keys held.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import sim_env
from sim_env import _core
from sim_env.env_config import EnvConfig, step_keys
from sim_env.observation import OBS_SIZE
from sim_env.rewards import REWARD_TERMS
from sim_env.spec import UPDATES_PER_SECOND
from sim_env.starts import clicked_start


class QwopSimEnv(gym.Env[np.ndarray, np.int64]):
    """A single simulated QWOP game: a thin view of one C++ ``Env`` (the batch's step)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": UPDATES_PER_SECOND}

    def __init__(
        self,
        render_mode: str | None = None,
        start_keys: Sequence[Any] | None = None,
        config: EnvConfig | None = None,
        **options: Any,
    ) -> None:
        """``config``, or ``options`` as its keywords: :class:`~sim_env.env_config.EnvConfig`.
        ``start_keys``: runs' key masks (one per update from the click to begin) that episodes
        may start inside."""
        self.config = EnvConfig.given(config, options)
        self._start_runs = self.config.start_keys(start_keys)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self._masks = self.config.masks
        self.action_space = spaces.Discrete(len(self._masks))
        size = OBS_SIZE * self.config.frame_stack
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        self._env = _core.Env(self.config.episode, sincos=self.config.sincos)
        self._keys: list[int] = []
        self.click_update = 0  # the update this episode's click landed in (0: the traces' start)

    @property
    def sim(self) -> sim_env.QwopSim:
        """The underlying game (for inspection; stepping it directly bypasses the env)."""
        return self._env.sim

    def episode_keys(self) -> np.ndarray:
        """Every key mask of this episode so far (start noise included), as int8.

        ``sim_env.replay(env.episode_keys())`` reproduces the episode exactly, and so does
        a browser replay on the original, since every episode starts from a fresh page; an
        episode that started after a click (``click_update``, ``EnvConfig.start_click``) replays
        with ``sim_env.starts.replay_keys(keys, click_update=env.click_update)``.
        """
        return np.array(self._keys, dtype=np.int8)

    def _info(self, terms: np.ndarray) -> dict[str, Any]:
        s = self._env.sim
        return {
            "reward_terms": terms,
            "distance_m": s.distance_m,
            "score": s.score,
            "score_time": s.score_time,
            "fallen": s.fallen,
            "finished": s.finished,
            "keys": s.keys,
            "episode_updates": self._env.updates,
        }

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._env.reset()
        click, noise, _ = self.config.draw_start(self.np_random, self._start_runs)
        if click:  # the click's own update is the episode's first
            self._env.start(clicked_start(click, self.config.sincos), 1)
        if noise.size:
            self._env.advance(noise)
        self.click_update = click
        self._keys = [int(k) for k in noise]
        return self._env.obs, self._info(np.zeros(len(REWARD_TERMS)))

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if isinstance(action, bool) or not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in {self.action_space} (action set {self.config.action_set!r})")
        mask = int(self._masks[int(action)])
        late = self.config.draw_late(self.np_random, 1)
        d = int(late[0]) if late is not None else 0
        out = self._env.step(mask, d)
        self._keys.extend(step_keys(self._keys, mask, out["updates"], d))
        return self._env.obs, out["reward"], out["terminated"], out["truncated"], self._info(out["terms"])

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        from sim_env.render import render_state  # it imports sim_env, whose __init__ registers this env

        s = self._env.sim
        return render_state(s.body_state(), s.hurdle_state(), s.camera_x)
