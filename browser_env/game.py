"""``BrowserGame``: the original (or the stand-in) in a browser, driven through the adapter.

    with BrowserGame(game="~/qwop", backend="playwright") as g:
        out = g.replay(keys)            # fresh page, lock-step, shaped like sim_env.replay
        g.new_page(); g.update(9); g.body_state(); g.fallen

Lock-step mode holds back the page's own updates and runs them through the adapter, so a
run in the browser is a pure function of its key sequence (and of the session history:
the game's reset changes how the engine pairs contacts, so ``history`` keeps every update
and reset since the page loaded, replayable with ``sim_env.replay_session``). Real-time
mode lets the page run on its own clock and records every update the page makes (see
``browser_env.realtime``).
"""

from __future__ import annotations

import base64
import io
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from adapter_js import ADAPTER_VERSION
from adapter_js import read as read_adapter_file
from browser_env.drivers import Driver, make_driver
from browser_env.server import HOST_NAME, GameServer

CLICK_EVENT = 32
HEADER = 6
RECORD_SIZE = HEADER + 72
FLAG_FALLEN, FLAG_ENDED, FLAG_LANDED, FLAG_JUMPED, FLAG_PAUSE, FLAG_FIRST_CLICK = 1, 2, 4, 8, 16, 32
KEY_NAMES = (("q", 1), ("w", 2), ("o", 4), ("p", 8))


class GameLoadError(RuntimeError):
    """The game page did not load, or the adapter could not find or drive the game."""


def decode_records(payload: dict[str, Any]) -> np.ndarray:
    """(n, RECORD_SIZE) float64 from the adapter's base64 payload."""
    raw = base64.b64decode(payload["data"])
    return np.frombuffer(raw, dtype=np.float64).reshape(int(payload["n"]), RECORD_SIZE).copy()


def records_to_trace(records: np.ndarray) -> dict[str, np.ndarray]:
    """Trace-shaped dict (like sim_env.replay's) from adapter records."""
    flags = records[:, 2].astype(np.int64)
    return {
        "state": records[:, HEADER:].reshape(-1, 12, 6).copy(),
        "fallen": ((flags & FLAG_FALLEN) != 0).astype(np.int8),
        "game_ended": ((flags & FLAG_ENDED) != 0).astype(np.int8),
        "jump_landed": ((flags & FLAG_LANDED) != 0).astype(np.int8),
        "score_time": records[:, 3].copy(),
        "score": records[:, 4].copy(),
    }


def _check_int8(a: Any, what: str, hi: int) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what} must be a 1-D integer array, got shape {arr.shape} dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() > hi):
        bad = int(np.flatnonzero((arr < 0) | (arr > hi))[0])
        raise ValueError(f"{what}[{bad}] = {int(arr[bad])} is out of range 0..{hi}")
    return arr.astype(np.int8)


def _check_mask(keys: Any) -> int:
    if isinstance(keys, bool) or not isinstance(keys, int | np.integer):
        raise ValueError(f"keys must be an int mask 0..15 (Q=1, W=2, O=4, P=8), got {type(keys).__name__}")
    if not 0 <= int(keys) <= 15:
        raise ValueError(f"key mask {int(keys)} is out of range: use 0..15 (Q=1, W=2, O=4, P=8)")
    return int(keys)


