"""Judging models for best/ in a process beside the learner (run.best_async): the process
gives the verdict the learner would, keeps the very weights it was handed, always takes the
newest model waiting, and a judge that dies leaves the run judging in the learner."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
import zipfile

import pytest

from tests.support import REPO

pytest.importorskip("stable_baselines3")

BASE = REPO / "agents" / "models" / "qwop_pddqn_base.zip"  # 56.87 s from the start
RECIPE = REPO / "agents" / "recipes" / "record.toml"
VOLATILE = ("model", "judged_clock", "dropped_looks")


def _setup():
    from agents.training.config import load_config
    from agents.training.model_files import load_model

    model, _ = load_model(BASE)
    return load_config(RECIPE, ['run.then=""']), model


def _verdict(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in VOLATILE}


def test_a_judge_process_gives_the_verdict_of_the_learner_and_keeps_the_weights_it_was_handed(tmp_path):
    import torch

    from agents.training.best_model import ModelJudge
    from agents.training.judge import JudgeProcess
    from agents.training.model_files import load_model

    cfg, model = _setup()
    # the learner's optimizer has a state of its own: one step on a made-up loss
    q = model.policy.q_net(torch.zeros(1, 83)).sum()
    q.backward()
    model.policy.optimizer.step()
    meta = {"timesteps": 1234, "clock": 0.0}
    inline = ModelJudge(cfg, tmp_path / "inline", 0.5, 32, 32).judge(model, meta)
    judge = ModelJudge(cfg, tmp_path / "proc", 0.5, 32, 32)
    process = JudgeProcess(judge, model)
    process.submit(model, meta)
    rows = process.finish(log=lambda s: None)
    assert inline is not None and inline["kept"]
    assert [_verdict(r) for r in rows] == [_verdict(inline)]
    assert judge.rows == rows and judge.best_time == inline["start_run_time_s"]
    on_disk = json.loads((tmp_path / "proc" / "best.json").read_text())
    assert [_verdict(r) for r in on_disk] == [_verdict(inline)]
    kept, info = load_model(tmp_path / "proc" / "best.zip")
    assert info["num_timesteps"] == 1234 and kept.num_timesteps == 1234
    for a, b in zip(kept.policy.state_dict().values(), model.policy.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    theirs, ours = kept.policy.optimizer.state_dict()["state"], model.policy.optimizer.state_dict()["state"]
    assert theirs.keys() == ours.keys() and all(torch.equal(theirs[k]["exp_avg"], ours[k]["exp_avg"]) for k in ours)
    assert not process._proc.is_alive() and not process._tmp.exists()


def test_the_newest_model_waits_for_a_busy_judge_and_replaces_an_older_one(tmp_path):
    from agents.training.best_model import ModelJudge
    from agents.training.judge import JudgeProcess

    cfg, model = _setup()
    judge = ModelJudge(cfg, tmp_path, 0.0, 64, 256)
    process = JudgeProcess(judge, model)
    for steps in (100, 200, 300):  # the first is sent at once; 200 waits, then 300 replaces it
        process.submit(model, {"timesteps": steps})
    assert process.busy and process.dropped == 1 and process.pending[0]["timesteps"] == 300
    rows = process.finish(log=lambda s: None)
    # 300 was judged after 100: no faster from the start, so not looked at closely (no row)
    assert [r["timesteps"] for r in rows] == [100] and rows[0]["dropped_looks"] == 0
    assert not process.busy and process.pending is None


def test_a_nice_judge_runs_at_the_lower_priority_asked_for(tmp_path):
    from agents.training.best_model import ModelJudge
    from agents.training.config import load_config
    from agents.training.judge import JudgeProcess

    _, model = _setup()
    cfg = load_config(RECIPE, ['run.then=""', "run.judge_nice=7"])
    process = JudgeProcess(ModelJudge(cfg, tmp_path, 0.5, 32, 32), model)
    try:
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        want, end = min(19, mine + 7), time.monotonic() + 60  # the judge sets it once it has started
        while os.getpriority(os.PRIO_PROCESS, process._proc.pid) != want and time.monotonic() < end:
            time.sleep(0.1)
        assert os.getpriority(os.PRIO_PROCESS, process._proc.pid) == want
        assert os.getpriority(os.PRIO_PROCESS, 0) == mine  # the learner's own is unchanged
    finally:
        process.finish(log=lambda s: None)


def test_a_judge_that_dies_leaves_the_run_judging_in_the_learner(tmp_path):
    from agents.training.best_model import KeepBest

    cfg, model = _setup()
    logs: list[str] = []
    keep = KeepBest(cfg, tmp_path, every=1, min_success=0.0, episodes=4, log=logs.append, in_process=False)
    keep.init_callback(model)
    keep.on_training_start({}, {})
    try:
        assert keep.process is not None
        keep.look()
        os.kill(keep.process._proc.pid, signal.SIGKILL)
        end = time.monotonic() + 30
        while keep.process is not None and time.monotonic() < end:
            keep._take(keep.process.poll(timeout=0.5))
        assert keep.process is None
        assert any("the judge process stopped" in s and "judging in the learner from now on" in s for s in logs)
        row = keep.look()  # judged here and now
        assert row is not None and row["kept"] and (tmp_path / "best.zip").is_file()
    finally:
        keep.close()
    assert not multiprocessing.active_children()


@pytest.mark.slow
def test_a_run_with_a_judge_process_keeps_its_fastest_models(tmp_path):
    from agents.training.config import load_config
    from agents.training.evaluate import evaluate_sim
    from agents.training.train import train

    sets = [f'run.out_dir="{tmp_path}"', "run.total_timesteps=3000", "run.steps=3000", 'run.then=""']
    sets += ["algo.learning_starts=500", "run.eval_episodes=4", "run.best_episodes=4", "run.best_confirm_episodes=4"]
    sets += ["run.progress_bar=false", "run.checkpoint_every=0", "run.best_async=true"]
    sets += ["run.best_every=8", "run.best_min_success=0.0", 'run.name="r"', "batch.num_envs=8"]
    logs: list[str] = []
    train(load_config(RECIPE, sets), resume=str(BASE), log=logs.append)
    best = tmp_path / "r" / "best"
    rows = json.loads((best / "best.json").read_text())
    kept = [r for r in rows if r["kept"]]
    assert kept and any(s.startswith("kept ") for s in logs)
    times = [r["start_run_time_s"] for r in kept]
    assert times == sorted(times, reverse=True) and len(set(times)) == len(times)
    assert all(zipfile.is_zipfile(r["model"]) for r in kept)
    again = evaluate_sim(best / "best.zip", episodes=1, num_envs=1, start_noise_updates=0)
    assert again["best_run_finished"] and again["best_run_time_s"] == times[-1]
    assert not multiprocessing.active_children()  # the actor and the judge have ended
    # every look is on record, those not looked at closely too: its steps and its time from the start
    header, *looks = (best / "looks.csv").read_text().splitlines()
    assert header == "timesteps,start_run_time_s" and len(looks) >= len(rows)
    seen = dict(line.split(",") for line in looks)
    assert all(seen[str(r["timesteps"])] == f"{r['start_run_time_s']:.2f}" for r in rows)
    finished = [float(t) for t in seen.values() if t]
    assert min(finished) == pytest.approx(times[-1], abs=0.005)


def test_the_judges_status_counts_its_looks_and_names_the_fastest(tmp_path):
    from agents.training.best_model import ModelJudge

    cfg, _ = _setup()
    judge = ModelJudge(cfg, tmp_path, 0.5, 4, 0)
    assert judge.status() == ""
    judge._looked({"timesteps": 10}, None)
    judge._looked({"timesteps": 20}, 50.5)
    judge._looked({"timesteps": 30}, 52.0)
    assert judge.status() == "best/: 3 looks, fastest 50.50 s"
    judge.best_time = 50.5
    assert judge.status().endswith(", kept 50.50 s")
    assert (tmp_path / "looks.csv").read_text() == "timesteps,start_run_time_s\n10,\n20,50.50\n30,52.00\n"
