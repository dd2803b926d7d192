"""Simulator throughput and memory, printed as figures (run by hand, and in CI as a smoke run).

    python -m agents.bench.sim            # one game on one thread, then the batch on all cores
    python -m agents.bench.sim --vec      # also the Gymnasium vector env (issue: Gymnasium envs)
    python -m agents.bench.sim --quick    # a few seconds, for CI

The workload is the built-in running gait's first 4,000 updates, the same for every
figure: a runner that keeps running, so every update has contacts and the full solver, and
from about update 2,300 on kicks the 50 m hurdle along (a second island, at times joined to
the runner's). The original's engine and one game run it from the start; a batch's games
are spread over it (game i starts at update i x 4,000 / games).

Reference point: the original's own engine, measured in the same run in headless Chromium
when Chromium and the original are present (``python -m agents.bench.browser
--original-engine``), else the stored figure for this machine class (the output says which).
The original's engine, the single game and each batch are timed as the best of five runs of
about 0.3 s each (4,000 updates in the page; 40,000 here; 240 steps of 256 games), so that a
burst of a shared machine's neighbours in one run does not decide the ratio.
Where the time of one update goes is in ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

from agents.usage import OneLineParser, threads_int
from sim_env import GAME_BYTES, UPDATES_PER_SECOND, BatchSim, QwopSim, lockstep_available, replay
from sim_env.gaits import SHUFFLE, gait_keys

# The original's engine in headless Chromium on this 2-core machine class (agents.bench.browser),
# used when it cannot be measured in the same run.
ORIGINAL_UPDATES_PER_S = 21_000
# Every figure's workload: the gait's first updates, as agents.bench.browser runs them in the page.
GAIT_UPDATES = 4000


def original_rate(timeout_s: float = 300.0) -> tuple[float, str]:
    """The original engine's updates/s measured now (a subprocess: the browser harness sits
    above the simulator), or the stored figure, with a note saying which."""
    try:
        out = subprocess.run(
            [sys.executable, "-m", "agents.bench.browser", "--original-engine"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        line = (out.stdout.strip().splitlines() or [""])[-1]
        if out.returncode == 0 and line.startswith("ORIGINAL_ENGINE_UPDATES_PER_S="):
            return float(line.split("=", 1)[1]), "the original's engine in Chromium, measured in this run"
        why = line or (out.stderr.strip().splitlines() or ["no output"])[-1]
    except (OSError, subprocess.TimeoutExpired) as exc:
        why = str(exc)
    return float(ORIGINAL_UPDATES_PER_S), f"stored figure for the original's engine (not measured now: {why})"


def bench_single(updates: int, repeats: int = 5) -> float:
    """Updates/s of one game replaying the gait: the best of `repeats` timed runs of about
    `updates` updates each, as the original's engine is timed (agents.bench.browser)."""
    keys = gait_keys(SHUFFLE, GAIT_UPDATES)
    best = 0.0
    for _ in range(repeats):
        done = 0
        t0 = time.perf_counter()
        while done < updates:
            done += len(replay(keys)["state"])
        best = max(best, done / (time.perf_counter() - t0))
    return best


def bench_python_loop(updates: int) -> float:
    # Fresh runs of the same keys as the other figures (the gait never falls within them;
    # a run that went on after a fall would end with the ragdoll asleep, which costs almost
    # nothing and would flatter the figure).
    keys = gait_keys(SHUFFLE, GAIT_UPDATES).tolist()
    done = 0
    t0 = time.perf_counter()
    while done < updates:
        sim = QwopSim()
        for k in keys:
            sim.update(k)
        done += len(keys)
    return done / (time.perf_counter() - t0)


def bench_batch(
    num_envs: int, num_threads: int, steps: int, lockstep: bool = True, repeats: int = 5
) -> tuple[float, int]:
    """Updates/s of a batch stepping the gait, its games spread over the gait's first
    GAIT_UPDATES updates (advanced there untimed), the best of `repeats` timed runs of `steps`
    steps each (as the single game and the original's engine are timed), and its memory per
    game after the runs (a game's contacts are allocated as it needs them). A game that
    finishes the 100 m (about 4,400 updates in) starts over, as in training."""
    total = GAIT_UPDATES + (repeats * steps + 1)
    b = BatchSim(num_envs, num_threads, lockstep=lockstep, time_limit=total / UPDATES_PER_SECOND + 1.0)
    keys = gait_keys(SHUFFLE, total).astype(np.int32)
    start = np.arange(num_envs) * GAIT_UPDATES // num_envs
    for i, n in enumerate(start):
        if n:
            b.advance_env(i, keys[:n].astype(np.int8))
    b.step(keys[start])  # warm the pool
    best = 0.0
    done = 1
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            b.step(keys[start + done])
            done += 1
        best = max(best, num_envs * steps / (time.perf_counter() - t0))
    return best, b.bytes_per_env


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m agents.bench.sim", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short run for CI smoke tests")
    ap.add_argument("--vec", action="store_true", help="also benchmark the Gymnasium vector env")
    ap.add_argument(
        "--threads", type=threads_int, default=os.cpu_count() or 1, help="threads for the batch (default: all cores)"
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    scale = 0.05 if args.quick else 1.0

    original, source = original_rate()
    print(f"original's engine:                      {original:12,.0f} updates/s  ({source})")
    single = bench_single(int(40_000 * scale))
    print(f"single game, one thread (C++ loop):     {single:12,.0f} updates/s  ({single / original:.1f}x the original)")
    loop = bench_python_loop(int(50_000 * scale))
    print(f"single game, Python calling update():   {loop:12,.0f} updates/s")

    envs = 32 if args.quick else 256  # a batch's games are advanced into the gait first, untimed
    steps = max(12, int(240 * scale))  # about 0.3 s a run on one thread
    rates, memory = {}, {}
    lanes = "in lock step, joints in SIMD lanes" if lockstep_available() else "env by env: this CPU has no lanes"
    for th in sorted({1, 2, args.threads} - {0}):
        rates[th], memory[th] = bench_batch(envs, th, steps)
        print(
            f"batch {envs} games, {th} thread(s):         {rates[th]:12,.0f} updates/s  "
            f"(x{rates[th] / rates[1]:.2f} vs 1 thread, {rates[th] / th:,.0f} per thread, "
            f"{rates[th] / th / original:.1f}x the original per thread; {lanes})"
        )
    if lockstep_available():
        alone, _ = bench_batch(envs, 1, steps, lockstep=False)
        print(
            f"batch {envs} games, 1 thread, env by env: {alone:12,.0f} updates/s  "
            f"(lockstep=False; the lock step is x{rates[1] / alone:.2f})"
        )
    th = max(memory)
    print(
        f"memory per game in the batch:           {memory[th]:12,d} bytes "
        f"({memory[th] / 1024:.1f} KiB: {envs} games on {th} thread(s) after the run; a game's block "
        f"{GAME_BYTES:,d} bytes, its contacts as it needs them, its share of the buffers and scratch)"
    )

    if args.vec:
        from agents.bench.vec import bench_start_runs, bench_vec

        bench_vec(quick=args.quick, threads=args.threads)
        bench_start_runs(quick=args.quick, threads=args.threads)
    return 0


if __name__ == "__main__":
    from agents.exits import user_errors_in_one_line

    raise SystemExit(user_errors_in_one_line(main))
