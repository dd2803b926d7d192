"""Vector env throughput (``python -m agents.bench.sim --vec``): env steps per second for
1, 2, 8 and 64 envs, each against the raw batched engine on the same key sequence, and for 64
envs starting half their episodes inside the planner's guided records (as the
``scratch_to_human_record`` recipe's stage one does)."""

from __future__ import annotations

import time

import numpy as np

import sim_env
from agents.shipped import RECORDS
from sim_env.actions import action_masks
from sim_env.vec_env import QwopVecEnv


def bench_vec(quick: bool, threads: int, raw_rate: float | None = None) -> dict[int, tuple[float, float]]:
    rates: dict[int, tuple[float, float]] = {}
    rng = np.random.default_rng(0)
    masks = action_masks("distinct").astype(np.int32)
    for n in (1, 2, 8, 64):
        th = min(threads, n)
        steps = max(60, int((3000 if quick else 60000) / n))
        # Held actions (6 updates each), like a policy, so envs run between resets.
        actions = np.repeat(rng.integers(0, len(masks), (steps // 6 + 1, n)), 6, axis=0)[:steps]
        raw = sim_env.BatchSim(n, th)
        t0 = time.perf_counter()
        for a in actions:
            raw.step(masks[a])
        raw_rate_n = n * steps / (time.perf_counter() - t0)
        env = QwopVecEnv(n, th, action_set="distinct")
        env.reset(seed=0)
        t0 = time.perf_counter()
        for a in actions:
            env.step(a)
        vec_rate = n * steps / (time.perf_counter() - t0)
        rates[n] = (vec_rate, raw_rate_n)
        print(
            f"vector env, {n:3d} envs, {th} thread(s):  {vec_rate:12,.0f} env steps/s  "
            f"(raw batch {raw_rate_n:,.0f}/s; {vec_rate / raw_rate_n:.0%} of it)"
        )
    return rates


def bench_start_runs(quick: bool, threads: int) -> float:
    """64 envs, half the episodes starting at a random update of one of the guided records
    (each start restores the record's nearest kept state: ``sim_env.starts.RunStates``), held
    random actions; env steps per second."""
    from demos.start_runs import start_run_keys

    runs = start_run_keys(sorted(str(p) for p in RECORDS.glob("guided_seed0_*.npz")))
    n, steps = 64, 60 if quick else 1000
    rng = np.random.default_rng(0)
    actions = np.repeat(rng.integers(0, 9, (steps // 6 + 1, n)), 6, axis=0)[:steps]
    env = QwopVecEnv(n, min(threads, n), start_keys=runs, start_share=0.5)
    env.reset(seed=0)
    t0 = time.perf_counter()
    for a in actions:
        env.step(a)
    rate = n * steps / (time.perf_counter() - t0)
    print(f"vector env,  64 envs, half the episodes starting inside the {len(runs)} guided records: {rate:,.0f}/s")
    return rate
