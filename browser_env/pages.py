"""The pages that predicted play (``browser_env.predicted``) runs on, behind one interface.

- :class:`LivePage`: the game in a browser, on its own clock (30 updates/s of wall time), the
  keys sent as real key events, each update's record pushed by the page as it runs.
- :class:`LockstepPage`: the game in a browser, held still; an update runs when asked.
- :class:`SimulatedPage`: the simulator standing in for a real-time page, for trying a
  controller without a browser: a session opens on the intro screen a random number of updates
  after the page loaded, as a page a person loads, the click lands in the next update run, and
  a key change lands one update late with probability ``late``, as a press that reaches the
  page after its update.

A page gives records in the adapter's layout (``sim_env.spec``: ``RECORD_SIZE`` float64 per
update) and takes key masks.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

import sim_env
from sim_env.spec import (
    FLAGS,
    HEADER,
    REC_EVENT,
    REC_FLAGS,
    REC_SCORE,
    REC_SCORE_TIME,
    REC_UPDATE,
    REC_WALL_MS,
    RECORD_SIZE,
    UPDATES_PER_SECOND,
)

if TYPE_CHECKING:  # the browser extra: SimulatedPage needs none
    from browser_env.game import BrowserGame


@dataclass
class PageStart:
    """What a freshly loaded page shows before any decision."""

    initial: np.ndarray  # (12, 6) the state at load, before the first update
    initial_score_time: float  # the game time the page had counted then
    sincos: str  # whose sin/cos the page computes ("fma", "generic" or "neither")
    clicked: bool  # the session starts after the click to begin (lock-step pages)
    records: np.ndarray = field(default_factory=lambda: np.zeros((0, RECORD_SIZE)))  # updates run so far


class LivePage:
    """The original (or the stand-in) in a browser at its own pace, played with real key events."""

    kind = "realtime"
    paced = True  # runs on its own clock: a decision has a deadline

    def __init__(self, game: BrowserGame) -> None:
        if game.mode != "realtime":
            raise ValueError("LivePage needs a BrowserGame in real-time mode")
        self.game = game
        self.held = 0
        self._offset_ms = 0.0

    def open(self) -> PageStart:
        g = self.game
        self.release()
        g.new_page(start=False)
        g.aim_at_canvas()
        self._offset_ms = g.clock_offset_ms()
        records = g.stream(True)
        return PageStart(g.initial_state(), g.initial_score_time(), g.sincos, False, records)

    def click(self) -> None:
        self.game.click_canvas()

    def records(self, timeout_s: float) -> np.ndarray:
        return self.game.pushed(timeout_s)

    def press(self, mask: int) -> float:
        """Send the key events from the held keys to ``mask``; returns when they were sent, on
        the page's clock (ms, as records' ``wall_ms``)."""
        sent = time.time() * 1000.0 - self._offset_ms
        self.held = self.game.press(mask, self.held)
        return sent

    def release(self) -> None:
        if self.held:
            self.game.press(0, self.held)
        self.held = 0

    def close(self) -> None:
        self.game.close()


class LockstepPage:
    """The game in a browser, held between updates: each update runs when :meth:`records` asks."""

    kind = "lockstep"
    paced = False

    def __init__(self, game: BrowserGame) -> None:
        if game.mode != "lockstep":
            raise ValueError("LockstepPage needs a BrowserGame in lock-step mode")
        self.game = game
        self.held = 0

    def open(self) -> PageStart:
        g = self.game
        g.new_page()  # the traces' start: the first click made, no update run
        self.held = 0
        return PageStart(g.initial_state(), 0.0, g.sincos, True)

    def click(self) -> None:
        pass  # made when the page opened

    def records(self, timeout_s: float) -> np.ndarray:
        return self.game.run(np.array([self.held], dtype=np.int8))

    def press(self, mask: int) -> float:
        self.held = int(mask)
        return math.nan

    def release(self) -> None:
        self.held = 0

    def close(self) -> None:
        self.game.close()


class SimulatedPage:
    """The simulator as a page: real time emulated (intro screen, late key changes) or not."""

    def __init__(
        self,
        late: float = 0.0,
        seed: int = 0,
        sincos: str = "fma",
        realtime: bool = True,
        intro_updates: tuple[int, int] = (1, 90),
        burst: int = 1,
    ) -> None:
        """``late``: the chance that a key change lands one update after the one it was sent
        before. ``realtime``: open on the intro screen after a random number of
        ``intro_updates`` (uniform, inclusive; :meth:`open` returns their records), else start
        as a lock-step page does. ``burst``:
        updates run and delivered per call of :meth:`records` (a busy browser's records come
        several at once, and keys sent after them land that much later)."""
        if not 0.0 <= late <= 1.0:
            raise ValueError(f"late must be a probability in [0, 1], got {late}")
        if realtime and not 0 <= intro_updates[0] <= intro_updates[1]:
            raise ValueError(f"intro_updates must be a range lo <= hi of non-negative counts, got {intro_updates}")
        if burst < 1:
            raise ValueError(f"burst must be at least 1 update, got {burst}")
        self.kind = "simulated" if realtime else "simulated-lockstep"
        self.burst = int(burst)
        self.paced = False  # the emulation waits for its controller
        self.late = float(late)
        self.realtime = realtime
        self.intro_updates = intro_updates
        self.sincos = sincos
        self.rng = np.random.default_rng(seed)
        self.held = 0
        self._effective = 0
        self._pending: tuple[int, int] | None = None  # keys and the update index they land in
        self._sim: sim_env.QwopSim | None = None
        self._clicking = False  # the click lands in the next update
        self._index = 1

    def open(self) -> PageStart:
        self._sim = sim_env.QwopSim(first_click=not self.realtime, sincos=self.sincos)
        self.held = self._effective = 0
        self._pending = None
        self._index = 1  # a page counts its updates from 1, as the adapter does
        self._clicking = False
        t0, intro = 0.0, 0
        if self.realtime:
            lo, hi = self.intro_updates
            intro = int(self.rng.integers(lo, hi + 1))
            t0 = float(self.rng.integers(0, 90)) / UPDATES_PER_SECOND  # time counted before the runner existed
            self._sim.score_time = t0
        initial = self._sim.body_state()
        records = np.concatenate([np.zeros((0, RECORD_SIZE)), *(self._run_one() for _ in range(intro))])
        return PageStart(initial, t0, self.sincos, not self.realtime, records)

    def click(self) -> None:
        self._clicking = self.realtime

    def records(self, timeout_s: float) -> np.ndarray:
        return np.concatenate([self._run_one() for _ in range(self.burst)])

    def _run_one(self) -> np.ndarray:
        sim = self._sim
        assert sim is not None, "open() first"
        if self._clicking and not sim.first_click:
            sim.click()
        if self._pending is not None and self._index >= self._pending[1]:
            self._effective, self._pending = self._pending[0], None
        sim.update(self._effective)
        rec = np.zeros((1, RECORD_SIZE))
        r = rec[0]
        r[REC_UPDATE] = self._index
        r[REC_EVENT] = self._effective
        r[REC_FLAGS] = (
            FLAGS["fallen"] * sim.fallen
            | FLAGS["game_ended"] * sim.game_ended
            | FLAGS["jump_landed"] * sim.jump_landed
            | FLAGS["jumped"] * sim.jumped
            | FLAGS["first_click"] * sim.first_click
        )
        r[REC_SCORE_TIME] = sim.score_time
        r[REC_SCORE] = sim.score
        r[REC_WALL_MS] = self._index * 1000.0 / UPDATES_PER_SECOND
        r[HEADER:] = sim.body_state().reshape(-1)
        self._index += 1
        return rec

    def press(self, mask: int) -> float:
        mask = int(mask)
        if mask != self.held:
            if self.rng.random() < self.late:
                self._pending = (mask, self._index + 1)  # the next update still runs the old keys
            else:
                self._effective, self._pending = mask, None
        self.held = mask
        return math.nan

    def release(self) -> None:
        self.held = self._effective = 0
        self._pending = None

    def close(self) -> None:
        self._sim = None


__all__ = ["LivePage", "LockstepPage", "PageStart", "SimulatedPage"]
