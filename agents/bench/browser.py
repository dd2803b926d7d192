"""Browser harness throughput on a running workload (run by hand, and in CI as a smoke run).

    python -m agents.bench.browser [--game DIR] [--backend playwright|selenium] [--quick]

The workload is the built-in gait (``sim_env.gaits.SHUFFLE``), which runs without falling, so
every update has contacts and the full solver. It uses the original in the default game
folder (or ``--game``) when it is there, otherwise the open stand-in page (whose planck.js
physics then counts in the figures), and prints:

- in-page: the adapter's ``run()`` timed inside the page (the game's own cost);
- lock-step batched: many updates per call through the Python API;
- lock-step one call per step: one update and its state per call, after a warm-up, as a
  closed-loop agent steps (over the direct channel, and through the driver alone);
- real-time: the page's own pace with real key presses (updates/s, lost, doubled).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from agents.usage import OneLineParser
from browser_env.drivers import BACKENDS
from browser_env.errors import GameFolderError
from browser_env.game import BrowserGame
from browser_env.server import find_game_files
from browser_env.standin import build_standin
from sim_env.gaits import SHUFFLE, gait_keys
from sim_env.spec import UPDATES_PER_SECOND


def _warm_page(g: BrowserGame, keys: np.ndarray) -> None:
    """A fresh page whose JIT has run the workload twice, each time followed by R, so the
    timed run starts over (the gait finishes 100 m after about 4,400 updates, never falling)."""
    g.new_page()
    for _ in range(2):
        g.run(keys)
        g.reset(0)


def _in_page_ms(g: BrowserGame, keys: np.ndarray) -> float:
    """Milliseconds the page takes to run the keys through the adapter's run() (the game's
    update plus the adapter's record), timed inside the page."""
    return g.driver.evaluate(
        "(m) => { const t0 = performance.now(); window.__qwopAdapter.run(m, true); return performance.now() - t0; }",
        keys.tolist(),
    )


def _one_call_rate(g: BrowserGame, keys: np.ndarray, warmup: int) -> float:
    _warm_page(g, keys[:warmup])
    t0 = time.perf_counter()
    for k in keys[warmup:]:
        g.update(int(k))
        g.body_state()
    return (len(keys) - warmup) / (time.perf_counter() - t0)


def _realtime(g: BrowserGame, seconds: float) -> tuple[float, int, int, int]:
    g.new_page(start=False)
    g.click_canvas()
    g.drain()
    rows, held = [], 0
    phases = [(mask, n / UPDATES_PER_SECOND) for mask, n in SHUFFLE]
    t0 = time.monotonic()
    i = 0
    next_change = t0
    while time.monotonic() - t0 < seconds:
        if time.monotonic() >= next_change:  # the gait pressed on the keyboard at its pace
            mask, dur = phases[i % len(phases)]
            held = g.press(mask, held)
            next_change += dur
            i += 1
        rows.append(g.drain())
        time.sleep(0.01)
    elapsed = time.monotonic() - t0
    rows.append(g.drain())
    g.press(0, held)
    rec = np.concatenate(rows)
    steps = np.diff(rec[:, 0])
    return len(rec) / elapsed, len(rec), int((steps > 1).sum()), int((steps < 1).sum())


def original_engine_rate(
    folder: str | None = None, backend: str = "playwright", updates: int = 4000, repeats: int = 5
) -> float:
    """Updates/s of the original's own engine in Chromium on the gait workload (timed inside
    the page, JIT warmed): the best of `repeats` timed runs of `updates` updates, each from a
    reset, as ``python -m agents.bench.sim`` times the simulator (a burst of this VM's neighbours
    in one run does not decide the figure). The reference the simulator's speed is stated
    against."""
    keys = gait_keys(SHUFFLE, updates)
    best = 0.0
    with BrowserGame(folder or None, backend=backend) as g:
        _warm_page(g, keys)
        for _ in range(repeats):
            best = max(best, len(keys) / (_in_page_ms(g, keys) / 1000))
            g.reset(0)
    return best


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m agents.bench.browser", description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--game", help="game folder (default: the default game folder if it holds the game, else the stand-in)"
    )
    ap.add_argument("--backend", default="playwright", choices=BACKENDS)
    ap.add_argument("--quick", action="store_true", help="a short smoke run")
    ap.add_argument(
        "--original-engine",
        action="store_true",
        help="only print the original engine's updates/s (for python -m agents.bench.sim); exit 3 if unavailable",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.original_engine:
        try:
            find_game_files(args.game or None)
            print(f"ORIGINAL_ENGINE_UPDATES_PER_S={original_engine_rate(args.game, args.backend):.0f}")
            return 0
        except Exception as exc:  # the reason goes to the caller in one line
            print(f"unavailable: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}")
            return 3
    n = 1500 if args.quick else 4000  # timed updates per page (the gait finishes at ~4,400)
    single = 600 if args.quick else 4000
    rt_seconds = 3.0 if args.quick else 30.0
    keys = gait_keys(SHUFFLE, n)
    with tempfile.TemporaryDirectory() as tmp:
        folder: str | Path
        if args.game:
            folder, which = args.game, "original"
        else:
            try:
                find_game_files()
                folder, which = "", "original (default game folder)"
            except GameFolderError:
                folder, which = build_standin(tmp), "stand-in (planck.js)"
        with BrowserGame(folder or None, backend=args.backend) as g:
            _warm_page(g, keys)
            in_page_ms = _in_page_ms(g, keys)
            _warm_page(g, keys)
            t0 = time.perf_counter()
            done = len(g.run(keys, stop_on_end=True))
            batched = done / (time.perf_counter() - t0)
            one_call = _one_call_rate(g, keys[: single + 1000], 1000)
        with BrowserGame(folder or None, backend=args.backend, channel=False) as g:
            driver_only = _one_call_rate(g, keys[: min(single, 300) + 1000], 1000)
        with BrowserGame(folder or None, backend=args.backend, mode="realtime") as g:
            rt_rate, rt_n, lost, doubled = _realtime(g, rt_seconds)
    in_page = len(keys) / (in_page_ms / 1000)
    tag = f"{which}, {args.backend}"
    print(f"{tag}: workload: the built-in gait (runs without falling)")
    print(f"{tag}: in-page adapter run()               {in_page:10,.0f} updates/s")
    print(f"{tag}: lock-step batched (Python API)      {batched:10,.0f} updates/s ({done} updates)")
    print(f"{tag}: lock-step one call per step         {one_call:10,.0f} steps/s (direct channel, state each step)")
    print(f"{tag}: lock-step one call per step         {driver_only:10,.0f} steps/s (through the driver only)")
    print(
        f"{tag}: real-time, real key presses         {rt_rate:10.2f} updates/s over {rt_seconds:.0f} s "
        f"({rt_n} updates, {lost} lost, {doubled} doubled)"
    )
    return 0


if __name__ == "__main__":
    from agents.exits import user_errors_in_one_line

    raise SystemExit(user_errors_in_one_line(main))
