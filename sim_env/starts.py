"""Where a game starts: the traces' start, or a real-time page's state after its click.

A page of the original starts on its intro screen; its updates there move the runner a little,
and the same on every page, and the click zeroes the clock. So a click that lands in update
``click_update`` gives one exact state, the same on any page and machine (the click's own update
included, no keys held): real-time play starts there (``qwop play``), as episodes can
(``EnvConfig.start_click``). ``click_update`` 0 names the traces' start: a page in lock-step mode,
the click made at load and no update run.
"""

from __future__ import annotations

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


__all__ = ["clicked_start", "replay_keys", "start_game"]
