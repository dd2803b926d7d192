"""``QwopBrowser-v0``: the game in a browser as a Gymnasium env, with the same observation
and action spaces (and the same options) as ``QwopSim-v0``.

    env = gymnasium.make("QwopBrowser-v0", game="~/qwop", mode="lockstep", backend="playwright")

- ``mode="lockstep"``: the page's own updates are held back; each step runs ``frame_skip``
  updates through the adapter. Episodes start in a fresh page (the traces' initial state),
  so an episode here equals the same actions in ``QwopSim-v0``, bit for bit on the original.
- ``mode="realtime"``: the page runs on its own clock (30 updates/s). Actions are real key
  presses through the browser's input pipeline; a step waits until ``frame_skip`` updates
  have run with the new keys, and ``info["landed_update"]`` is the update (counted since
  page load) in which the keys first took effect; ``info["late_updates"]`` is how many
  updates after the one the decision was meant for (the update right after the observed
  one) that was, 0 when on time. ``info["records"]`` holds every update the page ran during
  the step. ``episode_records`` keeps the whole page session (the intro screen's updates and
  the click included), so an episode's trace replays exactly.

- ``mode="realtime", predict=True``: predicted decisions (``browser_env.predicted``). A mirror
  of the page in the simulator follows it bit for bit; a step sends its keys the moment the page
  has run the update before the one they are meant for, and returns the observation of the
  state just before the next decision's update, computed by the mirror before the page gets
  there, so the agent decides ahead of the page. ``info["late_updates"]`` says where the keys
  landed; the next decision is a frame-skip after that. ``env.unwrapped.play`` is the session
  (its ``mirror``, its decisions' ``stats``). ``settle_s``: seconds on the intro screen before
  the click (default 1, as a person waits; a page's first second runs its updates unevenly).

``env.unwrapped.history`` is the session since page load (``sim_env.replay_session``
events), ``episode_keys()`` the lock-step episode's key masks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import sim_env
from browser_env.game import BrowserGame
from browser_env.pages import LivePage
from browser_env.predicted import PredictedPlay
from sim_env.env_config import EnvConfig
from sim_env.observation import OBS_SIZE
from sim_env.rewards import REWARD_TERMS
from sim_env.spec import (
    FLAG_ENDED,
    FLAG_FIRST_CLICK,
    HEADER,
    REC_EVENT,
    REC_FLAGS,
    REC_UPDATE,
    RESET_EVENT_BASE,
    UPDATES_PER_SECOND,
)
from sim_env.stepper import Advanced, Stepper


class QwopBrowserEnv(gym.Env[np.ndarray, np.int64]):
    """QWOP in a browser (the original, or the stand-in in tests)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": UPDATES_PER_SECOND}

    def __init__(
        self,
        game: str | None = None,
        mode: str = "lockstep",
        backend: str = "playwright",
        headless: bool = True,
        render_mode: str | None = None,
        step_timeout_s: float = 5.0,
        predict: bool = False,
        strict_mirror: bool = False,
        settle_s: float = 1.0,
        start_keys: Sequence[Any] | None = None,
        config: EnvConfig | None = None,
        **options: Any,
    ) -> None:
        self.config = EnvConfig.given(config, options)
        self._start_runs = self.config.start_keys(start_keys)
        if self.config.start_noise_updates and mode == "realtime":
            raise ValueError("start_noise_updates is for lock-step mode")
        if self.config.late_decision_prob:
            raise ValueError("late_decision_prob emulates real time in the simulator; in the browser: mode='realtime'")
        if self.config.start_click:
            raise ValueError("start_click emulates a real-time page's start in the simulator; a real-time page clicks")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if predict and mode != "realtime":
            raise ValueError("predict=True is for mode='realtime' (in lock-step every decision is on time)")
        self.render_mode = render_mode
        self.mode = mode
        self.predict = predict
        self.strict_mirror = strict_mirror
        self.settle_s = float(settle_s)
        self.play: PredictedPlay | None = None
        self._live: LivePage | None = None
        self._point_before = 0
        self.step_timeout_s = step_timeout_s
        self._masks = self.config.masks
        self.action_space = spaces.Discrete(len(self._masks))
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(OBS_SIZE * self.config.frame_stack,), dtype=np.float32
        )
        self.game = BrowserGame(game, backend=backend, headless=headless, mode=mode)
        self._stepper = Stepper(self.config)
        self._keys: list[int] = []
        self._held = 0
        self._step_extra: dict[str, Any] = {}
        self._records: list[np.ndarray] = []  # every update of the episode, as adapter records
        self.episode_initial: np.ndarray | None = None  # the page's state at load, before any update
        self.episode_initial_score_time = 0.0  # the page's game time then

    @property
    def episode_records(self) -> list[np.ndarray]:
        """Every update of the episode's page session, as adapter records (arrays of rows)."""
        if self.play is not None:
            return [np.stack(self.play.records)] if self.play.records else []
        return self._records

    @property
    def history(self) -> list[int]:
        return list(self.game.history)

    def episode_keys(self) -> np.ndarray:
        return np.array(self._keys, dtype=np.int8)

    def _info(self, terms: np.ndarray, **extra: Any) -> dict[str, Any]:
        g = self.game
        info = {
            "reward_terms": terms,
            "distance_m": g.distance_m,
            "score": g.score,
            "score_time": g.score_time,
            "fallen": g.fallen,
            "finished": bool(sim_env.finished_100m(g.game_ended, g.jump_landed, g.score)),
            "episode_updates": self._stepper.updates,
            "updates": g.updates,
        }
        info.update(extra)
        return info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        g = self.game
        self._keys = []
        self._records = []
        self.play = None
        noise = np.zeros(0, dtype=np.int8)
        if self.mode == "lockstep":
            g.new_page()
            _, noise, _ = self.config.draw_start(self.np_random, self._start_runs)  # start_click is refused
            if noise.size:
                self._records.append(g.run(noise))
                self._keys.extend(int(k) for k in noise)
        elif self.predict:
            if self._held:
                g.press(0, self._held)
            self._held = 0
            if self._live is None:
                self._live = LivePage(g)  # one per env: it knows which keys the browser holds
            self.play = PredictedPlay(self._live, self.config.frame_skip, strict=self.strict_mirror)
            self.play.begin(settle_s=self.settle_s)
            self._point_before = self.play.point
            g.observe(self.play.records[-1])
        else:
            if self._held:
                g.press(0, self._held)
            self._held = 0
            g.new_page(start=False)
            g.click_canvas()
            deadline = time.monotonic() + self.step_timeout_s
            while True:
                rec = g.drain()  # the intro screen's updates belong to the session: keep them
                if len(rec):
                    self._records.append(rec)
                if len(rec) and int(rec[-1, REC_FLAGS]) & FLAG_FIRST_CLICK:
                    g.observe(rec[-1])
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError("the click on the canvas did not start the game")
                time.sleep(0.005)
        self.episode_initial = g.initial_state()
        self.episode_initial_score_time = g.initial_score_time()
        obs = self._stepper.begin(g.body_state(), g.score_time, noise.size)
        return obs, self._info(np.zeros(len(REWARD_TERMS)))

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in {self.action_space} (action set {self.config.action_set!r})")
        mask = int(self._masks[int(action)])
        self._step_extra = {}
        r = self._stepper.step(mask, self)
        return r.obs, r.reward, r.terminated, r.truncated, self._info(r.terms, **self._step_extra)

    def advance(self, mask: int, updates: int) -> Advanced:
        """The update source of the stepper: run one step's updates in the page."""
        g = self.game
        if self.play is not None:
            return self._predicted_step(mask)
        if self.mode == "lockstep":
            records = g.run(np.full(updates, mask, dtype=np.int8), stop_on_end=True)
            self._keys.extend([mask] * len(records))
        else:
            meant = int(g.updates) + 1  # the update right after the one observed
            records, landed = self._realtime_step(mask, updates)
            self._step_extra = {"landed_update": landed, "late_updates": max(0, landed - meant), "records": records}
        self._records.append(records)
        return Advanced(g.body_state(), g.score_time, len(records), g.game_ended, g.fallen, g.jump_landed, g.score)

    def _predicted_step(self, mask: int) -> Advanced:
        play = self.play
        assert play is not None
        d = play.act(mask)
        self._step_extra = {
            "intended_update": d.intended,
            "landed_update": d.landed,
            "late_updates": max(0, d.landed - d.intended),
        }
        snap = play.decision_state()
        if snap is None:  # the mirror differed from the page: the page's own state, when it gets there
            state = play.page_state()
            self.game.observe(play.records[-1])
            sim = play.sim
        else:
            sim = sim_env.QwopSim(sincos=play.sim.sincos)
            sim.restore(snap)
            if sim.game_ended:  # the game ends before the next decision: wait for the page's end
                play.finish(wait=True)
                self._held = 0
                sim = play.sim
            state = sim.body_state()
            self.game.observe(play.records[-1])
        updates = play.point - self._point_before
        self._point_before = play.point
        return Advanced(state, sim.score_time, updates, sim.game_ended, sim.fallen, sim.jump_landed, sim.score)

    def _realtime_step(self, mask: int, updates: int) -> tuple[np.ndarray, int]:
        g = self.game
        # Updates the page ran since the last observation still had the old keys; they are
        # part of the episode (its trace must hold every update), not of this decision.
        got: list[np.ndarray] = list(g.drain())
        self._held = g.press(mask, self._held)
        landed = -1
        with_mask = 0
        deadline = time.monotonic() + self.step_timeout_s
        while with_mask < updates:
            for r in g.drain():
                got.append(r)
                if landed < 0 and int(r[REC_EVENT]) % RESET_EVENT_BASE == mask:
                    landed = int(r[REC_UPDATE])
                if landed >= 0:
                    with_mask += 1
                if int(r[REC_FLAGS]) & FLAG_ENDED:
                    with_mask = updates
            if with_mask >= updates:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page ran no update with keys {mask} within {self.step_timeout_s} s")
            time.sleep(0.002)
        records = np.stack(got)
        g.observe(records[-1])
        return records, landed

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        return self.game.screenshot()

    def close(self) -> None:
        self.game.close()


__all__ = ["HEADER", "QwopBrowserEnv"]
