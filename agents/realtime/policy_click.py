"""The plain policy's click: the intro-screen update whose clicked start the policy runs fastest from.

Every fresh page of the original is in the same state at each update of its intro screen, and
the click zeroes the clock, so a click that lands in a chosen update gives one exact start state
(``sim_env.starts.clicked_start``; the opening rests on the same fact). The plain
policy's run from such a start, all keys on time, is a fixed run, and it differs a lot from one
update to the next: a policy is fast from the states it was selected on, not from every state
near them (the shipped model: 45.7 to over 53 s over updates 90-300, median 49.6 s). So
``qwop play --horizon 0`` runs the policy from every update of a window in the simulator before
its first page (C++ rollouts, a few seconds) and clicks in the fastest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import sim_env
from agents.realtime.opening import DEFAULT_CLICK_UPDATE
from agents.search.guided_rollouts import FINISHED, GuidePolicy, policy_rollouts, rollout_rank
from sim_env.env_config import EnvConfig
from sim_env.starts import start_game

# From the opening's click (3 s after load: every page is on screen by then) to 10 s after load
# (longer on the intro screen is only a wait for the user).
CLICK_WINDOW = (DEFAULT_CLICK_UPDATE, 300)


@dataclass(frozen=True)
class PolicyClick:
    """Where the plain policy's click lands, and how its run from there went in the simulator."""

    update: int  # the page update the click is meant for
    finished: bool
    time_s: float  # the finish time, else the game time where the run ended
    window: tuple[int, int]

    def describe(self) -> str:
        run = f"finishes in {self.time_s:.2f} s" if self.finished else "does not finish"
        lo, hi = self.window
        return f"the click lands in update {self.update}, the fastest start of updates {lo}-{hi} (the policy {run})"


def best_click(
    guide: GuidePolicy,
    window: tuple[int, int] = CLICK_WINDOW,
    sincos: str = "fma",
    time_limit: float = 120.0,
    threads: int = 1,
) -> PolicyClick:
    """The update of ``window`` (inclusive) whose clicked start the plain policy runs fastest
    from, all keys on time (the earliest of equals)."""
    lo, hi = window
    if not 1 <= lo <= hi:
        raise ValueError(f"the click window must be 1 <= lo <= hi, got {window}")
    updates = np.arange(lo, hi + 1)
    games = sim_env.GameSet(sincos).select(np.zeros(0, dtype=np.int32))
    states = []
    for u in updates:
        sim = start_game(sincos, int(u))
        games.add(sim.snapshot())
        states.append(sim.body_state())
    first = guide.masks[guide.act(np.stack(states))]
    keys = np.repeat(first[:, None], guide.frame_skip, axis=1).astype(np.int8)
    decisions = EnvConfig(time_limit=time_limit).max_updates // guide.frame_skip
    out = policy_rollouts(games, np.arange(len(updates), dtype=np.int32), keys, guide, decisions, threads=threads)
    i = int(np.argmax(rollout_rank(out)))
    return PolicyClick(int(updates[i]), bool(out["rollout_end"][i] == FINISHED), float(out["rollout_time"][i]), window)


__all__ = ["CLICK_WINDOW", "PolicyClick", "best_click"]
