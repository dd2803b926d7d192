"""Predicted decisions: play a page at its own pace with a mirror of it in the simulator.

A decision is meant for one page update: the first update that runs with its keys. Played the
plain way, the decision for update ``u`` is computed once the page has shown update ``u - 1``,
and the keys reach the page after ``u`` has run whenever computing and sending take longer than
the gap between two updates (30 ms typically, much less when a frame comes late).

Here a :class:`~browser_env.mirror.PageMirror` follows the page update by update, bit for bit.
Since the keys held until the next decision are known, the mirror computes the state of update
``u - 1`` before the page runs it, and the decision is ready before it is due. The keys are sent
the moment the page's record of update ``u - 1`` arrives (the page pushes each record as its
update runs), so they land in ``u`` unless the page runs ``u`` within a millisecond or two of
``u - 1``. Where a decision still lands late, the mirror knows where (each record carries the
keys the page held), and the next decision starts from the true state: one frame-skip after the
update where the keys landed.

    play = PredictedPlay(LivePage(BrowserGame(mode="realtime")), frame_skip=4)
    play.begin()                            # fresh page, the click, the first record after it
    while not play.done:
        snap = play.decision_state()        # exact state before the update the decision is for
        play.act(controller(snap))          # sends the keys in time, returns where they landed
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

import sim_env
from browser_env.errors import BrowserHarnessError
from browser_env.mirror import PageMirror
from browser_env.pages import PageStart
from sim_env.spec import (
    HEADER,
    PARTS,
    REC_EVENT,
    REC_UPDATE,
    REC_WALL_MS,
    RESET_EVENT_BASE,
    STATE_COLUMNS,
    UPDATES_PER_SECOND,
)


class Page(Protocol):
    kind: str
    held: int
    paced: bool  # runs on its own clock (decisions have deadlines)

    def open(self) -> PageStart: ...

    def click(self) -> None: ...

    def records(self, timeout_s: float) -> np.ndarray: ...

    def press(self, mask: int) -> float: ...

    def release(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Decision:
    """Where one decision's keys landed."""

    intended: int  # the page update the keys were meant for (index since the runner was built)
    landed: int  # the first update that ran with them (-1: the game ended first)
    mask: int
    changed: bool  # whether keys had to change (else the keys were already held)
    slack_ms: float  # page clock, from sending the keys to the intended update running (nan if unknown)

    @property
    def on_time(self) -> bool:
        return self.landed == self.intended


@dataclass
class PlayStats:
    """A session's decisions and the page's update clock."""

    decisions: list[Decision] = field(default_factory=list)

    @property
    def on_time(self) -> int:
        return sum(d.on_time for d in self.decisions)

    @property
    def late(self) -> int:
        return sum(d.landed > d.intended for d in self.decisions)

    @property
    def very_late(self) -> int:
        return sum(d.landed > d.intended + 1 for d in self.decisions)

    @property
    def changes(self) -> int:
        return sum(d.changed for d in self.decisions)

    def slack_ms(self) -> np.ndarray:
        s = np.array([d.slack_ms for d in self.decisions if d.changed], dtype=np.float64)
        return s[np.isfinite(s)]


# What the next decision needs after work done between decisions: following the page's records,
# the mirror's prediction and committing (a few ms), then sending its keys a millisecond early
NEXT_MARGIN_S = 0.010
# Work on the intro screen ends this long before the click is due: a page's first second runs its
# updates less evenly, and a click that lands an update late makes that work useless
PREPARE_MARGIN_S = 0.100


@dataclass
class WorkMargin:
    """How long before the next keys are due the work between decisions must end. It starts at
    ``most_s`` (a page's first seconds run their updates least evenly, and a start with late
    keys falls) and shrinks toward ``NEXT_MARGIN_S`` by ``keep`` at each key change; whenever
    keys reach the page less than ``wanted_ms`` before their update (or land late), it grows by
    the shortfall, up to ``most_s``: on a busy machine the page's updates come in bursts, its
    records early, and the work gives way before the keys do."""

    wanted_ms: float = 10.0
    most_s: float = 0.060
    keep: float = 0.95
    seconds: float = field(init=False)

    def __post_init__(self) -> None:
        self.seconds = self.most_s

    def update(self, slack_ms: float, late: bool) -> None:
        short = max(0.0, self.wanted_ms - slack_ms) / 1000.0 if math.isfinite(slack_ms) else 0.0
        if late:
            short = max(short, self.wanted_ms / 1000.0)
        self.seconds = min(self.most_s, NEXT_MARGIN_S + (self.seconds - NEXT_MARGIN_S) * self.keep + short)


class PageStoppedError(BrowserHarnessError):
    """The page stopped sending updates."""


