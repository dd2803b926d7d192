"""Reading reference traces and finding where a run departs from one.

A trace (``traces/NAME.npz`` in the reference data, or a demo episode) holds ``keys``
(or ``events`` for a whole session), ``initial``, ``state`` (T, 12, 6) and the per-update
flags and scores. :func:`first_divergence` compares a simulated run with a trace and
names the first update and the first quantity that differ.
"""

from __future__ import annotations

import gzip
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim_env import (
    CLICK_EVENT,
    KEY_O,
    KEY_P,
    KEY_Q,
    KEY_W,
    PART_NAMES,
    STATE_COLUMNS,
    finished_100m,
    replay,
    replay_session,
)
from sim_env.errors import UserInputError, one_line

TRACE_ARRAYS = ("state", "fallen", "game_ended", "jump_landed", "score_time", "score")


def reference_dir() -> Path | None:
    """The reference data folder: $QWOP_REFERENCE, else ../shared/qwop-reference; None when
    there is none, or when $QWOP_REFERENCE is "none" (to test as a clone alone would)."""
    env = os.environ.get("QWOP_REFERENCE")
    if env == "none":
        return None
    candidates = [Path(env)] if env else []
    root = Path(__file__).resolve().parent.parent
    candidates.append(root.parent / "shared" / "qwop-reference")
    for c in candidates:
        if (c / "traces").is_dir():
            return c
    return None