class BrowserGame:
    """One browser with the game page, driven through the injected adapter."""

    def __init__(
        self,
        game: str | Path,
        backend: str = "playwright",
        headless: bool = True,
        mode: str = "lockstep",
        timeout_s: float = 30.0,
        browser_path: str | None = None,
        chunk: int = 2000,
    ) -> None:
        if mode not in ("lockstep", "realtime"):
            raise ValueError(f"mode must be 'lockstep' or 'realtime', got {mode!r}")
        self.mode = mode
        self.timeout_s = timeout_s
        self.chunk = chunk
        self._server: GameServer | None = None
        game_str = str(game)
        if game_str.startswith(("http://", "https://")):
            self.url = game_str
            if HOST_NAME.split(".")[0] not in game_str.lower():
                raise ValueError(f"the game's domain lock needs a host name containing 'foddy'; {game_str} has none")
        else:
            self._server = GameServer(game)
            self.url = self._server.url
        self._driver: Driver | None = None
        try:
            self._driver = make_driver(backend, headless=headless, executable_path=browser_path)
            config = {"mode": mode}
            self._driver.add_init_script(f"window.__QWOP_ADAPTER_CONFIG__ = {json.dumps(config)};")
            self._driver.add_init_script(read_adapter_file("qwop_adapter.js"))
        except Exception:
            self.close()
            raise
        self.backend = backend
        self.history: list[int] = []
        self._last: np.ndarray | None = None
        self.loaded = False

    # ------------------------------------------------------------------ page
    @property
    def driver(self) -> Driver:
        assert self._driver is not None
        return self._driver

    def _health(self) -> dict[str, Any]:
        return self.driver.evaluate("() => window.__qwopAdapter ? window.__qwopAdapter.health() : null")

    def _console_tail(self) -> str:
        lines = self.driver.console()[-30:]
        return "\n  ".join(lines) if lines else "(nothing logged)"

    def new_page(self, start: bool = True) -> dict[str, Any]:
        """Load the page (a fresh engine), wait until the game has loaded, and in lock-step
        mode make the first click, so the game is in the traces' initial state."""
        self.loaded = False
        try:
            self.driver.goto(self.url, self.timeout_s)
        except Exception as exc:
            raise GameLoadError(
                f"the page {self.url} did not load: {exc}\n  console:\n  {self._console_tail()}"
            ) from exc
        deadline = time.monotonic() + self.timeout_s
        health: dict[str, Any] | None = None
        while time.monotonic() < deadline:
            health = self._health()
            if health and health.get("found") and health.get("doneLoading"):
                break
            time.sleep(0.05)
        else:
            if not health:
                raise GameLoadError(f"the adapter did not run in {self.url}\n  console:\n  {self._console_tail()}")
            if not health.get("found"):
                raise GameLoadError(
                    "the adapter did not find the game object (an object with create_player that gets m_world). "
                    f"Objects that got m_world: {json.dumps(health.get('seen'))}; errors: {health.get('errors')}\n"
                    f"  console:\n  {self._console_tail()}"
                )
            raise GameLoadError(
                f"the game did not finish loading within {self.timeout_s:.0f} s (doneLoading stayed false)\n"
                f"  console:\n  {self._console_tail()}"
            )
        if health.get("version") != ADAPTER_VERSION:
            raise GameLoadError(f"adapter version {health.get('version')} != expected {ADAPTER_VERSION}")
        if not health.get("hostOk"):
            raise GameLoadError(
                f"the page is served from {health.get('host')!r}; the game's domain lock stops its engine unless the "
                "host name contains 'foddy' (use the built-in server, which serves foddy.localhost)"
            )
        missing = health.get("missing") or []
        if missing or len(health.get("parts", [])) != 12:
            raise GameLoadError(f"the game object lacks {missing} or some runner parts: found {health.get('parts')}")
        self.history = []
        self.loaded = True
        if start and self.mode == "lockstep":
            self.driver.evaluate("() => window.__qwopAdapter.start()")
        if self.mode == "lockstep":
            self.refresh()
        return health

    def _need_page(self) -> None:
        if not self.loaded:
            self.new_page()

    # ------------------------------------------------------------------ lock-step
    def run(self, keys: Any, stop_on_end: bool = False) -> np.ndarray:
        """One lock-step update per key mask; returns the adapter records (n, RECORD_SIZE)."""
        if self.mode != "lockstep":
            raise RuntimeError("run() needs lock-step mode")
        arr = _check_int8(keys, "keys", 15)
        self._need_page()
        parts = []
        for i in range(0, len(arr), self.chunk):
            chunk = arr[i : i + self.chunk].tolist()
            rec = decode_records(
                self.driver.evaluate("([m, s]) => window.__qwopAdapter.run(m, s)", [chunk, bool(stop_on_end)])
            )
            parts.append(rec)
            self.history.extend(int(k) for k in chunk[: len(rec)])
            if stop_on_end and len(rec) < len(chunk):
                break
        records = np.concatenate(parts) if parts else np.zeros((0, RECORD_SIZE))
        if len(records):
            self._last = records[-1]
        return records

    def update(self, keys: int) -> None:
        """One lock-step game update with the key mask held."""
        self.run(np.array([_check_mask(keys)], dtype=np.int8))

    def reset(self, keys: int = 0) -> None:
        """What releasing R does: the original's reset() (which runs one update) with keys held."""
        mask = _check_mask(keys)
        self._need_page()
        self._last = decode_records(self.driver.evaluate("(m) => window.__qwopAdapter.reset(m)", mask))[0]
        self.history.append(16 + mask)

    def replay(self, keys: Any) -> dict[str, np.ndarray]:
        """In a fresh page from the traces' initial state: run the keys until they end or the
        game ends. Returns a dict shaped like ``sim_env.replay``'s."""
        arr = _check_int8(keys, "keys", 15)
        self.new_page()
        initial = self.body_state()
        out = records_to_trace(self.run(arr, stop_on_end=True))
        out["initial"] = initial
        out["keys"] = arr[: len(out["state"])]
        return out

    def click(self) -> None:
        """Lock-step: the click to begin, through the adapter (firstClick, time 0, intro gone)."""
        self._need_page()
        self.driver.evaluate("() => window.__qwopAdapter.start()")
        self.history.append(CLICK_EVENT)
        self.refresh()

    def replay_session(self, events: Any) -> dict[str, np.ndarray]:
        """A whole session in a fresh page: 0..15 = update with mask, 16+mask = R released,
        32 = the click to begin (a session containing it starts on the intro screen)."""
        ev = _check_int8(events, "events", CLICK_EVENT)
        has_click = bool((ev == CLICK_EVENT).any())
        self.new_page(start=not has_click)
        initial = decode_records(self.driver.evaluate("() => window.__qwopAdapter.initial()"))[0]
        initial = initial[HEADER:].reshape(12, 6).copy()
        rows = []
        i = 0
        while i < len(ev):
            j = i
            while j < len(ev) and ev[j] < 16:
                j += 1
            if j > i:
                rows.append(self.run(ev[i:j]))
            if j < len(ev):
                if ev[j] == CLICK_EVENT:
                    self.click()
                else:
                    self.reset(int(ev[j]) - 16)
                rows.append(self._last[None, :].copy())
                j += 1
            i = j
        out = records_to_trace(np.concatenate(rows) if rows else np.zeros((0, RECORD_SIZE)))
        out["initial"] = initial
        out["events"] = ev
        return out

    # ------------------------------------------------------------------ state
    def refresh(self) -> np.ndarray:
        """Read the current state from the page (needed in real-time mode)."""
        self._last = decode_records(self.driver.evaluate("() => window.__qwopAdapter.state()"))[0]
        return self._last

    def _record(self) -> np.ndarray:
        if self._last is None:
            self._need_page()
            return self.refresh()
        return self._last

    def body_state(self) -> np.ndarray:
        """(12, 6) float64 after the last update, like ``sim_env.QwopSim.body_state``."""
        return self._record()[HEADER:].reshape(12, 6).copy()

    def _flag(self, bit: int) -> bool:
        return bool(int(self._record()[2]) & bit)

    @property
    def fallen(self) -> bool:
        return self._flag(FLAG_FALLEN)

    @property
    def game_ended(self) -> bool:
        return self._flag(FLAG_ENDED)

    @property
    def jump_landed(self) -> bool:
        return self._flag(FLAG_LANDED)

    @property
    def score_time(self) -> float:
        return float(self._record()[3])

    @property
    def score(self) -> float:
        return float(self._record()[4])

    @property
    def distance_m(self) -> float:
        return float(self._record()[HEADER]) / 10.0

    @property
    def updates(self) -> int:
        return int(self._record()[0])

    # ------------------------------------------------------------------ real input
    def press(self, mask: int, held: int = 0) -> int:
        """Real key events that change the held keys from ``held`` to ``mask``; returns mask."""
        mask = _check_mask(mask)
        for name, bit in KEY_NAMES:
            if held & bit and not mask & bit:
                self.driver.key_up(name)
        for name, bit in KEY_NAMES:
            if mask & bit and not held & bit:
                self.driver.key_down(name)
        return mask

    def tap(self, key: str) -> None:
        self.driver.key_down(key)
        self.driver.key_up(key)

    def click_canvas(self) -> None:
        """A real mouse click on the game's canvas (the original's "click to begin")."""
        self.driver.click("#gameContent canvas")

    def drain(self) -> np.ndarray:
        """Real-time mode: every update the page ran since the last drain, as records."""
        payload = self.driver.evaluate("() => window.__qwopAdapter.drain()")
        if payload.get("dropped"):
            raise RuntimeError(f"the adapter's ring buffer overflowed: {payload['dropped']} updates were lost")
        return decode_records(payload)

    def screenshot(self) -> np.ndarray:
        """The game canvas as an (H, W, 3) uint8 array."""
        from PIL import Image

        png = self.driver.screenshot_png("#gameContent canvas")
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        if self._driver is not None:
            try:
                self._driver.close()
            finally:
                self._driver = None
        if self._server is not None:
            self._server.close()
            self._server = None

    def __enter__(self) -> BrowserGame:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
