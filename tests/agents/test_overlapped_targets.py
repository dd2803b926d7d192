"""The next batch's targets computed in a second thread (``algo.overlap_targets``): the same
targets as the serial step for the weights they were handed, whatever the learner does to its
networks meanwhile; the same first gradient step as the serial learner; models that save, load
and resume (and learn the corridor: tests/agents/test_learning_methods.py)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from agents.methods.overlapped_targets import OverlappedTargets
from agents.methods.pddqn import PrioritizedDoubleDQN
from tests.agents.test_learning_methods import Corridor
from tests.support import small_config


def _values(batch, online, target) -> torch.Tensor:
    with torch.no_grad():
        return online(batch.x) * 10.0 + target(batch.x)


def _batches(n: int, seed: int):
    gen = torch.Generator().manual_seed(seed)
    batches = iter([SimpleNamespace(x=torch.randn(16, 3, generator=gen)) for _ in range(n)])
    return lambda: next(batches)


def test_each_batch_gets_the_targets_of_the_weights_it_was_handed_with():
    torch.manual_seed(0)
    online, target = torch.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    overlapped = OverlappedTargets(online, target, _values)
    expected = _batches(3, seed=1)
    sample = _batches(3, seed=1)
    buffer = object()
    try:
        first, t0 = overlapped.next(buffer, sample)
        b0 = expected()
        assert torch.equal(first.x, b0.x) and torch.equal(t0, _values(b0, online, target))
        # the learner's step changes the online network while the worker has the next batch
        before = [p.detach().clone() for p in online.parameters()]
        with torch.no_grad():
            for p in online.parameters():
                p.add_(1.0)
        second, t1 = overlapped.next(buffer, sample)
        b1 = expected()
        assert torch.equal(second.x, b1.x)
        old = torch.nn.Linear(3, 2)
        with torch.no_grad():
            for p, q in zip(old.parameters(), before, strict=True):
                p.copy_(q)
        assert torch.equal(t1, _values(b1, old, target))  # the weights when batch 1 was handed over
        assert not torch.equal(t1, _values(b1, online, target))
        # a buffer loaded since: its own batches, not the one pending from the old buffer
        fresh = _batches(2, seed=7)
        third, t2 = overlapped.next(object(), fresh)
        b2 = _batches(1, seed=7)()
        assert torch.equal(third.x, b2.x) and torch.equal(t2, _values(b2, online, target))
    finally:
        overlapped.close()


def _filled_model(overlap: bool) -> PrioritizedDoubleDQN:
    model = PrioritizedDoubleDQN(
        "MlpPolicy",
        Corridor(8),
        overlap_targets=overlap,
        learning_rate=3e-3,
        buffer_size=2_000,
        learning_starts=0,
        batch_size=64,
        policy_kwargs={"net_arch": [32]},
        seed=5,
    )
    model._setup_learn(10_000)
    rng = np.random.default_rng(0)
    eye = np.eye(8, dtype=np.float32)
    for _ in range(500):
        pos, a = int(rng.integers(0, 8)), int(rng.integers(0, 2))
        nxt = min(7, pos + 1) if a == 1 else max(0, pos - 1)
        model.replay_buffer.add(
            eye[pos][None], eye[nxt][None], np.array([[a]]), np.array([float(nxt == 7)]), np.array([nxt == 7]), [{}]
        )
    return model


def _same_weights(a: PrioritizedDoubleDQN, b: PrioritizedDoubleDQN) -> bool:
    return all(torch.equal(p, q) for p, q in zip(a.q_net.parameters(), b.q_net.parameters(), strict=True))


def _close(*models: PrioritizedDoubleDQN) -> None:
    """Ends the targets' workers of models trained without learn (which ends them itself), so
    that no worker thread outlives its test (the last test counts them)."""
    for m in models:
        if m._overlapped is not None:
            m._overlapped.close()
            m._overlapped = None


def test_the_first_gradient_step_is_the_serial_learners():
    serial, overlapped = _filled_model(False), _filled_model(True)
    try:
        serial.train(1, 64)
        overlapped.train(1, 64)
        assert _same_weights(serial, overlapped)
        # then the overlapped learner's batches are sampled one step early: different runs
        serial.train(3, 64)
        overlapped.train(3, 64)
        assert not _same_weights(serial, overlapped)
    finally:
        _close(serial, overlapped)


def test_overlapped_runs_repeat_with_their_seed():
    a, b = _filled_model(True), _filled_model(True)
    try:
        a.train(20, 64)
        b.train(20, 64)
        assert _same_weights(a, b)
    finally:
        _close(a, b)


@pytest.mark.parametrize("heads", [False, True])
def test_qwop_train_with_overlapped_targets_saves_loads_and_resumes(tmp_path, heads):
    from agents.training.model_files import load_model
    from agents.training.train import train

    sets = ['algo.name="pddqn"', "run.checkpoint_every=1000"]
    if heads:  # one Q head per reward term: the worker computes per-term targets
        sets += ["algo.reward_heads=true", 'env.reward="speed"']
    overlap = "algo.overlap_targets=true"
    summary = train(small_config(tmp_path, *sets, overlap, 'run.name="first"'), log=lambda s: None)
    model, info = load_model(summary["run_dir"] + "/final.zip")
    assert info["algo"] == "pddqn" and model.overlap_targets and model._overlapped is None
    assert model.reward_heads is heads
    # a resumed run computes as its own config says, whatever the model was trained with
    plain = train(small_config(tmp_path, *sets, 'run.name="plain"'), resume=summary["model"], log=lambda s: None)
    assert not load_model(plain["model"])[0].overlap_targets
    again = train(small_config(tmp_path, *sets, overlap, 'run.name="again"'), resume=plain["model"], log=lambda s: None)
    assert again["timesteps"] >= 3000 and load_model(again["model"])[0].overlap_targets


def test_the_targets_worker_lives_as_long_as_learn():
    from stable_baselines3.common.callbacks import BaseCallback

    class Watch(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.seen = False

        def _on_step(self) -> bool:
            self.seen |= any(t.name.startswith("dqn-targets") for t in threading.enumerate())
            return True

    model = PrioritizedDoubleDQN(
        "MlpPolicy",
        Corridor(8),
        overlap_targets=True,
        learning_starts=50,
        batch_size=16,
        policy_kwargs={"net_arch": [16]},
    )
    watch = Watch()
    model.learn(300, callback=watch)
    assert watch.seen and model._overlapped is None
    assert not any(t.name.startswith("dqn-targets") for t in threading.enumerate())
