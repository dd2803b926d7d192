"""Real-time mode check: the page keeps its 30 updates/s and the adapter records every
update once (none dropped, none duplicated), with real key presses going on.

    python -m browser_env.realtime_check [--game DIR] [--seconds 120] [--backend playwright]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from browser_env.game import BrowserGame
from browser_env.standin import build_standin


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m browser_env.realtime_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--game")
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--backend", default="playwright", choices=["playwright", "selenium"])
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.game or build_standin(tmp)
        with BrowserGame(folder, backend=args.backend, mode="realtime") as g:
            g.new_page(start=False)
            g.click_canvas()
            g.drain()
            rows = []
            held = 0
            rng = np.random.default_rng(0)
            t0 = time.monotonic()
            next_press = t0
            while time.monotonic() - t0 < args.seconds:
                now = time.monotonic()
                if now >= next_press:  # a person changing keys a few times a second
                    held = g.press(int(rng.integers(0, 16)), held)
                    next_press = now + float(rng.uniform(0.1, 0.5))
                rows.append(g.drain())
                time.sleep(0.05)
            elapsed = time.monotonic() - t0
            rows.append(g.drain())
    rec = np.concatenate(rows)
    idx = rec[:, 0]
    gaps = int((np.diff(idx) > 1).sum())
    dups = int((np.diff(idx) < 1).sum())
    rate = len(rec) / elapsed
    print(
        f"{len(rec)} updates in {elapsed:.1f} s: {rate:.2f} updates/s; {gaps} gaps, {dups} duplicates; "
        f"key masks seen: {sorted(set((rec[:, 1].astype(int) % 16).tolist()))}"
    )
    return 0 if gaps == 0 and dups == 0 and abs(rate - 30) < 1.5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