class PredictedPlay:
    """One page session played with predicted decisions (see the module's docstring)."""

    def __init__(
        self,
        page: Page,
        frame_skip: int,
        strict: bool = False,
        update_timeout_s: float = 5.0,
    ) -> None:
        """``frame_skip``: updates a decision's keys are held (the model's). ``strict``: stop at
        the first difference between the page and its mirror (else the run goes on, reported,
        with decisions from the page's own records). ``update_timeout_s``: how long the page
        may run no update before it counts as dead."""
        if frame_skip < 1:
            raise ValueError(f"frame_skip must be at least 1, got {frame_skip}")
        self.page = page
        self.frame_skip = int(frame_skip)
        self.strict = strict
        self.update_timeout_s = float(update_timeout_s)
        self.mirror: PageMirror | None = None
        self.start: PageStart | None = None
        self.records: list[np.ndarray] = []  # every update of the session since page load
        self.stats = PlayStats()
        self.point = 0  # the update the next decision is for
        # The update whose state the last decision was given (by decision_state or page_state):
        # point - 1, or a later one when the page had already run past it.
        self.decided_from = 0
        self._arrival = 0.0  # when the last records came (time.monotonic())
        self.first_update = 0  # the first update after the click
        self.margin = WorkMargin()  # how early work between decisions ends (grows under load)
        self.click_meant_for = 0  # the update the click was sent to land in (0: the page opened clicked)

    # ------------------------------------------------------------------ following the page
    def _follow(self, records: np.ndarray) -> None:
        assert self.mirror is not None
        for r in records:
            self.records.append(r)
            self.mirror.follow(r)
        if len(records):
            self._arrival = time.monotonic()

    def _next(self) -> None:
        """Follow the page's next records (at least one), waiting for them."""
        deadline = time.monotonic() + self.update_timeout_s
        while True:
            got = self.page.records(min(0.5, self.update_timeout_s))
            if len(got):
                self._follow(got)
                return
            if time.monotonic() > deadline:
                raise PageStoppedError(f"the page ran no update for {self.update_timeout_s:.0f} s")

    @property
    def last_update(self) -> int:
        assert self.mirror is not None
        return self.mirror.page_update

    @property
    def sim(self) -> sim_env.QwopSim:
        """The mirror's game (the page's state after the last update followed)."""
        assert self.mirror is not None
        return self.mirror.sim

    @property
    def done(self) -> bool:
        return bool(self.sim.game_ended)

    # ------------------------------------------------------------------ a session
    def begin(
        self,
        settle_s: float = 0.0,
        opened: Callable[[], None] | None = None,
        prepare: Callable[[bytes, float | None], None] | None = None,
        click_update: int | None = None,
    ) -> None:
        """A fresh page, the click to begin, and the first update after it. ``settle_s``: how
        long to stay on the intro screen before clicking, as a person does (a page's first
        second, with its first frames drawn, runs its updates less evenly); the click is sent
        the moment the page has run the update before the one it is meant for, as keys are.
        ``opened``: called once the page is open (the player raises the priority of the page's
        processes there). ``prepare(snapshot, deadline)``: work for the first decision while the
        page is on the intro screen, given the exact state that decision will have if the click
        lands in its update, and when the click is due (``time.monotonic()``, None for a page
        that waits). ``click_update``: the update the click is meant for instead, if the page has
        not run it yet (a fresh page's state there is always the same)."""
        self.start = self.page.open()
        if opened is not None:
            opened()
        self.records = []
        self.stats = PlayStats()
        self.margin = WorkMargin()
        self.mirror = PageMirror(
            self.start.initial, self.start.initial_score_time, self.start.sincos, self.start.clicked, self.strict
        )
        self._follow(self.start.records)
        if not self.mirror.clicked:
            click_at = self.last_update + max(1, round(settle_s * UPDATES_PER_SECOND))
            if click_update is not None and click_update > self.last_update:
                click_at = click_update
            self.click_meant_for = click_at
            if prepare is not None and self.mirror.ok:
                prepare(self._clicked_state(click_at), self._due(click_at, PREPARE_MARGIN_S))
            while self.last_update < click_at - 1:
                self._next()
            self.page.click()
            while not self.mirror.clicked:
                self._next()
        elif prepare is not None and self.mirror.ok:
            prepare(self.sim.snapshot(), None)
        # The update that took the click is the episode's first: it ran with no keys held.
        self.first_update = self.last_update
        self.point = self.last_update + 1

    def _clicked_state(self, click_at: int) -> bytes:
        """The exact state after update ``click_at`` if the click lands in it (the keys held
        until then run on)."""
        sim = sim_env.QwopSim(sincos=self.sim.sincos)
        sim.restore(self.sim.snapshot())
        sim.advance(np.full(click_at - 1 - self.last_update, self.page.held, dtype=np.int8))
        sim.click()
        sim.update(self.page.held)
        return sim.snapshot()

    def _due(self, update: int, margin_s: float) -> float | None:
        """When input meant for ``update`` is due (``time.monotonic()``): the expected arrival
        of the page's record of the update before it, less ``margin_s``. None for a page that
        waits for its controller."""
        if not self.page.paced:
            return None
        return self._arrival + (update - 1 - self.last_update) / UPDATES_PER_SECOND - margin_s

    def decision_state(self) -> bytes | None:
        """The exact state just before the update the next decision is for (a snapshot): the
        mirror's state run ahead with the keys held until then, or the last update followed if
        the page has already run past that one (``decided_from`` says which). None once the
        mirror has differed from the page (then decide from :meth:`page_state` when the page gets
        there)."""
        assert self.mirror is not None
        if not self.mirror.ok:
            return None
        ahead = max(0, self.point - 1 - self.last_update)
        self.decided_from = self.last_update + ahead
        return self.mirror.predict(np.full(ahead, self.page.held, dtype=np.int8))

    def deadline(self) -> float | None:
        """When the next decision's keys are due (``time.monotonic()``): the expected arrival of
        the page's record of the update before the decision's, a millisecond early. None for a
        page that waits for its controller."""
        return self._due(self.point, 0.001)

    def _next_deadline(self, hold: int) -> float | None:
        """When the next decision's keys are due if this one's land on time: ``hold`` updates
        after the record of the update before this decision's arrived."""
        if not self.page.paced:
            return None
        return self._arrival + hold / UPDATES_PER_SECOND - self.margin.seconds

    def act(
        self, mask: int, after_send: Callable[[float | None], None] | None = None, hold: int | None = None
    ) -> Decision:
        """Send ``mask`` so that it lands in the update the decision is for; returns where it
        landed and moves the next decision a frame-skip past it. ``after_send(deadline)`` is
        called once the keys are out (or were already held), before waiting to see where they
        landed: work for the next decision, with ``deadline`` (``time.monotonic()``, None for a
        page that waits) when its keys are due if these land on time, less the work margin
        (:class:`WorkMargin`, which these keys' landing then updates). ``hold``: updates until
        the next decision (default: the frame skip)."""
        mask = int(mask)
        hold = self.frame_skip if hold is None else int(hold)
        if hold < 1:
            raise ValueError(f"a decision's keys are held at least 1 update, got {hold}")
        intended = self.point
        while self.last_update < intended - 1 and not self.done:
            self._next()
        changed = mask != self.page.held
        if self.done:  # the game ended before the update the decision was for: nothing to land
            return Decision(intended, -1, mask, changed, math.nan)
        if not changed:
            d = Decision(intended, intended, mask, False, math.nan)
            if after_send is not None:
                after_send(self._next_deadline(hold))
        else:
            sent = self.page.press(mask)
            if after_send is not None:
                after_send(self._next_deadline(hold))
            landed = -1
            # The landing is the first update after the press that ran with all the keys (the
            # page may have run some before they took effect).
            seen = len(self.records)
            while landed < 0 and not self.done:
                self._next()
                for r in self.records[seen:]:
                    if int(r[REC_EVENT]) % RESET_EVENT_BASE == mask:
                        landed = int(r[REC_UPDATE])
                        break
                seen = len(self.records)
            slack = math.nan
            if landed >= 0 and math.isfinite(sent):
                rec = self._record_of(intended)
                if rec is not None:
                    slack = float(rec[REC_WALL_MS]) - sent
            d = Decision(intended, landed, mask, True, slack)
            self.margin.update(slack, landed > intended)
        self.stats.decisions.append(d)
        self.point = max(d.landed, intended) + hold
        return d

    def page_state(self) -> np.ndarray:
        """(12, 6): the page's state that :meth:`decision_state` predicts: the update just before
        the next decision's (waited for), or the last one followed if the page is already past it.
        Records can arrive several at once, so this is that update's record, not the latest."""
        target = max(self.point - 1, self.last_update)
        while self.last_update < target and not self.done:
            self._next()
        self.decided_from = target
        rec = self._record_of(target)
        if rec is None:  # the game ended before that update
            rec = self.records[-1]
        return rec[HEADER:].reshape(len(PARTS), len(STATE_COLUMNS)).copy()

    def _record_of(self, update: int) -> np.ndarray | None:
        for r in reversed(self.records):
            u = int(r[REC_UPDATE])
            if u == update:
                return r
            if u < update:
                break
        return None

    def finish(self, wait: bool = True) -> None:
        """Let go of the keys; with ``wait``, follow the page until the game has ended."""
        self.page.release()
        while wait and not self.done:
            self._next()

    def update_intervals_ms(self) -> np.ndarray:
        """The page's clock: wall time between consecutive updates after the click (ms)."""
        w = np.array([r[REC_WALL_MS] for r in self.records if int(r[REC_UPDATE]) > self.first_update])
        return np.diff(w) if len(w) > 1 else np.zeros(0)


__all__ = ["Decision", "Page", "PageStoppedError", "PlayStats", "PredictedPlay", "WorkMargin"]
