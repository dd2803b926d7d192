"""The env step for games the simulator does not run: the browser env and demo conversion.

The rules of a step (frame skip, time limit, fell/finished, reward terms and their weighted
sum, the stacked observation) are the C++ ``Episode`` that the simulator envs step too;
:class:`Stepper` feeds it the updates an :class:`UpdateSource` ran (a page, a recording).

    stepper = Stepper(config)
    obs = stepper.begin(state, score_time)
    result = stepper.step(mask, source)   # source.advance(mask, n) runs the updates
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from sim_env import _core
from sim_env.env_config import EnvConfig


@dataclass(frozen=True)
class Advanced:
    """Where a source's updates left the game."""

    state: np.ndarray  # (12, 6) body state after the last update
    score_time: float  # game time after it (s)
    updates: int  # updates run (a page may have run more than asked for)
    ended: bool
    fallen: bool
    landed: bool
    score: float  # the game's score after it (m)


class UpdateSource(Protocol):
    def advance(self, mask: int, updates: int) -> Advanced:
        """Run ``updates`` updates with ``mask`` held (stopping when the game ends)."""
        ...


@dataclass(frozen=True)
class StepResult:
    obs: np.ndarray
    reward: float
    terminated: bool
    truncated: bool
    terms: np.ndarray
    updates: int
    fell: bool
    finished: bool


class Stepper:
    """One episode's steps over an update source, with ``config``'s rules."""

    def __init__(self, config: EnvConfig) -> None:
        self.config = config
        self._episode = _core.Episode(config.episode)
        self._time = 0.0

    def begin(self, state: np.ndarray, score_time: float, updates: int = 0) -> np.ndarray:
        """Start the episode at ``state``, ``updates`` into it; returns the first observation."""
        self._episode.begin(np.asarray(state, dtype=np.float64), updates)
        self._time = float(score_time)
        return self._episode.obs

    @property
    def updates(self) -> int:
        return self._episode.updates

    @property
    def obs(self) -> np.ndarray:
        return self._episode.obs

    def step(self, mask: int, source: UpdateSource) -> StepResult:
        got = source.advance(mask, self._episode.updates_for_step())
        out = self._episode.end_step(
            np.asarray(got.state, dtype=np.float64),
            got.score_time - self._time,
            got.score_time,
            got.updates,
            got.ended,
            got.fallen,
            bool(_core.finished_100m(got.ended, got.landed, got.score)),
        )
        self._time = got.score_time
        return StepResult(
            obs=self._episode.obs,
            reward=out["reward"],
            terminated=out["terminated"],
            truncated=out["truncated"],
            terms=out["terms"],
            updates=out["updates"],
            fell=out["fell"],
            finished=out["finished"],
        )


__all__ = ["Advanced", "StepResult", "Stepper", "UpdateSource"]
