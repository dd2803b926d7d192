"""The rollout policy's labels on the states a policy visits itself (DAgger's data).

Games start from noisy starts (0-``start_noise`` updates of random keys) and are driven by the
learner's greedy decisions (or, with chance ``mix``, by the rollout policy's). At every state
each action is tried, followed by ``lookahead`` greedy decisions of the expert policy (the
planner's rollouts, ``policy_rollouts``), and recorded are: the observation, every action's
rollout value (metres where the rollout ended; a finish counts as the farthest of the state's
rollouts plus its lead in time at 3 m/s, a fall 10 m less) and the best action (the rollout
policy's choice, as ``rollout_rank`` ranks). Every game runs in one ``GameSet`` side by side,
on ``threads`` threads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from agents.search.guided_rollouts import (
    FELL,
    FINISHED,
    GuidePolicy,
    finished_100m,
    game_after,
    policy_rollouts,
    rollout_rank,
)
from sim_env.actions import action_masks
from sim_env.errors import UserInputError
from sim_env.files import read_tagged_npz, write_new
from sim_env.observation import observe

LABELS_FORMAT = "qwop-policy-labels/1"

FINISH_PACE_M_S = 3.0  # a finish's lead in time counted as metres: about a fast runner's pace
FALL_COST_M = 10.0  # a fall ranks below any rollout that kept running a few metres behind
MAX_DECISIONS = 1000  # a game that has not ended after this many decisions is stopped


@dataclass
class PolicyLabels:
    obs: np.ndarray  # (n, OBS_SIZE) float32: the states the games visited
    labels: np.ndarray  # (n,) int64: the rollout policy's action there
    values: np.ndarray  # (n, actions) float64: each action's rollout value in metres
    learner: np.ndarray  # (n,) int64: the learner's own action there
    finished: int  # games that reached 100 m
    games: int

    @property
    def agreement(self) -> float:
        """Share of states where the learner chose as the rollout policy did."""
        return float(np.mean(self.learner == self.labels))

    def regret_m(self, chosen: np.ndarray) -> float:
        """Mean rollout metres lost per decision by ``chosen`` against the best action."""
        return float(np.mean(self.values.max(axis=1) - self.values[np.arange(len(chosen)), chosen]))


def label_policy_states(
    learner: GuidePolicy,
    expert: GuidePolicy,
    games: int,
    lookahead: int = 30,
    mix: float = 0.0,
    start_noise: int = 15,
    seed: int = 0,
    threads: int = 1,
    progress: bool = False,
) -> PolicyLabels:
    """Run ``games`` games as the module's docstring says and return what they recorded
    (``progress``: a bar of the states labelled and the games still running)."""
    from tqdm import tqdm

    if games < 1 or lookahead < 1 or start_noise < 0 or not 0.0 <= mix <= 1.0:
        raise UserInputError("games and lookahead must be at least 1, start noise at least 0, mix in [0, 1]")
    if learner.action_set != expert.action_set or learner.frame_skip != expert.frame_skip:
        raise UserInputError("the learner and the expert must share their action set and frame skip")
    rng = np.random.default_rng(seed)
    full = action_masks("full").astype(np.int8)
    tries = np.repeat(learner.masks[:, None], learner.frame_skip, axis=1)
    n_act = len(tries)
    starts = [game_after(full[rng.integers(0, 16, int(rng.integers(0, start_noise + 1)))]) for _ in range(games)]
    live = starts[0]
    for one in starts[1:]:
        live.add(one.snapshot(0))
    obs, labels, values, own = [], [], [], []
    finished = 0
    bar = tqdm(desc="labelling", unit=" states", unit_scale=True, disable=not progress)
    for _ in range(MAX_DECISIONS):
        if not len(live):
            break
        k = len(live)
        bar.update(k)
        bar.set_postfix_str(f"{k} of {games} games running", refresh=False)
        states = np.asarray(live.body_states())
        mine = learner.act(states)
        out = policy_rollouts(
            live, np.repeat(np.arange(k, dtype=np.int32), n_act), np.tile(tries, (k, 1)), expert, lookahead, threads
        )
        best = np.argmax(rollout_rank(out).reshape(k, n_act), axis=1)
        end = np.asarray(out["rollout_end"]).reshape(k, n_act)
        x = np.asarray(out["rollout_x"], dtype=np.float64).reshape(k, n_act)
        t = np.asarray(out["rollout_time"], dtype=np.float64).reshape(k, n_act)
        lead = FINISH_PACE_M_S * (t.max(axis=1, keepdims=True) - t)
        # a finish ranks above every rollout still running (as rollout_rank), whatever its x
        ahead = np.maximum(x, x.max(axis=1, keepdims=True)) + lead
        values.append(np.where(end == FINISHED, ahead, np.where(end == FELL, x - FALL_COST_M, x)))
        obs.append(observe(states))
        labels.append(best)
        own.append(mine)
        take = np.where(rng.random(k) < mix, best, mine)
        step = live.expand(np.arange(k, dtype=np.int32), tries[take], threads=threads, keep=True)
        nxt = step.pop("games")
        ended = np.asarray(step["ended"], dtype=bool)
        finished += int(np.sum(finished_100m(step)))
        live = nxt.select(np.flatnonzero(~ended).astype(np.int32))
    bar.close()
    return PolicyLabels(
        obs=np.concatenate(obs).astype(np.float32),
        labels=np.concatenate(labels).astype(np.int64),
        values=np.concatenate(values),
        learner=np.concatenate(own).astype(np.int64),
        finished=finished,
        games=games,
    )


def save_labels(path: str | Path, sets: dict[str, PolicyLabels], meta: dict[str, Any]) -> Path:
    """Writes named sets of labels and how they were made to ``path`` (a taken name gets a
    number); returns where."""
    arrays: dict[str, np.ndarray] = {"format": np.array(LABELS_FORMAT), "meta": np.array(json.dumps(meta))}
    for name, data in sets.items():
        arrays.update({f"{name}.{f.name}": np.asarray(getattr(data, f.name)) for f in fields(PolicyLabels)})
    return write_new(path, lambda f: np.savez_compressed(f, **arrays))


def load_labels(path: str | Path) -> tuple[dict[str, PolicyLabels], dict[str, Any]]:
    """The sets of labels :func:`save_labels` wrote and their meta, or a one-line error."""
    missing = f"labels not found: {path} (--save-labels writes them)"
    damaged = f"{path} is not a file of labels written by --save-labels (or it is damaged)"
    with read_tagged_npz(path, LABELS_FORMAT, missing, damaged) as z:
        sets = {}
        for name in sorted({k.split(".")[0] for k in z.files if "." in k}):
            kw = {f.name: z[f"{name}.{f.name}"] for f in fields(PolicyLabels)}
            kw["finished"], kw["games"] = int(kw["finished"]), int(kw["games"])
            data = PolicyLabels(**kw)
            if not len(data.labels) == len(data.values) == len(data.learner) == len(data.obs):
                raise UserInputError(damaged)
            sets[name] = data
        return sets, dict(json.loads(str(z["meta"])))


__all__ = ["PolicyLabels", "label_policy_states", "load_labels", "save_labels"]
