"""The opening: a line of decisions for a real-time game, planned offline from the one state a
well-timed click gives.

A fresh page of the original runs the same updates from load: on the intro screen the runner's
state after update ``u`` is the same in every session, and the click zeroes the page's clock, the
one thing that differs. So a click that lands in a fixed update (``click_update``) gives the
first decision the same exact state every time, and the keys from there can be planned offline
with time to spare: by the planner ``qwop play`` runs in the loop, unhurried (:func:`plan_opening`,
``qwop opening``: a decision every frame skip), or by the guided search from that state (``qwop
search --guide --click-update``: key changes at any update). An opening's decisions are its key
changes, each held until the next.

``qwop play`` clicks so that the click lands in the opening's update, and at every decision whose
exact state is one the opening passes through it sends the opening's keys, in the update they
were planned for, and holds them as long as the opening does. A key change that lands late puts
the game in a state the opening never reached, and the planner in the loop takes over from the
true state; so does the end of an opening planned only part of the way. Following the opening
is a function of the decision's state alone (its snapshot is looked up), so a run's decisions
are made again from its trace as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from sim_env.errors import UserInputError
from sim_env.files import read_tagged_npz, write_new
from sim_env.starts import start_game

FORMAT = "qwop-opening/1"
KEYS = ("format", "click_update", "sincos", "keys", "meta")
# The update the click is sent to land in. A page is first seen some 10 updates after it loads
# (30 or more on a busy machine); 90 (3 s) leaves room for that.
DEFAULT_CLICK_UPDATE = 90


def _key_changes(keys: np.ndarray) -> np.ndarray:
    """The updates (indices into ``keys``) whose keys differ from the update's before: the
    decisions (the first update always is one)."""
    return np.flatnonzero(np.diff(keys, prepend=np.int8(-1)) != 0)


@dataclass(frozen=True)
class Opening:
    """A line of keys from the clicked page's state (``clicked_start``; see the module's
    docstring). Its decisions are its key changes: each is meant for one update and held until
    the next."""

    click_update: int  # the page update the click lands in
    sincos: str  # whose sin/cos the line was planned with (the page's must be the same)
    keys: np.ndarray  # (n,) int8: the keys held in each update after the click's
    meta: dict[str, Any] = field(default_factory=dict)  # how it was planned, and its outcome
    _table: dict[bytes, tuple[int, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.click_update < 2:
            raise ValueError(f"click_update must be 2 or more (update 1 runs unclicked), got {self.click_update}")
        keys = np.asarray(self.keys)
        if keys.ndim != 1 or (len(keys) and (keys.min() < 0 or keys.max() > 15)):
            raise ValueError("keys must be a row of key masks, 0 to 15")
        keys = keys.astype(np.int8)
        object.__setattr__(self, "keys", keys)
        change = _key_changes(keys)
        holds = np.diff(np.append(change, len(keys)))
        table: dict[bytes, tuple[int, int]] = {}
        sim = start_game(self.sincos, self.click_update)
        for at, hold in zip(change, holds, strict=True):
            if sim.game_ended:
                break
            table.setdefault(sim.snapshot(), (int(keys[at]), int(hold)))
            sim.advance(keys[at : at + hold])
        object.__setattr__(self, "_table", table)

    @classmethod
    def from_decisions(cls, click_update: int, sincos: str, masks: np.ndarray, frame_skip: int, **kw: Any) -> Opening:
        """An opening of decisions that each hold their keys ``frame_skip`` updates."""
        return cls(click_update, sincos, np.repeat(np.asarray(masks, dtype=np.int8), frame_skip), **kw)

    @property
    def masks(self) -> np.ndarray:
        """Each decision's keys (a decision per key change), in order."""
        return self.keys[_key_changes(self.keys)]

    def __len__(self) -> int:
        """Decisions: key changes, the first update's keys included."""
        return len(self.masks)

    def decision(self, snapshot: bytes | None) -> tuple[int, int] | None:
        """The opening's keys for a decision whose exact state is ``snapshot`` and the updates
        they are held, or None if the opening never passes through that state."""
        return None if snapshot is None else self._table.get(snapshot)

    def outcome(self) -> dict[str, Any]:
        """Where the line leads in the simulator: finished, game time, distance."""
        sim = start_game(self.sincos, self.click_update)
        for k in self.keys:
            if sim.game_ended:
                break
            sim.update(int(k))
        return {"finished": bool(sim.finished), "time_s": float(sim.score_time), "distance_m": float(sim.distance_m)}

    def describe(self) -> str:
        o = self.outcome()
        end = f"finishes 100 m in {o['time_s']:.2f} s" if o["finished"] else f"reaches {o['distance_m']:.1f} m"
        return f"{len(self)} key changes from a click in update {self.click_update}; {end}"

    def save(self, path: str | Path) -> Path:
        """Writes the opening to ``path`` (a taken name gets a number); returns where."""
        arrays = {
            "format": np.array(FORMAT),
            "click_update": np.array(self.click_update, dtype=np.int64),
            "sincos": np.array(self.sincos),
            "keys": self.keys,
            "meta": np.array(json.dumps(self.meta, sort_keys=True)),
        }
        return write_new(path, lambda f: np.savez_compressed(f, **arrays))


def load_opening(path: str | Path) -> Opening:
    """The opening saved in ``path``, or a one-line error saying what is wrong with the file."""
    missing = f"opening not found: {path} (qwop opening plans one)"
    damaged = f"{path} is not an opening saved by qwop opening or qwop search --click-update (or it is damaged)"
    with read_tagged_npz(path, FORMAT, missing, damaged) as z:
        if set(KEYS) - set(z.files):
            raise UserInputError(damaged)
        return Opening(
            click_update=int(z["click_update"]),
            sincos=str(z["sincos"]),
            keys=np.asarray(z["keys"]),
            meta=dict(json.loads(str(z["meta"]))),
        )


class Planner(Protocol):
    """What :func:`plan_opening` asks of the planner (``BeamController``)."""

    @property
    def frame_skip(self) -> int: ...

    def prepare(self, snapshot: bytes, deadline: float | None = None) -> None: ...

    def decide(self, snapshot: bytes | None, held: int) -> int: ...

    def think(self, deadline: float | None = None) -> None: ...


def plan_opening(
    planner: Planner,
    click_update: int = DEFAULT_CLICK_UPDATE,
    sincos: str = "fma",
    time_limit_s: float = 120.0,
    progress: Callable[[float, float], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> np.ndarray:
    """The planner's decisions from the clicked page's state (``clicked_start``), made as in a
    real-time game whose keys all land on time and whose page waits for every stage: the line
    until the game ends, the time limit passes or ``stop()`` says so. ``progress(game_s,
    metres)`` after each decision."""
    sim = start_game(sincos, click_update)
    planner.prepare(sim.snapshot(), None)
    masks: list[int] = []
    held = 0
    while not sim.game_ended and sim.score_time < time_limit_s:
        if stop is not None and stop():
            break
        held = planner.decide(sim.snapshot(), held)
        masks.append(held)
        planner.think(None)
        sim.advance(np.full(planner.frame_skip, held, dtype=np.int8))
        if progress is not None:
            progress(float(sim.score_time), float(sim.distance_m))
    return np.asarray(masks, dtype=np.int8)


__all__ = ["DEFAULT_CLICK_UPDATE", "Opening", "load_opening", "plan_opening"]
