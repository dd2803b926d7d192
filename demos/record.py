"""``qwop record``: record a person playing in a visible browser.

Every game update the page runs is logged by the adapter (keys held, full state, flags,
game time, wall time) and the whole session from page load is saved: every update, every
R, and the click to begin, so that each episode replays exactly together with its history.
The session is autosaved every few seconds to ``NAME.partial.npz`` (replaced atomically);
the final file gets a fresh name and the autosave is removed. When the browser is closed,
the recording ends and what was recorded is saved, the unfinished episode marked partial.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from adapter_js import ADAPTER_VERSION
from demos.format import episode_starts, is_reset, now_iso, save_demo
from sim_env.interrupts import StopRequest
from sim_env.spec import (
    CLICK_EVENT,
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
    REC_WALL_MS,
    RECORD_SIZE,
    RESET_EVENT_BASE,
    STATE_COLUMNS,
)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


NUM_PARTS, NUM_COLUMNS = len(PARTS), len(STATE_COLUMNS)


def session_arrays(
    initial: np.ndarray, records: np.ndarray, closed_early: bool, initial_score_time: float = 0.0
) -> dict[str, np.ndarray]:
    """Demo arrays from adapter records of a real-time session (see FORMAT.md); ``initial`` is
    the state at page load and ``initial_score_time`` the game time the page had counted then."""
    rows: list[tuple[int, np.ndarray, int, float, float, int, float, int]] = []
    clicked = False
    prev_state = initial
    prev_flags, prev_score = 0, 0.0
    for r in records:
        flags = int(r[REC_FLAGS])
        if not clicked and flags & FLAG_FIRST_CLICK:
            rows.append((CLICK_EVENT, prev_state, prev_flags | FLAG_FIRST_CLICK, 0.0, prev_score, -1, np.nan, -1))
            clicked = True
        event = int(r[REC_EVENT])
        state = r[HEADER:].reshape(NUM_PARTS, NUM_COLUMNS)
        keys = event % RESET_EVENT_BASE
        score = float(r[REC_SCORE])
        wall, update = float(r[REC_WALL_MS]), int(r[REC_UPDATE])
        rows.append((event, state, flags, float(r[REC_SCORE_TIME]), score, keys, wall, update))
        prev_state, prev_flags, prev_score = state, flags, score
    t = len(rows)
    events = np.array([x[0] for x in rows], dtype=np.int8)
    flags = np.array([x[2] for x in rows], dtype=np.int64)
    # Episodes: from the click, and from each reset (whose update is the episode's first).
    starts = episode_starts(events)
    ends = [*starts[1:], t] if starts else []
    episode = np.full(t, -1, dtype=np.int32)
    partial = []
    for k, (s, e) in enumerate(zip(starts, ends, strict=True)):
        episode[s:e] = k
        ended = bool((flags[s:e] & FLAG_ENDED).any())
        partial.append(int(closed_early and k == len(starts) - 1 and not ended))
    return {
        "events": events,
        "initial": np.asarray(initial, dtype=np.float64).reshape(NUM_PARTS, NUM_COLUMNS),
        "state": np.array([x[1] for x in rows], dtype=np.float64).reshape(t, NUM_PARTS, NUM_COLUMNS),
        "fallen": ((flags & FLAG_FALLEN) != 0).astype(np.int8),
        "game_ended": ((flags & FLAG_ENDED) != 0).astype(np.int8),
        "jump_landed": ((flags & FLAG_LANDED) != 0).astype(np.int8),
        "score_time": np.array([x[3] for x in rows], dtype=np.float64),
        "score": np.array([x[4] for x in rows], dtype=np.float64),
        "keys": np.array([x[5] for x in rows], dtype=np.int8),
        "wall_time": np.array([x[6] for x in rows], dtype=np.float64),
        "update_index": np.array([x[7] for x in rows], dtype=np.int64),
        "episode": episode,
        "episode_start": np.array(starts, dtype=np.int64),
        "episode_end": np.array(ends, dtype=np.int64),
        "episode_partial": np.array(partial, dtype=np.int8),
        "initial_score_time": np.array(float(initial_score_time), dtype=np.float64),
    }


class Recorder:
    """Records one session; drive it with :meth:`run` (or :meth:`poll` in a loop)."""

    def __init__(
        self,
        game: str | Path,
        out: str | Path,
        player: str = "anonymous",
        backend: str = "playwright",
        headless: bool = False,
        autosave_s: float = 5.0,
        poll_s: float = 0.05,
    ) -> None:
        self.out = Path(out)
        stem = self.out.name[: -len(".npz")] if self.out.name.endswith(".npz") else self.out.name
        self.autosave_path = self.out.with_name(stem + ".partial.npz")
        self.player = player
        self.autosave_s = autosave_s
        self.poll_s = poll_s
        from browser_env.game import BrowserGame  # the browser extra: session_arrays needs none

        self.game = BrowserGame(game, backend=backend, headless=headless, mode="realtime")
        self._chunks: list[np.ndarray] = []
        self._updates = 0  # records drained so far
        self._resets = 0  # R presses so far (for the progress line)
        self._closed = False
        self._last_save = time.monotonic()
        files = self.game.game_files
        self.meta: dict[str, Any] = {
            "player": player,
            "date": now_iso(),
            "adapter_version": ADAPTER_VERSION,
            "backend": backend,
            "game_url": self.game.url,
            "game_files": {name: sha256(p) for name, p in files.items()},
            "recorder": "qwop record (real-time mode)",
        }
        self.game.new_page(start=False)
        self.initial, self.initial_score_time = self.game.initial_state(), self.game.initial_score_time()

    @property
    def updates(self) -> int:
        return self._updates

    def poll(self) -> bool:
        """Drain new updates; returns False once the browser is gone."""
        if self._closed:
            return False
        try:
            rec = self.game.drain()
        except Exception:
            self._closed = True
            return False
        if len(rec):
            self._chunks.append(rec)
            self._updates += len(rec)
            self._resets += int(is_reset(rec[:, REC_EVENT]).sum())
        if time.monotonic() - self._last_save >= self.autosave_s:
            self._save(self.autosave_path, partial=True, exact=True)
            self._last_save = time.monotonic()
        return True

    def records(self) -> np.ndarray:
        return np.concatenate(self._chunks) if self._chunks else np.zeros((0, RECORD_SIZE))

    def _save(self, path: Path, partial: bool, exact: bool) -> Path | None:
        rec = self.records()
        if not len(rec):
            return None
        arrays = session_arrays(self.initial, rec, closed_early=partial, initial_score_time=self.initial_score_time)
        meta = {**self.meta, "updates": len(rec), "saved": now_iso(), "incomplete": partial}
        return save_demo(path, arrays, meta, exact_name=exact)

    def run(self, until: Callable[[], bool] | None = None, progress: bool = False) -> Path | None:
        """Record until the browser is closed, ``until()`` is true, or Ctrl-C; then save.
        ``progress`` shows the updates and episodes recorded so far."""
        interrupted = False
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(desc="recording", unit=" updates", dynamic_ncols=True)
        # Ctrl-C (or SIGTERM) is taken between polls: raised inside a browser call it would
        # leave that call half done, and the final save could then wait on the browser forever.
        try:
            with StopRequest() as stop:
                while not stop.requested and self.poll():
                    if bar is not None and self.updates != bar.n:
                        bar.update(self.updates - bar.n)
                        bar.set_postfix_str(self._status(), refresh=False)
                    if until is not None and until():
                        break
                    time.sleep(self.poll_s)
                interrupted = stop.requested
        except KeyboardInterrupt:  # a second Ctrl-C
            interrupted = True
        finally:
            if bar is not None:
                bar.close()
        return self.finish(partial=self._closed or interrupted)

    def _status(self) -> str:
        last = self._chunks[-1][-1] if self._chunks else None
        clicked = last is not None and int(last[REC_FLAGS]) & FLAG_FIRST_CLICK
        where = f", {last[REC_SCORE]:.1f} m, {last[REC_SCORE_TIME]:.1f} s" if clicked else ""
        return f"{self._resets + 1} episode(s){where}"

    def finish(self, partial: bool = False) -> Path | None:
        """Save the session under a fresh name (never replacing a file) and close."""
        if not self._closed:
            self.poll()
        path = self._save(self.out, partial=partial or self._closed, exact=False)
        if path is not None and self.autosave_path.exists():
            self.autosave_path.unlink()
        with contextlib.suppress(Exception):
            self.game.close()
        return path


def main_record(game: str | None, out: str, player: str, backend: str, headless: bool) -> int:
    print("Opening the game...", flush=True)
    rec = Recorder(game, out, player=player, backend=backend, headless=headless)
    print("Ready: click the game to begin, play with Q W O P, press R to restart.", flush=True)
    print("Close the browser window (or press Ctrl-C here) to stop; every attempt is saved.", flush=True)
    path = rec.run(progress=True)
    if path is None:
        print("nothing was recorded")
        return 1
    print(f"saved {rec.updates} updates to {path}")
    return 0
