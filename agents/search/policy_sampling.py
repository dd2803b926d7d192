"""``qwop sample [MODEL]``: sample many stochastic episodes in the batched simulator and keep
the best key sequence (a finished run, the fastest; else the farthest). The simulator is
exact, so the sequence replays open-loop in the original: it is saved as a demo file for
``qwop replay FILE --browser``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.training.evaluate import best_episode, load_model, rollouts


def search(
    model_path: str | Path,
    episodes: int = 256,
    num_envs: int = 64,
    num_threads: int = 1,
    time_limit: float = 120.0,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """Best of ``episodes`` stochastic runs (finished and fastest, else farthest), with its keys."""
    model, info = load_model(model_path)
    model.set_random_seed(seed)
    eps = rollouts(
        model,
        info["env"],
        episodes,
        num_envs,
        num_threads,
        deterministic=False,
        start_noise_updates=0,
        time_limit=time_limit,
        seed=seed,
        progress=progress,
    )
    best, keys = best_episode(eps)
    return {
        "episodes": len(eps),
        "best_distance_m": best.score,
        "best_time_s": best.time_s,
        "finished": best.finished,
        "mean_distance_m": float(np.mean([e.score for e in eps])),
        "finish_rate": float(np.mean([e.finished for e in eps])),
        "keys": keys,
    }
