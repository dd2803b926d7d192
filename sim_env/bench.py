"""Simulator throughput and memory, printed as figures (run by hand, and in CI as a smoke run).

    python -m sim_env.bench            # one game on one thread, then the batch on all cores
    python -m sim_env.bench --vec      # also the Gymnasium vector env (issue: Gymnasium envs)
    python -m sim_env.bench --quick    # a few seconds, for CI

The workload is the built-in running gait (a runner that keeps running, so every update
has contacts and the full solver), with each batch slot at a different phase of the gait.
Reference point: the original's own engine runs about 22,000 updates/s in headless
Chromium on this machine class.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from sim_env import GAME_BYTES, BatchSim, QwopSim, replay
from sim_env.gaits import SHUFFLE, gait_keys

ORIGINAL_UPDATES_PER_S = 22_000


def bench_single(updates: int) -> float:
    keys = gait_keys(SHUFFLE, 1800)
    done = 0
    t0 = time.perf_counter()
    while done < updates:
        done += len(replay(keys)["state"])
    return done / (time.perf_counter() - t0)


def bench_python_loop(updates: int) -> float:
    # Fresh runs of 60 s each: a run that went on after a fall would end with the ragdoll
    # asleep, which costs almost nothing and would flatter the figure.
    keys = gait_keys(SHUFFLE, 1800).tolist()
    done = 0
    t0 = time.perf_counter()
    while done < updates:
        sim = QwopSim()
        for k in keys:
            sim.update(k)
        done += len(keys)
    return done / (time.perf_counter() - t0)


def bench_batch(num_envs: int, num_threads: int, steps: int) -> float:
    b = BatchSim(num_envs, num_threads)
    cycle = gait_keys(SHUFFLE, 18).astype(np.int32)
    phase = np.arange(num_envs) % len(cycle)
    table = np.stack([cycle[(phase + t) % len(cycle)] for t in range(len(cycle))])
    b.step(table[0])  # warm the pool
    t0 = time.perf_counter()
    for t in range(steps):
        b.step(table[t % len(cycle)])
    return num_envs * steps / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sim_env.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short run for CI smoke tests")
    ap.add_argument("--vec", action="store_true", help="also benchmark the Gymnasium vector env")
    ap.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="threads for the batch (default: all cores)"
    )
    args = ap.parse_args(argv)
    scale = 0.05 if args.quick else 1.0

    single = bench_single(int(200_000 * scale))
    print(
        f"single game, one thread (C++ loop):     {single:12,.0f} updates/s  "
        f"({single / ORIGINAL_UPDATES_PER_S:.1f}x the original's ~{ORIGINAL_UPDATES_PER_S:,}/s)"
    )
    loop = bench_python_loop(int(50_000 * scale))
    print(f"single game, Python calling update():   {loop:12,.0f} updates/s")

    envs = 256
    steps = max(20, int(400 * scale))
    rates = {}
    for th in sorted({1, 2, args.threads} - {0}):
        rates[th] = bench_batch(envs, th, steps)
        print(
            f"batch {envs} games, {th} thread(s):         {rates[th]:12,.0f} updates/s  "
            f"(x{rates[th] / rates[1]:.2f} vs 1 thread, {rates[th] / th:,.0f} per thread)"
        )
    b = BatchSim(1, 1)
    print(
        f"memory per game in the batch:           {b.bytes_per_env:12,d} bytes "
        f"({b.bytes_per_env / 1024:.1f} KiB; game state {GAME_BYTES:,d} bytes)"
    )

    if args.vec:
        from sim_env.vec_bench import bench_vec

        bench_vec(quick=args.quick, threads=args.threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
