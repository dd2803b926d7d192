"""A resumed run trains with the model's own [algo] options, and with what the config and --set
change: applied to the model, recorded in the run's config.toml, refused in one line where the
model cannot take them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.clitools import one_line_error, qwop
from tests.support import small_config

pytest.importorskip("stable_baselines3")

SHIPPED = Path(__file__).resolve().parents[2] / "agents" / "models" / "qwop_pddqn.zip"


def test_a_model_files_options_are_read_back() -> None:
    from agents.training.resumed import saved_options

    saved = saved_options(SHIPPED, "pddqn")
    # the shipped model's recipe (agents/recipes/human_record.toml) sets these away from the defaults
    assert saved["target_update_interval"] == 8000 and saved["buffer_size"] == 500_000
    assert saved["train_freq"] == 4 and saved["per_beta"] == 0.4 and saved["per_alpha"] == 0.6
    assert "learning_starts" not in saved  # it counts from a new model's start


def _first(tmp_path: Path) -> Path:
    from agents.training.train import train

    sets = ['algo.name="pddqn"', 'run.name="first"', "algo.target_update_interval=1234", "run.total_timesteps=1000"]
    cfg = small_config(tmp_path, *sets)
    return Path(train(cfg, log=lambda s: None)["model"])


def test_a_resume_keeps_the_models_options_and_applies_the_ones_given(tmp_path: Path) -> None:
    from agents.training.config import load_config
    from agents.training.resumed import resume_base
    from agents.training.train import train

    first = _first(tmp_path)
    base = resume_base(first)
    assert base.algo.name == "pddqn" and base.algo.target_update_interval == 1234  # not the default 2000
    sets = [
        f'run.out_dir="{tmp_path}"',
        'run.name="second"',
        "run.progress_bar=false",
        "run.eval_episodes=1",
        "batch.num_envs=4",
        "env.time_limit=10.0",
        "run.steps=200",
        "algo.learning_rate=1e-5",
        "algo.exploration_final_eps=0.01",
        "algo.exploration_fraction=0.0001",
        "algo.double_q=false",
        "algo.per_alpha=0.3",  # kept in the buffer's settings: the buffer is made with it
        "algo.return_bound=true",
    ]
    cfg = load_config(None, sets, base=base)
    logs: list[str] = []
    summary = train(cfg, resume=str(first), log=logs.append)
    assert any("algo.learning_rate = 1e-05" in s and "algo.return_bound = True" in s for s in logs)
    from agents.training.model_files import load_model

    model, _ = load_model(summary["model"])
    assert model.learning_rate == 1e-5 and model.exploration_final_eps == 0.01 and model.double_q is False
    assert model.exploration_rate == pytest.approx(0.01)  # the schedule was rebuilt from the new floor
    assert model.policy.optimizer.param_groups[0]["lr"] == pytest.approx(1e-5)
    assert model.target_update_interval == 1234  # kept: not given
    assert model.replay_buffer.alpha == 0.3 and model.replay_buffer.returns is not None
    written = tomllib.loads((tmp_path / "second" / "config.toml").read_text())
    assert written["algo"]["target_update_interval"] == 1234 and written["algo"]["learning_rate"] == 1e-5


def test_an_option_the_model_cannot_change_is_refused_in_one_line(tmp_path: Path) -> None:
    first = _first(tmp_path)
    args = ("train", "--resume", str(first), "--steps", "100", "--set", f'run.out_dir="{tmp_path}"')
    one_line_error(qwop(*args, "--set", "algo.prioritized=false"), "algo.prioritized", "cannot change")
    one_line_error(qwop(*args, "--set", "algo.reward_heads=true"), "algo.reward_heads", "cannot change")
    p = qwop("train", "--resume", str(first), "--print-config")
    assert p.returncode == 0 and "target_update_interval = 1234" in p.stdout  # the model's, not the default
