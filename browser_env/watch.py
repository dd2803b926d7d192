"""Watching a lock-step page: at the game's own pace, and the real canvas captured as frames.

Lock-step runs the original as fast as the harness asks, far faster than a person can follow,
and holds the page's frames back, so the canvas shows nothing between pictures. A
:class:`Watch` on a :class:`~browser_env.game.BrowserGame` makes it run one update at a time,
let the page draw each (or capture it every ``every`` updates), and wait for the next tick of
the game's clock (30 updates per second): a person at a visible window sees the run as it was
played, and it stays exact (the updates and their records are the same).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim_env.spec import UPDATES_PER_SECOND


@dataclass
class Watch:
    """What to do after each lock-step update (see the module's docstring)."""

    pace_hz: float | None = UPDATES_PER_SECOND  # None: as fast as the page goes
    every: int = 0  # capture the canvas every ``every`` updates (0: none)
    frames: list[np.ndarray] = field(default_factory=list)
    progress: Any = None  # a tqdm bar to advance by one per update
    _updates: int = 0
    _start: float = 0.0

    def __post_init__(self) -> None:
        if self.pace_hz is not None and not self.pace_hz > 0:
            raise ValueError(f"pace_hz must be above 0, got {self.pace_hz}")
        if self.every < 0:
            raise ValueError(f"every must be 0 or more updates, got {self.every}")

    def after_update(self, game: Any) -> None:
        """Draw (or capture) the update the page has just run, then wait for the game's clock."""
        if self._updates == 0:
            self._start = time.monotonic()
        self._updates += 1
        if self.every and (self._updates - 1) % self.every == 0:
            self.frames.append(game.screenshot())
        elif self.pace_hz is not None:
            game.render(1)
        if self.progress is not None:
            self.progress.update(1)
        if self.pace_hz is not None:
            wait = self._start + self._updates / self.pace_hz - time.monotonic()
            if wait > 0:
                time.sleep(wait)

    def last_frame(self, game: Any) -> None:
        """Capture the final picture too, whatever ``every`` left out (a run's end is its point)."""
        if self.every and self._updates and (self._updates - 1) % self.every != 0:
            self.frames.append(game.screenshot())


__all__ = ["Watch"]
