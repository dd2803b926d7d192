"""Training for real-time starts: evaluations start where asked (the traces' start unless a click
is asked for, whatever the model was trained with), ``run.best_click`` judges models from a
real-time page's start after its click, and ``run.best_both`` from both starts."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from sim_env.starts import replay_keys
from tests.support import REPO

pytest.importorskip("stable_baselines3")

MODEL = REPO / "agents" / "models" / "qwop_pddqn.zip"  # 44.70 s from the traces' start, 47.10 s from a click in 90
RECIPE = REPO / "agents" / "recipes" / "human_record.toml"


@pytest.fixture(scope="module")
def model():
    from agents.training.model_files import load_model

    return load_model(MODEL)


def _played_from_click(model, env_options: dict, click: int) -> float:
    """The model's greedy run in the single env, its episodes started after a click in ``click``."""
    opts = dict(env_options, start_click=[click, click], start_noise_updates=0, start_runs=[], late_decision_prob=0.0)
    env = gymnasium.make("QwopSim-v0", **opts).unwrapped
    obs, _ = env.reset(seed=0)
    while True:
        action, _ = model.predict(obs, deterministic=True)
        obs, _, term, trunc, info = env.step(int(action))
        if term or trunc:
            assert info["finished"]
            return float(info["score_time"])


def test_evaluations_start_where_asked_and_replay_from_their_click(model) -> None:
    from agents.training.evaluate import rollouts

    policy, info = model
    trained = dict(info["env"], start_click=[90, 300])  # as a model trained on clicks records it
    plain = rollouts(policy, trained, 1, num_envs=1)[0]
    assert plain.click_update == 0 and plain.finished and plain.time_s == pytest.approx(44.70, abs=0.01)
    clicked = rollouts(policy, trained, 3, num_envs=3, start_click=(90, 90), start_noise_updates=5)
    for e in clicked:
        assert e.click_update == 90
        run = replay_keys(e.keys, "fma", e.click_update)
        assert run["score_time"][-1] == pytest.approx(e.time_s, abs=1e-9)
    assert clicked[0].time_s != plain.time_s


def test_best_click_judges_models_from_a_real_time_pages_start(model, tmp_path) -> None:
    from agents.training.best_model import ModelJudge, kept_line
    from agents.training.config import load_config

    policy, info = model
    meta = {"timesteps": 1, "clock": 0.0}
    traces = ModelJudge(load_config(RECIPE, []), tmp_path / "traces", 0.5, 16).judge(policy, meta)
    cfg = load_config(RECIPE, ["run.best_click=90"])
    clicked = ModelJudge(cfg, tmp_path / "clicked", 0.5, 16).judge(policy, meta)
    assert traces is not None and clicked is not None
    assert "click_update" not in traces and clicked["click_update"] == 90
    assert traces["start_run_time_s"] == pytest.approx(44.70, abs=0.01)
    want = _played_from_click(policy, info["env"], 90)
    assert clicked["start_run_time_s"] == pytest.approx(want, abs=1e-9) and want != traces["start_run_time_s"]
    assert clicked["kept"] and (tmp_path / "clicked" / "best.zip").is_file()
    assert "s from a click in update 90;" in kept_line(clicked) and "s from the start;" in kept_line(traces)
    assert np.isfinite(clicked["median_finish_time_s"])


def test_best_both_judges_a_model_by_its_slower_start(model, tmp_path, monkeypatch) -> None:
    from agents.training import best_model
    from agents.training.best_model import ModelJudge, kept_line
    from agents.training.config import load_config
    from sim_env.errors import UserInputError

    policy, info = model
    meta = {"timesteps": 1, "clock": 0.0}
    asked = []
    real = best_model.evaluate_policy_sim

    def noisy(*args, **kw):
        asked.append((kw["episodes"], tuple(kw["start_click"])))
        return real(*args, **kw)

    monkeypatch.setattr(best_model, "evaluate_policy_sim", noisy)
    cfg = load_config(RECIPE, ["run.best_click=90", "run.best_both=true"])
    row = ModelJudge(cfg, tmp_path / "both", 0.5, 16, confirm_episodes=8).judge(policy, meta)
    assert row is not None and row["kept"] and row["click_update"] == 90
    from_click = _played_from_click(policy, info["env"], 90)
    assert row["start_run_times_s"] == [pytest.approx(44.70, abs=0.01), pytest.approx(from_click, abs=1e-9)]
    assert row["start_run_time_s"] == max(row["start_run_times_s"]) == pytest.approx(from_click, abs=1e-9)
    assert asked == [(8, ()), (8, (90, 90)), (4, ()), (4, (90, 90))]  # half the starts after each
    assert "44.70 s from the start and " in kept_line(row) and "s from a click in update 90;" in kept_line(row)
    # a model slower from the start than the kept one's slower run is not looked at again
    judge = ModelJudge(cfg, tmp_path / "both", 0.5, 16)
    judge.best_time = 45.0
    assert judge.judge(policy, meta) is None
    with pytest.raises(UserInputError, match=r"run\.best_both judges from a click"):
        load_config(RECIPE, ["run.best_both=true"])


def test_the_realtime_recipe_trains_from_real_time_starts(tmp_path) -> None:
    """agents/recipes/realtime.toml: episodes after a click in 90-300 (and inside the planner's
    records), late keys, best/ judged from the click in update 90; it resumes the shipped model."""
    from pathlib import Path

    from agents.training.config import load_config
    from agents.training.train import train

    recipe = REPO / "agents" / "recipes" / "realtime.toml"
    cfg = load_config(recipe)
    assert cfg.env.start_click == [90, 300] and cfg.run.best_click == 90 and cfg.env.late_decision_prob > 0
    assert cfg.run.best_every > 0 and all(Path(p).is_file() for p in cfg.env.start_runs)
    sets = [f'run.out_dir="{tmp_path}"', "run.steps=1500", "run.minutes=0", "run.eval_episodes=2"]
    sets += ["run.progress_bar=false", "run.checkpoint_every=0", "run.best_every=0"]
    summary = train(load_config(recipe, sets), resume=str(MODEL), log=lambda s: None)
    assert summary["timesteps"] >= 256_136_256 + 1500 and summary["eval"]["episodes"] == 2