def load_trace(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Load a trace file into a dict of arrays, with a clear error if it is not one."""
    p = Path(path)
    if not p.is_file():
        raise UserInputError(f"trace file not found: {p}")
    what = "a trace: a .npz file of the reference's traces/ or a demo file"
    if not zipfile.is_zipfile(p):
        raise UserInputError(f"{p} is not {what} (it is not a .npz archive)")
    try:
        with np.load(p, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except Exception as exc:  # damaged archive members, object arrays
        raise UserInputError(f"{p} is not {what}: {one_line(exc)[:200]}") from exc
    if "keys" not in data and "events" not in data:
        raise UserInputError(f"{p} is not {what}: it has neither 'keys' nor 'events' (arrays: {sorted(data)})")
    missing = [k for k in TRACE_ARRAYS if k not in data]
    if missing:
        raise UserInputError(f"{p} is not {what}: it lacks the arrays {missing}")
    bad = _schema_fault(data)
    if bad:
        raise UserInputError(f"{p} is not {what}: {bad}")
    return data


def _schema_fault(data: dict[str, np.ndarray]) -> str:
    """What is wrong with a trace's arrays (their kinds, shapes and ranges), or ''."""
    inputs = "events" if "events" in data else "keys"
    a = data[inputs]
    top = CLICK_EVENT if inputs == "events" else KEY_Q | KEY_W | KEY_O | KEY_P
    if a.ndim != 1 or a.dtype.kind not in "iu" or (a.size and (a.min() < 0 or a.max() > top)):
        per = "event" if inputs == "events" else "update"
        return f"'{inputs}' must be whole numbers from 0 to {top}, one per {per}"
    state = data["state"]
    if state.dtype.kind != "f" or state.ndim != 3 or state.shape[1:] != (len(PART_NAMES), len(STATE_COLUMNS)):
        return f"'state' must be numbers shaped (updates, {len(PART_NAMES)}, {len(STATE_COLUMNS)}), got {state.shape}"
    for k in TRACE_ARRAYS:
        if k not in ("state", "initial") and data[k].shape != (len(state),):
            return f"'{k}' must have one value per update ({len(state)}), got shape {data[k].shape}"
    return ""


def simulate(trace: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run the trace's inputs in the simulator (a session if it has events)."""
    if "events" in trace:
        t0 = float(trace["initial_score_time"]) if "initial_score_time" in trace else 0.0
        return replay_session(np.asarray(trace["events"], dtype=np.int8), initial_score_time=t0)
    return replay(np.asarray(trace["keys"], dtype=np.int8))


@dataclass(frozen=True)
class Divergence:
    """The first place where a run departs from its reference."""

    update: int
    quantity: str
    expected: float
    got: float

    def __str__(self) -> str:
        return (
            f"update {self.update}: {self.quantity} expected {self.expected!r}, got {self.got!r} "
            f"(difference {self.got - self.expected:.3e})"
        )


def _bits_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a.astype(np.float64).view(np.uint64) == b.astype(np.float64).view(np.uint64)


def first_divergence(
    reference: dict[str, np.ndarray], run: dict[str, np.ndarray], tolerance: float = 0.0
) -> Divergence | None:
    """First update where ``run`` differs from ``reference``.

    With ``tolerance`` 0 the comparison is bit for bit (signed zeros included); otherwise
    a state value may differ by at most ``tolerance``. Flags and scores always compare
    exactly. A run that stops earlier or later than the reference diverges there.
    """
    t_ref = len(reference["state"])
    t_run = len(run["state"])
    n = min(t_ref, t_run)
    for t in range(n):
        ref_s = reference["state"][t]
        got_s = run["state"][t]
        same = _bits_equal(ref_s, got_s) if tolerance == 0 else np.abs(ref_s - got_s) <= tolerance
        if not same.all():
            part, col = map(int, np.argwhere(~same)[0])
            return Divergence(
                t, f"{PART_NAMES[part]}.{STATE_COLUMNS[col]}", float(ref_s[part, col]), float(got_s[part, col])
            )
        for name in ("fallen", "game_ended", "jump_landed"):
            if int(reference[name][t]) != int(run[name][t]):
                return Divergence(t, name, float(reference[name][t]), float(run[name][t]))
        for name in ("score_time", "score"):
            a, b = np.float64(reference[name][t]), np.float64(run[name][t])
            if a.view(np.uint64) != b.view(np.uint64):
                return Divergence(t, name, float(a), float(b))
    if t_ref != t_run:
        return Divergence(n, "length", float(t_ref), float(t_run))
    return None


SPLIT_M = 10  # metres between split times, as speedrunners read a 100 m run


def split_times(run: dict[str, np.ndarray]) -> list[float]:
    """The run's last episode's split times: the game time (s) at which the distance the game
    shows first reached 10, 20, ... 90 m, then its finish time if it finished 100 m; as far as it
    got otherwise. ``run`` is trace-shaped (``score``, ``score_time``, ``game_ended``,
    ``jump_landed``; a session's resets start a new episode)."""
    t = np.asarray(run["score_time"], dtype=np.float64)
    if not t.size:
        return []
    resets = np.flatnonzero(np.diff(t) < 0)  # game time starts again at 0 with each episode
    first = int(resets[-1]) + 1 if resets.size else 0
    t, score = t[first:], np.asarray(run["score"], dtype=np.float64)[first:]
    out = []
    for m in range(SPLIT_M, 100, SPLIT_M):
        hit = np.flatnonzero(score >= m)
        if not hit.size:
            return out
        out.append(float(t[hit[0]]))
    if finished_100m(run["game_ended"][-1], run["jump_landed"][-1], score[-1]):
        out.append(float(t[-1]))
    return out


def load_detail(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Load a ``NAME.detail.json.gz`` file (engine internals per update)."""
    with gzip.open(path, "rt") as f:
        return json.load(f)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a == b
    return float(a) == float(b)


def first_detail_divergence(keys: np.ndarray, detail: list[dict[str, Any]]) -> tuple[int, str, Any, Any] | None:
    """Replay ``keys`` and compare the engine internals with a detail file.

    Returns (update, section, expected, got) for the first section (contacts, joints,
    bodies, tracks, camera) that differs, or None.
    """
    from sim_env import QwopSim  # sim_env's __init__ imports this module

    sim = QwopSim()
    for t, ref in enumerate(detail):
        if t >= len(keys):
            break
        sim.update(int(keys[t]))
        got = sim.detail()
        for section in ("contacts", "joints", "bodies", "tracks", "camera"):
            if section in ref and not _same(ref[section], got[section]):
                return t, section, ref[section], got[section]
    return None
