"""The planner's benchmark: best finish time found against the time spent searching.

    python -m agents.search_bench                 # 1, 10 and 60 minutes (one search, read at each mark)
    python -m agents.search_bench --minutes 1 10  # other marks
    python -m agents.search_bench --quick         # a short smoke run (CI)

One search with the default settings of ``qwop search`` on every core of this machine; the
figures are read from its history at each mark (wall-clock minutes on this machine; CPU
minutes are that times the cores used), so the marks cost one search, not three.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from agents.planner import LocalExpander, PlannerConfig, load_state, new_state, run_search


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.search_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, nargs="+", default=[1.0, 10.0, 60.0], help="marks (wall minutes)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="a 12-second smoke run")
    ap.add_argument(
        "--from-state", help="read the marks from a saved search (qwop search --state) instead of searching"
    )
    args = ap.parse_args(argv)
    marks = [0.2] if args.quick else sorted(args.minutes)
    cores = os.cpu_count() or 1
    if args.from_state:
        st = load_state(args.from_state)
        print(f"planner benchmark: the saved search {args.from_state} (seed {st.config.seed})")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            st = run_search(
                new_state(PlannerConfig(seed=args.seed)),
                LocalExpander(cores),
                None,
                minutes=marks[-1],
                state_path=Path(tmp) / "state.npz",
            )
        print(f"planner benchmark: default settings, seed {args.seed}, {cores} threads")
    print("| wall minutes | CPU minutes | updates | best finish | farthest |")
    print("| --- | --- | --- | --- | --- |")
    for m in marks:
        upto = [i for i, w in enumerate(st.wall) if w <= m * 60]
        if not upto:
            print(f"| {m:g} | {m * cores:g} | 0 | none | 0.0 m |")
            continue
        updates, best, farthest = st.history[upto[-1]]
        shown = f"{best:.2f} s" if best != float("inf") else "none"
        print(f"| {m:g} | {m * cores:g} | {updates:,} | {shown} | {farthest:.1f} m |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
