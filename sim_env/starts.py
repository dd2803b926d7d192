"""Where a game starts: the traces' start, or a real-time page's state after its click.

A page of the original starts on its intro screen; its updates there move the runner a little,
and the same on every page, and the click zeroes the clock. So a click that lands in update
``click_update`` gives one exact state, the same on any page and machine (the click's own update
included, no keys held): real-time play starts there (``qwop play``), as episodes can
(``EnvConfig.start_click``). ``click_update`` 0 names the traces' start: a page in lock-step mode,
the click made at load and no update run.

An episode can also start inside a run (``EnvConfig.start_runs``): the state after a run's first
keys. :class:`RunStates` keeps those states every few updates along each run, so that such a
start runs only the keys after the nearest one, not every key from the traces' start.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from sim_env._core import QwopSim, replay


@lru_cache(maxsize=1024)
def clicked_start(click_update: int, sincos: str = "fma") -> bytes:
    """The exact state (a ``QwopSim.snapshot``) of a fresh real-time page's game after the
    click landed in update ``click_update`` (>= 1; no keys held on the intro screen)."""
    if isinstance(click_update, bool) or not isinstance(click_update, int | np.integer) or click_update < 1:
        raise ValueError(f"the click lands in an update >= 1 (a page counts them from 1), got {click_update!r}")
    sim = QwopSim(first_click=False, sincos=sincos)
    sim.advance(np.zeros(int(click_update) - 1, dtype=np.int8))
    sim.click()
    sim.update(0)
    return sim.snapshot()


def start_game(sincos: str = "fma", click_update: int = 0) -> QwopSim:
    """A game at a start: the traces' (``click_update`` 0) or a real-time page's after a click
    in ``click_update`` (:func:`clicked_start`)."""
    sim = QwopSim(sincos=sincos)
    if click_update:
        sim.restore(clicked_start(click_update, sincos))
    return sim


def replay_keys(keys: np.ndarray, sincos: str = "fma", click_update: int = 0) -> dict[str, np.ndarray]:
    """``sim_env.replay`` from a start (:func:`start_game`): per update until the keys or the
    game end, ``state`` (n, 12, 6), ``score_time``, ``score``, ``game_ended``, ``jump_landed``."""
    keys = np.asarray(keys, dtype=np.int8)
    if not click_update:
        return replay(keys, sincos=sincos)
    sim = start_game(sincos, click_update)
    rows: dict[str, list[Any]] = {k: [] for k in ("state", "score_time", "score", "game_ended", "jump_landed")}
    for k in keys:
        sim.update(int(k))
        rows["state"].append(sim.body_state())
        for name in ("score_time", "score", "game_ended", "jump_landed"):
            rows[name].append(getattr(sim, name))
        if sim.game_ended:
            break
    return {k: np.asarray(v) for k, v in rows.items()}


class RunStates:
    """Exact states along start runs (each a run's key masks from the traces' start), after
    every ``every`` updates. The state after keys from a start depends on those keys alone, so
    restoring the nearest state and running the keys after it gives the same game, bit for bit,
    as running them all (32 updates apart: 10 KB a state, 300 KB for a 40 s run)."""

    def __init__(self, runs: Sequence[np.ndarray], sincos: str = "fma", every: int = 32) -> None:
        if every < 1:
            raise ValueError(f"every must be at least 1 update, got {every}")
        self.every = int(every)
        self._states: list[list[bytes]] = []
        for keys in runs:
            sim = QwopSim(sincos=sincos)
            states = [sim.snapshot()]
            for end in range(self.every, len(keys) + 1, self.every):
                sim.advance(np.asarray(keys[end - self.every : end], dtype=np.int8))
                states.append(sim.snapshot())
            self._states.append(states)

    def before(self, run: int, updates: int) -> tuple[bytes, int]:
        """The kept state of ``run`` nearest at or before its first ``updates`` keys, and how
        many keys it is after."""
        j = min(updates // self.every, len(self._states[run]) - 1)
        return self._states[run][j], j * self.every


__all__ = ["RunStates", "clicked_start", "replay_keys", "start_game"]
