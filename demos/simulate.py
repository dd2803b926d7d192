"""Demo arrays for a session run in the simulator: what an exact recording of it holds.

Used to save simulated runs (``qwop search``, ``qwop eval --trace``) in the demo format,
so that they replay with ``qwop replay FILE --browser`` like a person's recording.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import sim_env
from demos.format import CLICK_EVENT, episode_starts, save_demo
from sim_env.spec import RESET_EVENT_BASE
from sim_env.traces import split_times


def simulated_demo_arrays(events: np.ndarray) -> dict[str, np.ndarray]:
    """Run ``events`` (session events, see FORMAT.md) and return the demo arrays."""
    ev = np.asarray(events, dtype=np.int8)
    out = sim_env.replay_session(ev)
    t = len(ev)
    starts = episode_starts(ev) or [0]
    ends = [*starts[1:], t]
    episode = np.full(t, -1, dtype=np.int32)
    for k, (s, e) in enumerate(zip(starts, ends, strict=True)):
        episode[s:e] = k
    is_update = ev != CLICK_EVENT
    return {
        "events": ev,
        "initial": out["initial"],
        "state": out["state"],
        "fallen": out["fallen"],
        "game_ended": out["game_ended"],
        "jump_landed": out["jump_landed"],
        "score_time": out["score_time"],
        "score": out["score"],
        "keys": np.where(is_update, ev % RESET_EVENT_BASE, -1).astype(np.int8),
        "wall_time": np.full(t, np.nan),
        "update_index": np.where(is_update, np.cumsum(is_update), -1).astype(np.int64),
        "episode": episode,
        "episode_start": np.array(starts, dtype=np.int64),
        "episode_end": np.array(ends, dtype=np.int64),
        "episode_partial": np.zeros(len(starts), dtype=np.int8),
    }


def save_keys_as_demo(keys: np.ndarray, path: str | Path, meta: dict[str, Any]) -> Path:
    """Save a key sequence as a demo file (a fresh page, the click, then the keys), with its split
    times per 10 m in the metadata (``splits_s``)."""
    events = np.concatenate([[CLICK_EVENT], keys]).astype(np.int8)
    arrays = simulated_demo_arrays(events)
    return save_demo(path, arrays, {"source": "simulator", **meta, "splits_s": split_times(arrays)})
