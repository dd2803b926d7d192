"""A mirror of a page in the simulator: follows the page update by update, bit for bit.

The page streams one record per update (the keys it held, its flags, time, score and every
part's state). The mirror applies the same event to a :class:`sim_env.QwopSim` that started
where the page started (the state at load, the game time the page had counted, the page's
sin/cos) and checks that its state, flags, time and score equal the record's, bit for bit.
Because the simulator is the game, the mirror can also run ahead of the page: the state a few
updates from now, given the keys held, is known before the page gets there.

    mirror = PageMirror(initial_state, initial_score_time, sincos="fma")
    mirror.follow(record)           # one page update; False (and .divergence) if it differs
    snap = mirror.predict([9, 9])   # the exact state two updates from now with keys 9 held
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import sim_env
from browser_env.errors import BrowserHarnessError
from sim_env.spec import (
    FLAG_ENDED,
    FLAG_FALLEN,
    FLAG_FIRST_CLICK,
    FLAG_LANDED,
    HEADER,
    PARTS,
    REC_EVENT,
    REC_FLAGS,
    REC_SCORE,
    REC_SCORE_TIME,
    REC_UPDATE,
    RESET_EVENT_BASE,
    STATE_COLUMNS,
)


class MirrorDivergedError(BrowserHarnessError):
    """The page and its mirror differ (raised when the mirror is strict)."""


class MirrorUnavailableError(BrowserHarnessError, ValueError):
    """The simulator cannot mirror this page (its sin/cos are neither of glibc's builds)."""


@dataclass(frozen=True)
class Divergence:
    """Where the mirror first differed from the page."""

    update: int  # the page's update index (since its runner was built)
    quantity: str  # e.g. "state[torso, x]", "fallen", "score_time"
    page: float
    mirror: float

    def __str__(self) -> str:
        return (
            f"the mirror differs from the page at update {self.update}: {self.quantity} is "
            f"{self.page!r} in the page, {self.mirror!r} in the mirror"
        )


_FLAG_CHECKS = (("fallen", FLAG_FALLEN), ("game_ended", FLAG_ENDED), ("jump_landed", FLAG_LANDED))


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


class PageMirror:
    """A simulated copy of one page session (from page load), following its records."""

    def __init__(
        self,
        initial_state: np.ndarray,
        initial_score_time: float = 0.0,
        sincos: str = "fma",
        clicked: bool = False,
        strict: bool = False,
    ) -> None:
        """``clicked``: the page's session starts after the click to begin (a lock-step page);
        otherwise on the intro screen, as a page a person loads. ``strict``: raise
        :class:`MirrorDivergedError` on the first difference instead of only recording it."""
        if sincos not in ("fma", "generic"):
            raise MirrorUnavailableError(
                f"the page's sin/cos are {sincos!r}, neither of glibc's builds: the simulator cannot mirror it "
                "exactly (play in Chromium on Linux, or use qwop eval --browser --mode realtime without a mirror)"
            )
        self.sim = sim_env.QwopSim(first_click=clicked, sincos=sincos)
        if not clicked:
            self.sim.score_time = float(initial_score_time)
        self.strict = strict
        self.divergence: Divergence | None = None
        # The page's index of the last update followed: a page counts its updates from 1 (the
        # adapter's update_index), so 0 before the first.
        self.page_update = 0
        self.updates = 0  # updates followed
        self._check_state(np.asarray(initial_state, dtype=np.float64).reshape(len(PARTS), len(STATE_COLUMNS)), -1)

    @property
    def ok(self) -> bool:
        """Whether every update so far equalled the page's."""
        return self.divergence is None

    @property
    def clicked(self) -> bool:
        return bool(self.sim.first_click)

    def follow(self, record: np.ndarray) -> bool:
        """Apply one page update (an adapter record) and check the result; False once the
        mirror has differed (it still follows the page's events, to report, not to predict)."""
        r = np.asarray(record, dtype=np.float64)
        update = int(r[REC_UPDATE])
        if update != self.page_update + 1:
            self._diverged(Divergence(update, "update index (a record was missed)", update, self.page_update + 1))
        self.page_update = update
        flags = int(r[REC_FLAGS])
        if flags & FLAG_FIRST_CLICK and not self.sim.first_click:
            self.sim.click()  # the click came between the previous update and this one
        event = int(r[REC_EVENT])
        if event >= RESET_EVENT_BASE:
            self.sim.reset(event - RESET_EVENT_BASE)
        else:
            self.sim.update(event)
        self.updates += 1
        if self.divergence is None:
            self._check(r, update, flags)
        return self.divergence is None

    def _check(self, r: np.ndarray, update: int, flags: int) -> None:
        sim = self.sim
        for name, bit in _FLAG_CHECKS:
            if bool(flags & bit) != bool(getattr(sim, name)):
                self._diverged(Divergence(update, name, float(bool(flags & bit)), float(getattr(sim, name))))
                return
        for name, col, value in (("score_time", REC_SCORE_TIME, sim.score_time), ("score", REC_SCORE, sim.score)):
            if _bits(np.array([r[col]]))[0] != _bits(np.array([value]))[0]:
                self._diverged(Divergence(update, name, float(r[col]), float(value)))
                return
        self._check_state(r[HEADER:].reshape(len(PARTS), len(STATE_COLUMNS)), update)

    def _check_state(self, page: np.ndarray, update: int) -> None:
        mine = self.sim.body_state()
        diff = _bits(page) != _bits(mine)
        if diff.any():
            p, c = (int(i) for i in np.argwhere(diff)[0])
            self._diverged(
                Divergence(update, f"state[{PARTS[p]}, {STATE_COLUMNS[c]}]", float(page[p, c]), float(mine[p, c]))
            )

    def _diverged(self, d: Divergence) -> None:
        if self.divergence is None:
            self.divergence = d
        if self.strict:
            raise MirrorDivergedError(str(d))

    def predict(self, keys: Any) -> bytes:
        """The exact state after running ``keys`` (one mask per update) from the last update
        followed; the mirror itself stays where it is."""
        keys = np.asarray(keys, dtype=np.int8).reshape(-1)
        if keys.size == 0:
            return self.sim.snapshot()
        here = self.sim.snapshot()
        try:
            self.sim.advance(keys)
            return self.sim.snapshot()
        finally:
            self.sim.restore(here)


__all__ = ["Divergence", "MirrorDivergedError", "MirrorUnavailableError", "PageMirror"]
