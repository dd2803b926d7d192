"""Approximate policy iteration with rollouts: a closed-loop policy that learns what the guided
planner does (``qwop train --set iterate.rounds=N``).

The guided planner (``qwop search --guide``) improves a policy by looking ahead: at a state
it tries every action, lets the policy run greedily for ``lookahead`` decisions after each,
and takes the action whose rollout got farthest (the rollout policy of Bertsekas; one step
of policy iteration). That improved policy needs the simulator at every decision, so it
cannot run closed loop in the original; a network can. Each round here:

1. runs ``episodes`` episodes (random start keys, as evaluation does) in which every
   decision's state is labelled by the rollout policy of the current guide: a distribution
   over actions, ``softmax(distance reached / temperature)`` (falls last, finishes first);
   the rollout policy drives with probability ``beta`` (halved each round), the student the
   rest (DAgger: the student also learns the states its own mistakes lead to);
2. fits the student (a PPO-shaped policy network) to all labels so far by
   ``KL(labels || student)`` (``agents.distill.fit``);
3. makes the student the next round's guide.

Each round's student is evaluated closed loop and the fastest-finishing one (no start
noise, then the median over noisy starts) is kept as the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import sim_env
from agents.guided_rollouts import FELL, FINISHED, GuidePolicy, policy_rollouts
from sim_env import _core
from sim_env.observation import observe


def rollout_scores(
    games: sim_env.GameSet, guide: GuidePolicy, lookahead: int, threads: int = 1
) -> tuple[np.ndarray, int]:
    """(n, actions) how good each action is in each game: the torso's x (m) where the guide's
    rollout after it ended; a finish scores 1e6 - its time, a fall x - 1e6. Also the updates run."""
    masks = guide.masks
    n, a = len(games), len(masks)
    parent = np.repeat(np.arange(n, dtype=np.int32), a)
    keys = np.repeat(np.tile(masks, n)[:, None], guide.frame_skip, axis=1)
    out = policy_rollouts(games, parent, keys, guide, lookahead, threads=threads)
    end, x = out["rollout_end"], out["rollout_x"]
    score = np.where(end == FINISHED, 1e6 - out["rollout_time"], np.where(end == FELL, x - 1e6, x))
    return score.reshape(n, a), int(out["total_updates"])


def label_distribution(score: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(score / temperature) per row (scores in metres)."""
    z = (score - score.max(axis=1, keepdims=True)) / temperature
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


@dataclass
class Collected:
    obs: np.ndarray  # (n, OBS_SIZE) float32
    labels: np.ndarray  # (n, actions) the rollout policy's distribution
    updates: int  # game updates run, rollouts included
    finish_times: list[float]  # of the driven episodes that finished


def collect(
    student_act: Any,
    guide: GuidePolicy,
    episodes: int,
    lookahead: int,
    beta: float,
    temperature: float,
    rng: np.random.Generator,
    start_noise_updates: int = 15,
    time_limit: float = 120.0,
    threads: int = 1,
    progress: Any = None,
) -> Collected:
    """``episodes`` episodes side by side; every decision labelled by the rollout policy,
    taken from it with probability ``beta``, else from ``student_act(obs) -> actions``."""
    masks = guide.masks
    fs = guide.frame_skip
    starts = sim_env.GameSet().select(np.zeros(0, dtype=np.int32))
    for _ in range(episodes):
        sim = sim_env.QwopSim()
        n = int(rng.integers(0, start_noise_updates + 1))
        sim.advance(rng.integers(0, 16, n).astype(np.int8))
        starts.add(sim.snapshot())
    games = starts
    state = np.stack([_state(games, i) for i in range(len(games))])
    limit = _core.max_updates(time_limit)
    xs, ps = [], []
    updates = 0
    finish: list[float] = []
    t_updates = np.zeros(len(games), dtype=np.int64)
    while len(games):
        score, u = rollout_scores(games, guide, lookahead, threads)
        updates += u
        labels = label_distribution(score, temperature)
        obs = observe(state)
        xs.append(obs)
        ps.append(labels)
        expert = np.argmax(score, axis=1)
        own = np.asarray(student_act(obs)).reshape(-1)
        action = np.where(rng.random(len(games)) < beta, expert, own)
        keys = np.repeat(masks[action][:, None], fs, axis=1)
        out = games.expand(np.arange(len(games), dtype=np.int32), keys, threads=threads, keep=True)
        updates += int(out["updates"].sum())
        t_updates += out["updates"]
        done = out["ended"]
        fin = done & out["landed"] & (out["score"] >= sim_env.FINISH_M)
        finish += [float(t) for t in out["score_time"][fin]]
        go_on = np.flatnonzero(~done & (t_updates < limit))
        games = out["games"].select(go_on.astype(np.int32))
        state = out["state"][go_on]
        t_updates = t_updates[go_on]
        if progress is not None:
            progress(len(xs), len(games))
    return Collected(np.concatenate(xs).astype(np.float32), np.concatenate(ps), updates, finish)


def _state(games: sim_env.GameSet, i: int) -> np.ndarray:
    sim = sim_env.QwopSim()
    sim.restore(games.snapshot(i))
    return sim.body_state()


__all__ = ["Collected", "collect", "label_distribution", "rollout_scores"]
