"""``BrowserGame``: the original (or the stand-in) in a browser, driven through the adapter.

    with BrowserGame(game="~/qwop", backend="playwright") as g:
        out = g.replay(keys)            # fresh page, lock-step, shaped like sim_env.replay
        g.new_page(); g.update(9); g.body_state(); g.fallen

Lock-step mode holds back the page's own updates and runs them through the adapter, so a
run in the browser is a pure function of its key sequence (and of the session history:
the game's reset changes how the engine pairs contacts, so ``history`` keeps every update
and reset since the page loaded, replayable with ``sim_env.replay_session``). Real-time
mode lets the page run on its own clock and records every update the page makes; with
:meth:`BrowserGame.stream` the page pushes each record the moment its update has run (what
``browser_env.predicted`` plays on).
"""

from __future__ import annotations

import base64
import io
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from adapter_js import ADAPTER_VERSION
from adapter_js import read as read_adapter_file
from browser_env.channel import ChannelError, DirectChannel
from browser_env.drivers import Driver, make_driver
from browser_env.errors import GameLoadError
from browser_env.server import HOST_NAME, GameServer
from browser_env.watch import Watch
from sim_env.actions import check_mask, check_masks
from sim_env.libm import DEFAULT_VARIANT, identify, mismatch_note, probe_arguments
from sim_env.spec import (
    CLICK_EVENT,
    FLAG_ENDED,
    FLAG_FALLEN,
    FLAG_LANDED,
    HEADER,
    KEYS,
    PARTS,
    REC_FLAGS,
    REC_SCORE,
    REC_SCORE_TIME,
    REC_UPDATE,
    RECORD_SIZE,
    RESET_EVENT_BASE,
    STATE_COLUMNS,
    UNITS_PER_METRE,
    for_page,
)

KEY_NAMES = tuple((name.lower(), bit) for name, bit in KEYS.items())


def decode_records(payload: dict[str, Any]) -> np.ndarray:
    """(n, RECORD_SIZE) float64 from the adapter's base64 payload."""
    raw = base64.b64decode(payload["data"])
    return np.frombuffer(raw, dtype=np.float64).reshape(int(payload["n"]), RECORD_SIZE).copy()


# Adapter calls that answer with records (the rest answer plain JSON).
CANVAS = "#gameContent canvas"  # the original's canvas, where a person clicks to begin
RECORD_CALLS = frozenset({"run", "reset", "state", "initial", "drain", "stream"})


def records_to_trace(records: np.ndarray) -> dict[str, np.ndarray]:
    """Trace-shaped dict (like sim_env.replay's) from adapter records."""
    flags = records[:, REC_FLAGS].astype(np.int64)
    return {
        "state": records[:, HEADER:].reshape(-1, len(PARTS), len(STATE_COLUMNS)).copy(),
        "fallen": ((flags & FLAG_FALLEN) != 0).astype(np.int8),
        "game_ended": ((flags & FLAG_ENDED) != 0).astype(np.int8),
        "jump_landed": ((flags & FLAG_LANDED) != 0).astype(np.int8),
        "score_time": records[:, REC_SCORE_TIME].copy(),
        "score": records[:, REC_SCORE].copy(),
    }


def _check_int8(a: Any, what: str, hi: int) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what} must be a 1-D integer array, got shape {arr.shape} dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() > hi):
        bad = int(np.flatnonzero((arr < 0) | (arr > hi))[0])
        raise ValueError(f"{what}[{bad}] = {int(arr[bad])} is out of range 0..{hi}")
    return arr.astype(np.int8)


