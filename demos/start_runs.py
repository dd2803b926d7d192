"""Start runs: the keys of recorded runs that env episodes may start inside (a reverse curriculum).

The envs take keys, not files (``start_keys=``); this reads them from demo files or folders,
for example the planner's records or the rollout policy's improved runs.
"""

from __future__ import annotations

import functools

import numpy as np

from demos.format import demo_files, load_demo
from sim_env.actions import MAX_MASK
from sim_env.errors import UserInputError
from sim_env.spec import CLICK_EVENT


@functools.lru_cache(maxsize=16)
def _read(paths: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    runs = []
    for path in demo_files(list(paths)):
        demo = load_demo(path)
        for i in range(demo.num_episodes):
            events = demo.events[demo.episode_rows(i)]
            if len(events) > 1 and events[0] == CLICK_EVENT and np.all((events[1:] >= 0) & (events[1:] <= MAX_MASK)):
                runs.append(events[1:].astype(np.int8))
    if not runs:
        raise UserInputError(f"start_runs: no run from the click to begin in {', '.join(paths)}")
    return tuple(runs)


def start_run_keys(paths: list[str] | tuple[str, ...]) -> list[np.ndarray]:
    """The update keys of every run in these demo files or folders that starts from the click to
    begin (the state every env episode starts from, so that the keys replay it exactly)."""
    return [r.copy() for r in _read(tuple(str(p) for p in paths))]


__all__ = ["start_run_keys"]
