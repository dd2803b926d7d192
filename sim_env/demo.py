"""Run the built-in gait in the simulator and print how far it gets.

python -m sim_env.demo [--seconds 60]
"""

from __future__ import annotations

import argparse
import time

from sim_env import UPDATES_PER_SECOND, finished_100m, replay
from sim_env.gaits import SHUFFLE, gait_keys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sim_env.demo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="game seconds to run (default 60)")
    args = ap.parse_args(argv)
    keys = gait_keys(SHUFFLE, int(args.seconds * UPDATES_PER_SECOND))
    t0 = time.perf_counter()
    out = replay(keys)
    wall = time.perf_counter() - t0
    n = len(out["state"])
    end = (out["game_ended"][-1], out["jump_landed"][-1], out["score"][-1])
    how = "finished" if finished_100m(*end) else ("fell" if out["fallen"][-1] else "still running")
    print(
        f"built-in gait (Q+P x6, Q+O x12): {out['score'][-1]:.1f} m in {out['score_time'][-1]:.1f} s "
        f"of game time, {how}; {n} updates simulated in {wall * 1000:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
