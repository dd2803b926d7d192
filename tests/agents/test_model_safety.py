"""Model files load without running code from them: a poisoned copy of a shipped model runs
nothing, and every shipped model loads as it did with SB3's own (pickling) loader."""

from __future__ import annotations

import base64
import json
import os
import pickle
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents.training.model_files import load_model, model_sidecar
from agents.training.safe_loading import UnsafeModelError, load_buffer, save_buffer
from tests.clitools import one_line_error, qwop
from tests.support import MODELS

SHIPPED = sorted(MODELS.glob("*.zip"))


class _Payload:
    """Pickles as a call of os.system that leaves a file behind."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def _poisoned(model: Path, key: str, out: Path, marker: Path) -> Path:
    with zipfile.ZipFile(model) as z:
        items = {n: z.read(n) for n in z.namelist()}
    data = json.loads(items["data"])
    payload = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    data[key] = {":type:": "<class 'object'>", ":serialized:": payload}
    items["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(out, "w") as z:
        for name, raw in items.items():
            z.writestr(name, raw)
    shutil.copy(model_sidecar(model), model_sidecar(out))
    return out


@pytest.mark.parametrize("key", ["policy_kwargs", "train_freq", "replay_buffer_class", "lr_schedule",
                                 "observation_space", "policy_class", "_last_obs", "something_new"])
def test_a_poisoned_model_runs_nothing(tmp_path: Path, key: str) -> None:
    marker = tmp_path / "payload_ran"
    evil = _poisoned(MODELS / "qwop_pddqn.zip", key, tmp_path / "evil.zip", marker)
    try:
        load_model(evil)
    except UnsafeModelError as exc:  # entries it would have to unpickle are refused
        assert key in str(exc)
    assert not marker.exists(), "the model file ran code when it was loaded"


def test_the_command_refuses_a_poisoned_model_in_one_line(tmp_path: Path) -> None:
    marker = tmp_path / "payload_ran"
    evil = _poisoned(MODELS / "qwop_pddqn.zip", "policy_kwargs", tmp_path / "evil.zip", marker)
    one_line_error(qwop("eval", str(evil), "--episodes", "1"), "was refused", "policy_kwargs")
    assert not marker.exists()


@pytest.mark.parametrize("model", SHIPPED, ids=[m.name for m in SHIPPED])
def test_every_shipped_model_loads_as_sb3_loads_it(model: Path) -> None:
    """The same weights and the same greedy actions as SB3's own loader gives (which unpickles
    every entry: safe here, on the files this repository ships)."""
    import torch

    from agents.training.algorithms import algo_class

    safe, info = load_model(model)
    moved = {"replay_buffer_class": safe.replay_buffer_class} if hasattr(safe, "replay_buffer_class") else {}
    trusted = algo_class(info["algo"]).load(str(model), device="cpu", custom_objects=moved)  # old module paths
    a, b = safe.policy.state_dict(), trusted.policy.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert safe.observation_space == trusted.observation_space and safe.action_space == trusted.action_space
    obs = np.random.default_rng(0).normal(size=(64, *safe.observation_space.shape)).astype(np.float32)
    assert np.array_equal(safe.predict(obs, deterministic=True)[0], trusted.predict(obs, deterministic=True)[0])


def test_a_replay_buffer_round_trips_without_pickle(tmp_path: Path) -> None:
    from agents.methods.prioritized_replay import PrioritizedReplayBuffer
    from agents.training.safe_loading import spaces_of

    obs_space, act_space = spaces_of({})
    # seeds whose generator states print to JSON of different lengths
    made = [PrioritizedReplayBuffer(64, obs_space, act_space, n_envs=2, seed=s) for s in (1, 123456789)]
    rng = np.random.default_rng(0)
    for _ in range(40):
        o = rng.normal(size=(2, *obs_space.shape)).astype(np.float32)
        made[0].add(o, o + 1, rng.integers(0, act_space.n, (2, 1)), rng.normal(size=2), np.zeros(2), [{}, {}])
    made[0].rng.random()
    path = save_buffer(made[0], tmp_path / "buffer.npz")
    load_buffer(made[1], path)
    assert made[1].pos == made[0].pos and made[1].full == made[0].full
    assert np.array_equal(made[1].observations, made[0].observations)
    assert np.array_equal(made[1].tree.tree, made[0].tree.tree) and made[1].max_priority == made[0].max_priority
    assert made[1].rng.random() == made[0].rng.random()
    small = PrioritizedReplayBuffer(32, obs_space, act_space, n_envs=2)
    with pytest.raises(ValueError, match="does not fit"):
        load_buffer(small, path)


def test_a_buffer_file_restores_the_contents_not_the_settings(tmp_path: Path) -> None:
    import gymnasium as gym
    import numpy as np

    from agents.methods.prioritized_replay import PrioritizedReplayBuffer
    from agents.training.safe_loading import load_buffer, save_buffer

    space, actions = gym.spaces.Box(-1, 1, (2,), np.float32), gym.spaces.Discrete(3)
    saved = PrioritizedReplayBuffer(64, space, actions, n_envs=2, alpha=0.6, n_steps=1, gamma=0.99)
    o = np.ones((2, 2), np.float32)
    saved.add(o, o, np.zeros((2, 1)), np.ones(2, np.float32), np.zeros(2, np.float32), [{}, {}])
    path = save_buffer(saved, tmp_path / "buffer.npz")
    # a resumed run's buffer, made with its own config's settings
    resumed = PrioritizedReplayBuffer(64, space, actions, n_envs=2, alpha=0.3, n_steps=3, gamma=0.9, demo_bonus=0.5)
    load_buffer(resumed, path)
    assert (resumed.alpha, resumed.n_steps, resumed.gamma, resumed.demo_bonus) == (0.3, 3, 0.9, 0.5)
    assert resumed.pos == 1 and np.array_equal(resumed.observations[0], o)
