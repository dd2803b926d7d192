"""The actor process beside the learner (batch.async_actor): the learner stores exactly the
transitions the simulator made under the actor's actions, the actor acts with the weights it
is sent, and a dead actor stops the run in one line with the learner's model saved."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.support import REPO

pytest.importorskip("stable_baselines3")

SMALL = [
    'algo.name="pddqn"',
    "batch.num_envs=4",
    "batch.async_actor=true",
    "algo.learning_starts=400",
    "algo.buffer_size=5000",
    "algo.batch_size=64",
    "run.total_timesteps=4000",
    "run.progress_bar=false",
    "run.checkpoint_every=0",
    "run.eval_episodes=1",
]


def _model(overrides: list[str]):
    from agents.training.build import build_model, make_env
    from agents.training.config import load_config

    cfg = load_config(None, [*SMALL, *overrides])
    return cfg, build_model(cfg, make_env(cfg), None)


@pytest.mark.parametrize("starts", ["standard", "start_runs"])
def test_the_learner_stores_the_simulators_own_transitions(starts: str, tmp_path: Path) -> None:
    from sim_env.vec_env import QwopVecEnv

    overrides = []
    if starts == "start_runs":  # episodes that start inside recorded runs, in the actor too
        from demos.simulate import save_keys_as_demo
        from sim_env.gaits import SHUFFLE, gait_keys

        save_keys_as_demo(gait_keys(SHUFFLE, 300), tmp_path / "run.npz", {"note": "test"})
        overrides = [f'env.start_runs=["{tmp_path}"]', "env.start_share=0.75"]
    cfg, model = _model(overrides)
    try:
        model.learn(total_timesteps=1200)
        rb = model.replay_buffer
        steps = rb.pos
        assert steps == 1200 // 4 and model.num_timesteps == 1200
        assert model.env.chunks_received > 0 and rb.dones[:steps].any()  # episodes ended and began again
        # the same actions from the same seed in a fresh simulator give the stored observations
        vec = QwopVecEnv(4, 1, start_keys=cfg.start_keys(), config=cfg.env)
        obs, _ = vec.reset(seed=cfg.run.seed)
        for t in range(steps):
            np.testing.assert_array_equal(rb.observations[t], obs)
            nxt, reward, term, trunc, info = vec.step(rb.actions[t, :, 0].astype(np.int64))
            np.testing.assert_array_equal(rb.rewards[t], reward.astype(np.float32))
            done = term | trunc
            np.testing.assert_array_equal(rb.dones[t], done.astype(np.float32))
            expected_next = np.array([info["final_obs"][i] if done[i] else nxt[i] for i in range(4)])
            np.testing.assert_array_equal(rb.next_observations[t], expected_next)
            obs = nxt
    finally:
        model.env.close()


def test_the_actor_acts_with_the_weights_it_is_sent() -> None:
    import torch

    # no exploration, weights that do not move: after the first refresh the actor's actions
    # are the learner's network's own greedy choices
    _, model = _model(
        [
            "batch.actor_sync=1",
            "algo.exploration_fraction=0.0001",
            "algo.exploration_final_eps=0.0",
            "algo.learning_rate=1e-30",
        ]
    )
    try:
        model.learn(total_timesteps=4000)
        rb = model.replay_buffer
        # the weights reach the actor within a few chunks of learning's start (how many depends
        # on the two processes' timing); the second half of the run is all greedy
        half = rb.pos // 2
        assert half > 400 // 4 + 100
        obs = torch.as_tensor(rb.observations[half : rb.pos].reshape(-1, rb.observations.shape[-1]))
        with torch.no_grad():
            greedy = model.q_net(obs).argmax(dim=1).numpy()
        np.testing.assert_array_equal(rb.actions[half : rb.pos, :, 0].reshape(-1), greedy)
        random_part = rb.actions[: 400 // 4, :, 0]
        assert len(np.unique(random_part)) == model.action_space.n  # uniformly random before learning starts
    finally:
        model.env.close()


def test_the_actors_env_is_made_without_a_warning() -> None:
    import warnings

    from agents.training.actor_learner import ActorFeed
    from agents.training.config import load_config
    from sim_env.vec_env import QwopVecEnv

    cfg = load_config(None, SMALL)
    probe = QwopVecEnv(1, 1, config=cfg.env)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3 warns when a VecEnv cannot say its render_mode
        feed = ActorFeed(cfg, probe.single_observation_space, probe.single_action_space, 4)
    assert feed.render_mode is None
    probe.close()


def test_async_actor_needs_the_dqn_family() -> None:
    from agents.training.config import load_config
    from sim_env.errors import UserInputError

    with pytest.raises(UserInputError, match="async_actor needs dqn"):
        load_config(None, ['algo.name="ppo"', "batch.async_actor=true"])
    with pytest.raises(UserInputError, match="actor_sync must be at least 1"):
        load_config(None, [*SMALL, "batch.actor_sync=0"])


def test_an_error_in_the_actor_reaches_the_learner_as_one_line() -> None:
    import multiprocessing

    from agents.training.actor_learner import _act

    reader, writer = multiprocessing.Pipe(duplex=False)
    _act(b"not a configuration", b"", writer, multiprocessing.Queue(), 0)
    kind, message = reader.recv()
    assert kind == "error" and message.startswith("_pickle.UnpicklingError"), message


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


@pytest.mark.slow
def test_a_dead_actor_ends_the_run_in_one_line_and_keeps_the_model(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    log = tmp_path / "train.log"
    args = ["train", "--steps", "100000000", "--name", "dies", "--set", f'run.out_dir="{runs}"']
    sets = [x for s in SMALL if "progress_bar" not in s for x in ("--set", s)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", *args, *sets],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
        stdin=subprocess.DEVNULL,
    )
    end = time.monotonic() + 180
    actor: list[int] = []
    while not actor or "steps" not in log.read_text():
        assert proc.poll() is None and time.monotonic() < end, log.read_text()[-2000:]
        actor = [p for p in _children(proc.pid) if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text()]
        time.sleep(0.2)
    time.sleep(2)
    for p in actor:
        os.kill(p, signal.SIGKILL)
    proc.communicate(timeout=120)
    err = log.read_text()
    last = err.strip().splitlines()[-1]
    assert proc.returncode == 2, err[-2000:]
    assert "Traceback" not in err
    assert last.startswith("error: the actor process stopped (exit code -9)")
    assert re.search(r"continue with: qwop train --resume \S+interrupted.zip", last), last
    assert (runs / "dies" / "interrupted.zip").is_file()


def test_a_model_resumed_without_its_buffer_acts_until_the_buffer_is_full(tmp_path: Path) -> None:
    """No gradient step before the resumed policy has filled its buffer (the model's own
    buffer_size, 5,000 here), and then learning goes on."""
    from agents.training.config import load_config
    from agents.training.model_files import load_model
    from agents.training.train import train

    sets = [*SMALL, f'run.out_dir="{tmp_path}"', "run.eval_episodes=1"]
    first = train(load_config(None, [*sets, 'run.name="first"', "run.total_timesteps=1200"]), log=lambda s: None)
    before = load_model(first["model"])[0]._n_updates
    assert before > 0
    lines: list[str] = []
    acting = train(
        load_config(None, [*sets, 'run.name="acting"', "run.steps=2400"]), resume=first["model"], log=lines.append
    )
    assert any("acts 5,000 steps before it learns" in s for s in lines), lines
    model = load_model(acting["model"])[0]
    assert model.num_timesteps == 1200 + 2400 and model.learning_starts == 1200 + 5000
    assert model._n_updates == before  # 2,400 steps acted, none learnt from
    learnt = train(load_config(None, [*sets, 'run.name="learnt"', "run.steps=7000"]), resume=first["model"], log=print)
    assert load_model(learnt["model"])[0]._n_updates > before
    # Saved while it acted, and resumed without the actor process: SB3 would act at random until
    # the raised learning_starts; it learns from the configured one instead.
    lines.clear()
    plain = train(
        load_config(None, [*sets, 'run.name="plain"', "run.steps=800", "batch.async_actor=false"]),
        resume=acting["model"],
        log=lines.append,
    )
    assert any("without the actor process it learns from now on" in s for s in lines), lines
    model = load_model(plain["model"])[0]
    assert model.learning_starts == 400 and model._n_updates > before
