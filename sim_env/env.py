"""``QwopSim-v0``: one QWOP game in the native simulator as a Gymnasium env.

    env = gymnasium.make("QwopSim-v0", action_set="distinct", frame_skip=2, reward="speed")

Observation: ``sim_env.observation`` (83 floats per frame, times ``frame_stack``).
Action: an index into the chosen action set (``sim_env.actions``). Episodes start from
the traces' initial state (a fresh page), end when the game ends (a fall, or finishing
100 m), and are truncated at ``time_limit`` game seconds. ``info`` carries the reward
terms, the distance, the game time and the keys held.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import sim_env
from sim_env.env_config import EnvConfig
from sim_env.observation import OBS_SIZE, observe
from sim_env.rewards import REWARD_TERMS, reward_terms


class QwopSimEnv(gym.Env[np.ndarray, np.int64]):
    """A single simulated QWOP game."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        self.config = EnvConfig(**options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self._masks = self.config.masks
        self._weights = self.config.weights
        self.action_space = spaces.Discrete(len(self._masks))
        size = OBS_SIZE * self.config.frame_stack
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        self._sim = sim_env.QwopSim()
        self._frames: list[np.ndarray] = []
        self._keys: list[int] = []
        self._episode_updates = 0

    @property
    def sim(self) -> sim_env.QwopSim:
        """The underlying simulator (for inspection; stepping it directly bypasses the env)."""
        return self._sim

    def episode_keys(self) -> np.ndarray:
        """Every key mask of this episode so far (start noise included), as int8.

        ``sim_env.replay(env.episode_keys())`` reproduces the episode exactly, and so does
        a browser replay on the original, since every episode starts from a fresh page.
        """
        return np.array(self._keys, dtype=np.int8)

    def _obs(self) -> np.ndarray:
        return np.concatenate(self._frames) if self.config.frame_stack > 1 else self._frames[-1]

    def _info(self, terms: np.ndarray) -> dict[str, Any]:
        s = self._sim
        return {
            "reward_terms": terms,
            "distance_m": s.distance_m,
            "score": s.score,
            "score_time": s.score_time,
            "fallen": s.fallen,
            "finished": s.jump_landed,
            "keys": s.keys,
            "episode_updates": self._episode_updates,
        }

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._sim = sim_env.QwopSim()
        self._keys = []
        self._episode_updates = 0
        noise = self.config.draw_start_noise(self.np_random)
        if noise.size:
            self._sim.advance(noise)
            self._keys.extend(int(k) for k in noise)
            self._episode_updates = noise.size
        first = observe(self._sim.body_state())
        self._frames = [first] * self.config.frame_stack
        return self._obs(), self._info(np.zeros(len(REWARD_TERMS)))

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in {self.action_space} (action set {self.config.action_set!r})")
        mask = int(self._masks[int(action)])
        s = self._sim
        before = s.body_state()
        t0 = s.score_time
        truncated = False
        for _ in range(self.config.frame_skip):
            s.update(mask)
            self._keys.append(mask)
            self._episode_updates += 1
            if s.game_ended:
                break
            if self._episode_updates >= self.config.max_updates:
                truncated = True
                break
        after = s.body_state()
        terminated = bool(s.game_ended)
        fell = terminated and s.fallen and not s.jump_landed
        terms = reward_terms(before, after, s.score_time - t0, s.score_time, fell, terminated and s.jump_landed)
        reward = float(terms @ self._weights)
        self._frames = [*self._frames[1:], observe(after)]
        return self._obs(), reward, terminated, truncated and not terminated, self._info(terms)

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        from sim_env.render import render_state

        return render_state(self._sim.body_state(), self._sim.hurdle_state(), self._sim.camera_x)
