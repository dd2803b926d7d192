"""Vector env throughput (``python -m agents.bench.sim --vec``): env steps per second for
1, 2, 8 and 64 envs, each against the raw batched engine on the same key sequence."""

from __future__ import annotations

import time

import numpy as np

import sim_env
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
