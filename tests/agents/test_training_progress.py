"""Training shows how it is going: the latest episodes' finish share, median distance and best
time beside the budget, and where its TensorBoard logs are."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("stable_baselines3")

from agents.training.callbacks import TrainingProgress
from tests.clitools import qwop


def test_the_summary_counts_the_latest_episodes() -> None:
    cb = TrainingProgress(steps=1000, window=4)
    cb.num_timesteps = 0
    assert cb.summary() == "0 steps, no episode ended yet"
    ended = [(12.0, False, 30.0), (100.1, True, 47.5), (100.3, True, 45.25), (40.0, False, 20.0), (100.1, True, 46.0)]
    for i, (score, finished, t) in enumerate(ended):
        cb.num_timesteps = 100 * (i + 1)
        cb.locals = {
            "infos": [{"final_score": score, "finished": finished, "final_time": t}, {"distance_m": 3.0}],
            "dones": [True, False],
        }
        cb._on_step()
    # the window holds the last four: 100.1 (47.5 s), 100.3 (45.25 s), 40.0 (fell), 100.1 (46.0 s)
    assert cb.summary() == "500 steps; last 4 episodes: finished 75%, median 100.1 m, best 45.25 s"


@pytest.mark.slow
def test_a_training_run_says_where_tensorboard_is_and_how_episodes_go(tmp_path: Path) -> None:
    p = qwop(
        "train", "--algo", "ppo", "--steps", "4096", "--name", "t",
        "--set", f'run.out_dir="{tmp_path}"', "--set", "run.eval_episodes=2", "--set", "batch.num_envs=16",
        "--set", "algo.n_steps=128", "--set", "env.time_limit=5.0", "--set", "run.best_every=0",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"TensorBoard logs: {tmp_path / 't' / 'tb'}" in p.stdout
    assert "last " in p.stderr and "episodes: finished" in p.stderr