class BrowserGame:
    """One browser with the game page, driven through the injected adapter."""

    def __init__(
        self,
        game: str | Path | None = None,
        backend: str = "playwright",
        headless: bool = True,
        mode: str = "lockstep",
        timeout_s: float | None = None,
        browser_path: str | None = None,
        chunk: int = 2000,
        channel: bool = True,
    ) -> None:
        """``game``: the game folder (default: :func:`browser_env.server.default_game_folder`)
        or an ``http(s)://`` URL whose host name contains "foddy". ``timeout_s``: how long a page
        may take to load (default ``$QWOP_LOAD_TIMEOUT`` or 30 s). ``channel``: talk to the
        page over the direct WebSocket channel (fast) rather than only through the driver."""
        if mode not in ("lockstep", "realtime"):
            raise ValueError(f"mode must be 'lockstep' or 'realtime', got {mode!r}")
        self.mode = mode
        self.timeout_s = float(timeout_s if timeout_s is not None else os.environ.get("QWOP_LOAD_TIMEOUT", 30.0))
        self.chunk = chunk
        self.watch: Watch | None = None  # lock-step at the game's pace and/or the canvas captured (browser_env.watch)
        self._server: GameServer | None = None
        self._channel: DirectChannel | None = None
        game_str = str(game or "")
        if game_str.startswith(("http://", "https://")):
            self.url = game_str
            if HOST_NAME.split(".")[0] not in game_str.lower():
                raise ValueError(f"the game's domain lock needs a host name containing 'foddy'; {game_str} has none")
        else:
            self._server = GameServer(game or None)
            self.url = self._server.url
        self._driver: Driver | None = None
        try:
            if channel:
                self._channel = DirectChannel()
            self._driver = make_driver(backend, headless=headless, executable_path=browser_path)
            config = {"mode": mode, "channel": self._channel.url if self._channel else None}
            self._driver.add_init_script(f"window.__QWOP_ADAPTER_CONFIG__ = {json.dumps(config)};")
            self._driver.add_init_script(for_page())
            self._driver.add_init_script(read_adapter_file("qwop_adapter.js"))
        except Exception:
            self.close()
            raise
        self.backend = backend
        self._sincos: str | None = None  # probed on the first page
        self.history: list[int] = []
        self._last: np.ndarray | None = None
        self.loaded = False

    # ------------------------------------------------------------------ page
    @property
    def driver(self) -> Driver:
        assert self._driver is not None
        return self._driver

    @property
    def game_files(self) -> dict[str, Path]:
        """The files served from the user's game folder (empty for a URL)."""
        return dict(self._server.files) if self._server else {}

    def health(self) -> dict[str, Any] | None:
        """The adapter's report: what it found in the page, its mode, counters, errors."""
        return self.driver.evaluate("() => window.__qwopAdapter ? window.__qwopAdapter.health() : null")

    def call(self, method: str, *args: Any) -> Any:
        """One adapter call (see ``adapter_js/qwop_adapter.js``), over the direct channel when
        it is connected, else through the driver. Record calls return ``(records, dropped)``."""
        ch = self._channel
        if ch is not None and ch.connected:
            try:
                flat, dropped = ch.call(method, *args) if method in RECORD_CALLS else (ch.call(method, *args), 0)
            except ChannelError as exc:
                raise GameLoadError(f"the adapter call {method} failed in the page: {exc}") from exc
            if method in RECORD_CALLS:
                return flat.reshape(-1, RECORD_SIZE).copy(), dropped
            return flat
        result = self.driver.evaluate(f"(a) => window.__qwopAdapter.{method}(...a)", list(args))
        if method in RECORD_CALLS:
            return decode_records(result), int(result.get("dropped", 0))
        return result

    def records(self, method: str, *args: Any) -> np.ndarray:
        """The records of an adapter call that answers with records."""
        return self.call(method, *args)[0]

    def _console_tail(self, n: int = 5) -> str:
        lines = [" ".join(str(x).split())[:300] for x in self.driver.console()[-n:]]
        return "the page's console ended with: " + (" | ".join(lines) if lines else "(nothing logged)")

    def new_page(self, start: bool = True) -> dict[str, Any]:
        """Load the page (a fresh engine), wait until the game has loaded, and in lock-step
        mode make the first click, so the game is in the traces' initial state."""
        self.loaded = False
        try:
            self.driver.goto(self.url, self.timeout_s)
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise GameLoadError(f"the page {self.url} did not load: {first}; {self._console_tail()}") from exc
        deadline = time.monotonic() + self.timeout_s
        health: dict[str, Any] | None = None
        while time.monotonic() < deadline:
            health = self.health()
            if health and health.get("found") and health.get("doneLoading") and health.get("runner"):
                break
            if health and health.get("doneLoading") and health.get("missing"):
                break  # loaded, but not the game the adapter knows: say what is missing now
            time.sleep(0.05)
        if not health:
            raise GameLoadError(f"the adapter did not run in {self.url}; {self._console_tail()}")
        if not health.get("found"):
            raise GameLoadError(
                f"the adapter did not find the game object in {self.url} within {self.timeout_s:.0f} s (an object "
                f"with create_player that gets m_world); is this QWOP.min.js the original? Objects that got "
                f"m_world: {json.dumps(health.get('seen'))}; errors: {health.get('errors')}; {self._console_tail()}"
            )
        missing = health.get("missing") or []
        if missing:
            raise GameLoadError(
                f"the game object lacks what the adapter reads: {', '.join(missing[:12])}"
                f"{' and more' if len(missing) > 12 else ''}; this QWOP.min.js differs from the original's "
                f"(see health() of adapter {ADAPTER_VERSION})"
            )
        if not (health.get("doneLoading") and health.get("runner")):
            raise GameLoadError(
                f"the game did not finish loading within {self.timeout_s:.0f} s (doneLoading stayed false); "
                f"{self._console_tail()}"
            )
        if health.get("version") != ADAPTER_VERSION:
            raise GameLoadError(f"adapter version {health.get('version')} != expected {ADAPTER_VERSION}")
        if not health.get("hostOk"):
            raise GameLoadError(
                f"the page is served from {health.get('host')!r}; the game's domain lock stops its engine unless the "
                "host name contains 'foddy' (use the built-in server, which serves foddy.localhost)"
            )
        if self._channel is not None:
            self._channel.wait_connected(min(5.0, self.timeout_s))
        if self._sincos is None:
            self._sincos = self._probe_sincos()
        self.history = []
        self.loaded = True
        if start and self.mode == "lockstep":
            self.call("start")
        if self.mode == "lockstep":
            self.refresh()
        return health

    def _probe_sincos(self) -> str:
        xs = probe_arguments()
        got = self.driver.evaluate("(xs) => xs.map((x) => [Math.sin(x), Math.cos(x)])", [float(x) for x in xs])
        values = np.array(got, dtype=np.float64).reshape(len(xs), 2)
        return identify(values[:, 0], values[:, 1], xs)

    @property
    def sincos(self) -> str:
        """Whose sin/cos the page's Math computes (probed when the first page loads):
        ``"fma"`` or ``"generic"`` (glibc's two builds, ``sim_env.libm``), or ``"neither"``."""
        if self._sincos is None:
            self._need_page()
        return str(self._sincos)

    def sincos_note(self, sim_variant: str = DEFAULT_VARIANT) -> str | None:
        """A one-line warning if the page's sin/cos differ from the simulator's, else None."""
        return mismatch_note(self.sincos, sim_variant)

    def _need_page(self) -> None:
        if not self.loaded:
            self.new_page()

    # ------------------------------------------------------------------ lock-step
    def run(self, keys: Any, stop_on_end: bool = False) -> np.ndarray:
        """One lock-step update per key mask; returns the adapter records (n, RECORD_SIZE)."""
        if self.mode != "lockstep":
            raise RuntimeError("run() needs lock-step mode")
        arr = check_masks(keys, "keys", empty=True)
        self._need_page()
        parts = []
        step = 1 if self.watch is not None else self.chunk  # watched: one update, one picture at a time
        for i in range(0, len(arr), step):
            chunk = arr[i : i + step].tolist()
            rec = self.records("run", chunk, bool(stop_on_end))
            parts.append(rec)
            self.history.extend(int(k) for k in chunk[: len(rec)])
            if self.watch is not None and len(rec):
                self.watch.after_update(self)
            if stop_on_end and len(rec) < len(chunk):
                break
        records = np.concatenate(parts) if parts else np.zeros((0, RECORD_SIZE))
        if len(records):
            self._last = records[-1]
        return records

    def update(self, keys: int) -> None:
        """One lock-step game update with the key mask held (one call to the page)."""
        mask = check_mask(keys)
        if self.mode != "lockstep":
            raise RuntimeError("update() needs lock-step mode")
        self._need_page()
        rec = self.records("run", [mask], False)
        self.history.append(mask)
        self._last = rec[-1]

    def reset(self, keys: int = 0) -> None:
        """What releasing R does: the original's reset() (which runs one update) with keys held."""
        mask = check_mask(keys)
        self._need_page()
        self._last = self.records("reset", mask)[0]
        self.history.append(RESET_EVENT_BASE + mask)

    def replay(self, keys: Any) -> dict[str, np.ndarray]:
        """In a fresh page from the traces' initial state: run the keys until they end or the
        game ends. Returns a dict shaped like ``sim_env.replay``'s."""
        arr = check_masks(keys, "keys", empty=True)
        self.new_page()
        initial = self.body_state()
        out = records_to_trace(self.run(arr, stop_on_end=True))
        out["initial"] = initial
        out["keys"] = arr[: len(out["state"])]
        return out

    def click(self) -> None:
        """Lock-step: the click to begin, through the adapter (firstClick, time 0, intro gone)."""
        self._need_page()
        self.call("start")
        self.history.append(CLICK_EVENT)
        self.refresh()

    def replay_session(self, events: Any, initial_score_time: float = 0.0) -> dict[str, np.ndarray]:
        """A whole session in a fresh page: 0..15 = update with mask, 16+mask = R released,
        32 = the click to begin (a session containing it starts on the intro screen, with the
        game time a recording had at page load)."""
        ev = _check_int8(events, "events", CLICK_EVENT)
        has_click = bool((ev == CLICK_EVENT).any())
        self.new_page(start=not has_click)
        if has_click:
            self.call("setScoreTime", float(initial_score_time))
        initial = self.initial_state()
        rows = []
        i = 0
        while i < len(ev):
            j = i
            while j < len(ev) and ev[j] < RESET_EVENT_BASE:
                j += 1
            if j > i:
                rows.append(self.run(ev[i:j]))
            if j < len(ev):
                if ev[j] == CLICK_EVENT:
                    self.click()
                else:
                    self.reset(int(ev[j]) - RESET_EVENT_BASE)
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
        self._last = self.records("state")[0]
        return self._last

    def initial_state(self) -> np.ndarray:
        """(12, 6): the state at page load, just before the first update with the runner built."""
        return self.records("initial")[0][HEADER:].reshape(len(PARTS), len(STATE_COLUMNS)).copy()

    def initial_score_time(self) -> float:
        """The game time the page had counted at load (the page counts from before its runner
        exists; the click zeroes it)."""
        return float(self.records("initial")[0][REC_SCORE_TIME])

    def observe(self, record: np.ndarray) -> None:
        """Take ``record`` (from :meth:`drain`) as the current state, without asking the page."""
        self._last = np.asarray(record, dtype=np.float64)

    def render(self, frames: int = 2) -> None:
        """Let the page draw ``frames`` animation frames (lock-step holds them back otherwise)."""
        self.call("renderFrames", int(frames))

    def _record(self) -> np.ndarray:
        if self._last is None:
            self._need_page()
            return self.refresh()
        return self._last

    def body_state(self) -> np.ndarray:
        """(12, 6) float64 after the last update, like ``sim_env.QwopSim.body_state``."""
        return self._record()[HEADER:].reshape(len(PARTS), len(STATE_COLUMNS)).copy()

    def _flag(self, bit: int) -> bool:
        return bool(int(self._record()[REC_FLAGS]) & bit)

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
        return float(self._record()[REC_SCORE_TIME])

    @property
    def score(self) -> float:
        return float(self._record()[REC_SCORE])

    @property
    def distance_m(self) -> float:
        return float(self._record()[HEADER]) / UNITS_PER_METRE

    @property
    def updates(self) -> int:
        return int(self._record()[REC_UPDATE])

    # ------------------------------------------------------------------ real input
    def press(self, mask: int, held: int = 0) -> int:
        """Real key events that change the held keys from ``held`` to ``mask``; returns mask."""
        mask = check_mask(mask)
        up = [name for name, bit in KEY_NAMES if held & bit and not mask & bit]
        down = [name for name, bit in KEY_NAMES if mask & bit and not held & bit]
        if up or down:
            self.driver.keys(up, down)
        return mask

    def tap(self, key: str) -> None:
        self.driver.key_down(key)
        self.driver.key_up(key)

    def aim_at_canvas(self) -> None:
        """The mouse over the game's canvas: the next :meth:`click_canvas` sends the button's
        events alone (with Playwright), to land in the update it was sent before."""
        self.driver.aim(CANVAS)

    def click_canvas(self) -> None:
        """A real mouse click on the game's canvas (the original's "click to begin")."""
        self.driver.click(CANVAS)

    def drain(self) -> np.ndarray:
        """Real-time mode: every update the page ran since the last drain, as records."""
        records, dropped = self.call("drain")
        if dropped:
            raise RuntimeError(f"the adapter's ring buffer overflowed: {dropped} updates were lost")
        return records

    def stream(self, on: bool = True) -> np.ndarray:
        """Real-time mode: from now on the page pushes each update's record as soon as the
        update has run (read them with :meth:`pushed`); returns the records not yet drained.
        Needs the direct channel."""
        if self._channel is None or not self._channel.connected:
            raise GameLoadError("streaming needs the direct channel to the page, which is not connected")
        records, dropped = self.call("stream", bool(on))
        if dropped:
            raise RuntimeError(f"the adapter's ring buffer overflowed: {dropped} updates were lost")
        return records

    def pushed(self, timeout_s: float) -> np.ndarray:
        """The records the page pushed since the last call, (n, RECORD_SIZE); waits up to
        ``timeout_s`` for the first when none has come yet (then n may be 0)."""
        assert self._channel is not None
        try:
            got = self._channel.pushed(timeout_s)
        except ChannelError as exc:
            raise GameLoadError(f"the page stopped streaming: {exc}") from exc
        return np.stack(got) if got else np.zeros((0, RECORD_SIZE))

    def clock_offset_ms(self) -> float:
        """Add to the page's clock (records' ``wall_ms``) to get Unix time in ms (``time.time()``)."""
        c = self.call("clock")
        return float(c["timeOrigin"])

    def screenshot(self) -> np.ndarray:
        """The game canvas as an (H, W, 3) uint8 array."""
        from PIL import Image

        if self.mode == "lockstep":
            self.render(2)
        png = self.driver.screenshot_png(CANVAS)
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        if self._driver is not None:
            try:
                self._driver.close()
            finally:
                self._driver = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self._server is not None:
            self._server.close()
            self._server = None

    def __enter__(self) -> BrowserGame:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
