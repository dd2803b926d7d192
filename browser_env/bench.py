"""Lock-step throughput through the browser adapter (run by hand, and in CI as a smoke run).

    python -m browser_env.bench [--game DIR] [--backend playwright|selenium] [--quick]

Without --game it uses the open stand-in page (planck.js physics), so the figures then
include the stand-in's own engine cost; the in-page rate (the game's updates alone) and
the round-trip overhead per update are printed separately so the rate on the original
(whose engine runs about 35,000 updates/s in-page here) can be read off. Peer figure:
qwop-gym reports about 2,000 observations/s.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from browser_env.game import BrowserGame
from browser_env.standin import build_standin


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m browser_env.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", help="game folder (default: the stand-in)")
    ap.add_argument("--backend", default="playwright", choices=["playwright", "selenium"])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    n = 3000 if args.quick else 30000
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.game or build_standin(tmp)
        with BrowserGame(folder, backend=args.backend) as g:
            g.new_page()
            masks = np.random.default_rng(0).integers(0, 16, n).astype(np.int8)
            g.run(masks[: n // 3])  # warm the page's JIT
            g.new_page()
            in_page_ms = g.driver.evaluate(
                "(m) => { const t0 = performance.now(); window.__qwopAdapter.run(m, false);"
                " return performance.now() - t0; }",
                masks.tolist(),
            )
            g.new_page()
            t0 = time.perf_counter()
            g.run(masks)
            api = n / (time.perf_counter() - t0)
            g.new_page()
            steps = n // 10
            t0 = time.perf_counter()
            for k in masks[:steps]:
                g.update(int(k))
            single = steps / (time.perf_counter() - t0)
    in_page = n / (in_page_ms / 1000)
    overhead_us = (1 / api - 1 / in_page) * 1e6
    which = "original" if args.game else "stand-in (planck.js)"
    print(f"{which}, {args.backend}: in-page adapter run()       {in_page:10,.0f} updates/s")
    print(f"{which}, {args.backend}: through the Python API      {api:10,.0f} updates/s (batched, {n} updates)")
    print(f"{which}, {args.backend}: one update per call         {single:10,.0f} updates/s")
    print(f"round-trip overhead per batched update:              {overhead_us:10.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
