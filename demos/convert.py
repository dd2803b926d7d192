"""Demos as training data: (observation, action) pairs for any action set and frame skip
of the Gymnasium envs, for behaviour cloning and for replay-buffer injection.

    data = demos.load("demos/alice.npz", action_set="distinct", frame_skip=2)
    data.obs, data.actions, data.rewards, data.next_obs, data.dones, data.behaviour_prob

Each episode (from the click or a reset to the end of the game, or the end of the
recording) is cut into steps of ``frame_skip`` updates. A step's action is the key mask of
its first update mapped to the action with the same effect in the chosen set; steps whose
updates did not all hold the same keys are counted in ``mixed_steps``. Observations and
rewards come from the envs' own step (``sim_env.stepper``), so a demo step is an env step.
``behaviour_prob`` is 1 for every action (a person's choice is taken as deterministic),
stored for agents that weight off-policy data by it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

import sim_env
from demos.format import CLICK_EVENT, Demo, demo_files, load_demo
from sim_env.actions import masks_to_actions
from sim_env.env_config import EnvConfig
from sim_env.spec import UPDATES_PER_SECOND
from sim_env.stepper import Advanced, Stepper


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


class _Recording:
    """An episode's recorded updates as the stepper's update source: each step takes the
    next updates as they were played, whatever mask the step names."""

    def __init__(self, arrays: dict[str, np.ndarray], rows: np.ndarray) -> None:
        self._a = arrays
        self._rows = rows
        self.at = 0

    def advance(self, mask: int, updates: int) -> Advanced:
        a, rows = self._a, self._rows[self.at : self.at + updates]
        ended = np.flatnonzero(a["game_ended"][rows])
        if ended.size:
            rows = rows[: ended[0] + 1]
        self.at += len(rows)
        last = rows[-1]
        return Advanced(
            a["state"][last],
            float(a["score_time"][last]),
            len(rows),
            bool(a["game_ended"][last]),
            bool(a["fallen"][last]),
            bool(a["jump_landed"][last]),
            float(a["score"][last]),
        )


def _episode_steps(demo: Demo, k: int, config: EnvConfig):
    a = demo.arrays
    rows = np.arange(*demo.episode_rows(k).indices(len(a["events"])))
    rows = rows[a["events"][rows] != CLICK_EVENT]
    if rows.size == 0:
        return None
    ended = np.flatnonzero(a["game_ended"][rows])
    if ended.size:
        rows = rows[: ended[0] + 1]
    masks = a["keys"][rows].astype(np.int64)
    # The whole recorded episode is one episode here: no time limit cuts it.
    stepper = Stepper(replace(config, time_limit=(len(rows) + 1) / UPDATES_PER_SECOND))
    source = _Recording(a, rows)
    # The freshly built runner before its first update, at game time 0.
    obs = [stepper.begin(sim_env.QwopSim().body_state(), 0.0)]
    step_masks, rewards, dones = [], [], []
    mixed = 0
    while source.at < len(rows):
        first = source.at
        mask = int(masks[first])
        r = stepper.step(mask, source)
        mixed += int((masks[first : source.at] != mask).any())
        step_masks.append(mask)
        rewards.append(r.reward)
        dones.append(r.terminated)
        obs.append(r.obs)
    o = np.stack(obs)
    actions = masks_to_actions(np.array(step_masks, dtype=np.int64), config.action_set)
    return o[:-1], actions, np.array(rewards), o[1:], np.array(dones, dtype=bool), mixed


def load(
    paths: str | Path | list[str | Path],
    action_set: str = "distinct",
    frame_skip: int = EnvConfig.frame_skip,
    frame_stack: int = EnvConfig.frame_stack,
    reward: str = "progress",
    include_partial: bool = True,
) -> DemoDataset:
    """Transitions from one or more demo files (see the module docstring)."""
    files = demo_files(paths)
    config = EnvConfig(action_set=action_set, frame_skip=frame_skip, frame_stack=frame_stack, reward=reward)
    parts = []
    mixed = 0
    ep = 0
    for f in files:
        demo = load_demo(f)
        for k in range(demo.num_episodes):
            if demo.arrays["episode_partial"][k] and not include_partial:
                continue
            got = _episode_steps(demo, k, config)
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
