"""Runs of the rollout policy over a trained agent, saved as demonstrations.

The rollout policy takes, at every decision, the action whose following greedy rollout of
the agent (``lookahead`` decisions, in the exact simulator) gets farthest: one step of
policy improvement (``qwop search --guide`` with a beam of one game and no restarts). It
needs the simulator in the loop, so it is not an agent for the original; its runs are
demonstrations in the agent's own style but faster, and the record recipe's fine-tuning
stage injects them into the agent's replay buffer and starts episodes inside them
(README, "Learning"). Each run starts after 0-``start_noise`` updates of random keys (the
first run after none), so that the runs differ.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.search.guided_rollouts import (
    GuidePolicy,
    finished_100m,
    game_after,
    guide_from_model,
    policy_rollouts,
    rollout_rank,
)
from sim_env.actions import action_masks
from sim_env.errors import UserInputError

# A run that has not ended after this many decisions is stopped (the game's 120 s and more).
MAX_DECISIONS = 1000


def improved_run(
    policy: GuidePolicy, prefix: np.ndarray, lookahead: int, max_decisions: int = MAX_DECISIONS, sincos: str = "fma"
) -> tuple[np.ndarray, dict[str, Any]]:
    """The rollout policy's run after the keys ``prefix``: its update keys (prefix included)
    and the outcome (``finished`` 100 m, ``ended``, ``score``, ``time_s``)."""
    masks = policy.masks
    tries = np.repeat(masks[:, None], policy.frame_skip, axis=1)
    games = game_after(prefix, sincos)
    keys = [np.asarray(prefix, dtype=np.int8)]
    step: dict[str, Any] = {}
    for _ in range(max_decisions):
        out = policy_rollouts(games, np.zeros(len(masks), dtype=np.int32), tries, policy, lookahead)
        a = int(np.argmax(rollout_rank(out)))  # the first of equals, as the planner's stable sort
        step = games.expand(np.zeros(1, dtype=np.int32), tries[a : a + 1], threads=1, keep=True)
        games = step.pop("games")
        keys.append(tries[a, : int(step["updates"][0])])
        if step["ended"][0]:
            break
    outcome = {
        "finished": bool(finished_100m(step)[0]) if step else False,
        "ended": bool(step["ended"][0]) if step else False,
        "score": float(step["score"][0]) if step else 0.0,
        "time_s": float(step["score_time"][0]) if step else 0.0,
    }
    return np.concatenate(keys).astype(np.int8), outcome


def improved_demos(
    model: str,
    runs: int,
    out_dir: str | Path,
    lookahead: int = 15,
    start_noise: int = 15,
    seed: int = 0,
    log: Any = print,
) -> list[Path]:
    """``runs`` runs of the rollout policy over ``model``; the finished ones are saved as
    demo files in ``out_dir`` (existing files are never replaced). Returns the files written."""
    from demos.simulate import save_keys_as_demo

    if runs < 1 or lookahead < 1 or start_noise < 0:
        raise UserInputError("runs and lookahead must be at least 1, start noise at least 0")
    policy = guide_from_model(model)
    rng = np.random.default_rng(seed)
    full = action_masks("full")
    written: list[Path] = []
    for r in range(runs):
        n = 0 if r == 0 else int(rng.integers(0, start_noise + 1))
        prefix = np.asarray(full[rng.integers(0, 16, n)], dtype=np.int8)
        keys, res = improved_run(policy, prefix, lookahead)
        what = f"finished 100 m in {res['time_s']:.2f} s" if res["finished"] else f"{res['score']:.1f} m, no finish"
        if res["finished"]:
            meta = {"model": model, "improved_run": True, "lookahead": lookahead, "start_updates": n}
            written.append(save_keys_as_demo(keys, Path(out_dir) / f"improved_{r:03d}.npz", meta))
            what += f" -> {written[-1]}"
        log(f"run {r + 1}/{runs} (after {n} random updates): {what}")
    return written


__all__ = ["MAX_DECISIONS", "improved_demos", "improved_run"]
