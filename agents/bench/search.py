"""The planner's benchmark: best finish time found against the CPU time spent searching.

    python -m agents.bench.search                   # 1, 10 and 60 CPU-minutes (one search, read at each mark)
    python -m agents.bench.search --guide           # the guided search (the shipped guide, qwop_guide.zip)
    python -m agents.bench.search --minutes 1 10    # other marks
    python -m agents.bench.search --quick           # a short smoke run (CI)
    python -m agents.bench.search --guide --set lookahead=25 beam=16   # other planner settings

One search with the default settings of ``qwop search`` (or ``qwop search --guide``) on every
core of this machine until the last mark; the figures are read from its history at each mark
of CPU-minutes (all threads' CPU time, so other jobs on the machine do not change them), so
the marks cost one search, not three. ``--from-state FILE`` reads a saved search instead
(one saved before CPU time was kept per stage is read by wall-clock minutes x cores). ``CPU /
wall`` says how many cores the search kept busy.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from agents.search.planner import LocalExpander
from agents.search.run import run_search
from agents.search.state import PlannerConfig, guided_config, load_state, new_state, with_settings
from agents.usage import OneLineParser, minutes_float, seed_int


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m agents.bench.search", description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=minutes_float, nargs="+", default=[1.0, 10.0, 60.0], help="marks (CPU-minutes)")
    ap.add_argument("--seed", type=seed_int, default=0)
    ap.add_argument(
        "--guide", nargs="?", const="", metavar="MODEL", help="the guided search (default: the shipped guide)"
    )
    ap.add_argument("--quick", action="store_true", help="a smoke run of about 12 CPU-seconds")
    ap.add_argument(
        "--from-state", help="read the marks from a saved search (qwop search --state) instead of searching"
    )
    ap.add_argument("--state", help="keep the search's state in this file (default: a temporary one)")
    ap.add_argument(
        "--set", nargs="+", default=[], metavar="NAME=VALUE", help="planner settings (PlannerConfig fields)"
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    marks = [0.2] if args.quick else sorted(args.minutes)
    if args.state and Path(args.state).exists():
        ap.error(f"{args.state} exists; read it with --from-state {args.state}, or choose another --state")
    cores = os.cpu_count() or 1
    if args.from_state:
        st = load_state(args.from_state)
        what = f"the saved search {args.from_state} (seed {st.config.seed})"
    else:
        cfg = PlannerConfig(seed=args.seed)
        if args.guide is not None:
            from agents.shipped import GUIDE

            cfg = guided_config(args.guide or str(GUIDE), seed=args.seed)
        try:
            cfg = with_settings(cfg, args.set)
        except ValueError as exc:
            ap.error(str(exc))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(args.state) if args.state else Path(tmp) / "state.npz"
            st = new_state(cfg)
            # a CPU budget: search in slices of wall time until the last mark's CPU time is spent
            while st.cpu_seconds < marks[-1] * 60:
                left = (marks[-1] * 60 - st.cpu_seconds) / cores / 60
                st = run_search(st, LocalExpander(cores), None, minutes=max(left, 0.05), state_path=path)
                if st.stopped_by:  # Ctrl-C or SIGTERM: report what was reached
                    print(f"stopped by {st.stopped_by} after {st.cpu_seconds / 60:.1f} CPU-minutes")
                    break
        what = f"{'guided by ' + Path(cfg.guide).name if cfg.guide else 'default settings'}, seed {args.seed}"
        what += "".join(f", {s}" for s in args.set)
        what += f", {cores} threads"
    by_cpu = len(st.cpu) == len(st.history)
    clock = st.cpu if by_cpu else [w * cores for w in st.wall]
    print(f"planner benchmark: {what}" + ("" if by_cpu else " (CPU time estimated as wall time x cores)"))
    # CPU / wall: how many cores the search kept busy (1.0 on a 2-core machine is half of it).
    print("| CPU minutes | wall minutes | CPU / wall | updates | best finish | farthest |")
    print("| --- | --- | --- | --- | --- | --- |")
    for m in marks:
        upto = [i for i, c in enumerate(clock) if c <= m * 60]
        if not clock or clock[-1] < m * 60 * 0.99:
            ran = clock[-1] / 60 if clock else 0.0
            print(f"| {m:g} | - | - | - | not reached (the search ran {ran:.1f} CPU-min) | - |")
            continue
        if not upto:
            print(f"| {m:g} | 0 | - | 0 | none | 0.0 m |")
            continue
        i = upto[-1]
        updates, best, farthest = st.history[i]
        shown = f"{best:.2f} s" if best != float("inf") else "none"
        ratio = f"{clock[i] / st.wall[i]:.2f}" if by_cpu and st.wall[i] > 0 else "-"
        print(f"| {m:g} | {st.wall[i] / 60:.1f} | {ratio} | {updates:,} | {shown} | {farthest:.1f} m |")
    return 0


if __name__ == "__main__":
    from agents.exits import user_errors_in_one_line

    raise SystemExit(user_errors_in_one_line(main, safe_point_stops=True))
