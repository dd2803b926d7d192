"""Demos as training data: (observation, action) pairs for any action set and frame skip
of the Gymnasium envs, for behaviour cloning and for replay-buffer injection.

    data = demos.load("demos/alice.npz", action_set="distinct", frame_skip=2)
    data.obs, data.actions, data.rewards, data.next_obs, data.dones, data.behaviour_prob

Each episode (from the click or a reset to the end of the game, or the end of the
recording) is cut into steps of ``frame_skip`` updates. A step's action is the key mask of
its first update mapped to the action with the same effect in the chosen set; steps whose
updates did not all hold the same keys are counted in ``mixed_steps``. Observations and
rewards use the envs' own definitions, so a demo step looks like an env step.
``behaviour_prob`` is 1 for every action (a person's choice is taken as deterministic),
stored for agents that weight off-policy data by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

import sim_env
from demos.format import CLICK_EVENT, Demo, load_demo
from sim_env.actions import masks_to_actions
from sim_env.observation import observe
from sim_env.rewards import profile_weights, reward_terms


@dataclass
class DemoDataset:
    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    next_obs: np.ndarray
    dones: np.ndarray
    behaviour_prob: np.ndarray
    episode_ids: np.ndarray
    mixed_steps: int
    action_set: str
    frame_skip: int

    def __len__(self) -> int:
        return len(self.actions)


def _episode_steps(demo: Demo, k: int, frame_skip: int, frame_stack: int, action_set: str, weights: np.ndarray):
    a = demo.arrays
    rows = np.arange(*demo.episode_rows(k).indices(len(a["events"])))
    rows = rows[a["events"][rows] != CLICK_EVENT]
    if rows.size == 0:
        return None
    ended = np.flatnonzero(a["game_ended"][rows])
    if ended.size:
        rows = rows[: ended[0] + 1]
    start_pose = sim_env.QwopSim().body_state()  # the freshly built runner before its first update
    states = np.concatenate([start_pose[None], a["state"][rows]])
    times = np.concatenate([[0.0], a["score_time"][rows]])
    masks = a["keys"][rows].astype(np.int64)
    n_steps = int(np.ceil(len(rows) / frame_skip))
    idx0 = np.arange(n_steps) * frame_skip
    idx1 = np.minimum(idx0 + frame_skip, len(rows))
    step_masks = masks[idx0]
    mixed = sum(int((masks[i:j] != masks[i]).any()) for i, j in zip(idx0, idx1, strict=True))
    single = observe(states)
    stacked = (
        np.concatenate(
            [single[np.maximum(np.arange(len(single)) - s, 0)] for s in range(frame_stack - 1, -1, -1)], axis=1
        )
        if frame_stack > 1
        else single
    )
    before, after = states[idx0], states[idx1]
    ended_here = a["game_ended"][rows][idx1 - 1].astype(bool)
    landed = a["jump_landed"][rows][idx1 - 1].astype(bool)
    fell = ended_here & a["fallen"][rows][idx1 - 1].astype(bool) & ~landed
    terms = reward_terms(before, after, times[idx1] - times[idx0], times[idx1], fell, ended_here & landed)
    return (stacked[idx0], masks_to_actions(step_masks, action_set), terms @ weights, stacked[idx1], ended_here, mixed)


def load(
    paths: str | Path | list[str | Path],
    action_set: str = "distinct",
    frame_skip: int = 1,
    frame_stack: int = 1,
    reward: str = "progress",
    include_partial: bool = True,
) -> DemoDataset:
    """Transitions from one or more demo files (see the module docstring)."""
    if frame_skip < 1 or frame_stack < 1:
        raise ValueError("frame_skip and frame_stack must be >= 1")
    files = [paths] if isinstance(paths, str | Path) else list(paths)
    weights = profile_weights(reward)
    parts = []
    mixed = 0
    ep = 0
    for f in files:
        demo = load_demo(f)
        for k in range(demo.num_episodes):
            if demo.arrays["episode_partial"][k] and not include_partial:
                continue
            got = _episode_steps(demo, k, frame_skip, frame_stack, action_set, weights)
            if got is None:
                continue
            obs, actions, rewards, next_obs, dones, m = got
            mixed += m
            parts.append((obs, actions, rewards, next_obs, dones, np.full(len(actions), ep)))
            ep += 1
    if not parts:
        raise ValueError(f"no episodes with updates in {[str(f) for f in files]}")
    cat = [np.concatenate([p[i] for p in parts]) for i in range(6)]
    return DemoDataset(
        obs=cat[0].astype(np.float32),
        actions=cat[1],
        rewards=cat[2],
        next_obs=cat[3].astype(np.float32),
        dones=cat[4],
        behaviour_prob=np.ones(len(cat[1])),
        episode_ids=cat[5],
        mixed_steps=mixed,
        action_set=action_set,
        frame_skip=frame_skip,
    )
