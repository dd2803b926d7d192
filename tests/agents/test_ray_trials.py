"""Training trials on Ray (qwop train --ray ADDRESS|local --seeds N): the grid from --set
lists, a run folder per trial, one table, the best model kept, a failing trial reported
while the others finish."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clitools import one_line_error, qwop
from tests.support import NEEDS_RAY


def test_set_lists_are_a_grid_and_seeds_multiply_it() -> None:
    from agents.training.ray_trials import plan

    fixed, trials = plan(["algo.learning_rate=[1e-4,3e-4]", "batch.num_envs=8", "policy.net_arch=[[64],[32,32]]"], 2, 5)
    assert fixed == ["batch.num_envs=8"]
    assert len(trials) == 8 and len({t.name for t in trials}) == 8
    assert trials[0].name == "learning_rate=0.0001-net_arch=64-seed5"
    assert trials[-1].name == "learning_rate=0.0003-net_arch=32x32-seed6"
    assert trials[-1].overrides == {
        "run": {"seed": 6},
        "algo": {"learning_rate": 3e-4},
        "policy": {"net_arch": [32, 32]},
    }
    # values alike once shortened to folder names: the grid points are numbered
    _, trials = plan(['imitation.inject=[["a/x.npz"], ["b/x.npz"]]'], 1, 0)
    assert [t.name for t in trials] == ["p0-inject=x-seed0", "p1-inject=x-seed0"]
    # a list for a list parameter is one value, not an axis
    fixed, trials = plan(["policy.net_arch=[64,64]"], 3, 0)
    assert fixed == ["policy.net_arch=[64,64]"] and [t.name for t in trials] == ["seed0", "seed1", "seed2"]


def test_seeds_without_ray_and_bad_addresses_are_one_line_errors(tmp_path: Path) -> None:
    one_line_error(qwop("train", "--seeds", "3"), "--seeds runs trials on Ray")
    one_line_error(qwop("train", "--ray", "local", "--resume", "x.zip"), "--ray starts new trials")


@NEEDS_RAY
def test_a_ray_address_that_does_not_answer(tmp_path: Path) -> None:
    p = qwop("train", "--ray", "127.0.0.1:9", "--steps", "100", "--set", f'run.out_dir="{tmp_path}"')
    one_line_error(p, "does not answer")


@pytest.mark.slow
@NEEDS_RAY
def test_trials_on_a_local_cluster_report_into_one_table_and_keep_the_best(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    small = [
        'algo.name="pddqn"',
        "batch.num_envs=4",
        "algo.learning_starts=200",
        "algo.buffer_size=5000",
        "algo.batch_size=32",
        "policy.net_arch=[32]",
        "run.eval_episodes=2",
        "run.checkpoint_every=0",
        f'run.out_dir="{runs}"',
        # the second grid point fails: its demonstrations do not exist
        f'imitation.inject=[[], ["{tmp_path / "missing.npz"}"]]',
    ]
    p = qwop(
        "train", "--ray", "local", "--seeds", "2", "--steps", "1500", "--name", "grid",
        *[x for s in small for x in ("--set", s)],
        timeout=900,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    assert "| trial | status | env steps |" in p.stdout
    rows = {r["trial"]: r for r in json.loads((runs / "grid" / "trials.json").read_text())}
    assert set(rows) == {"inject=-seed0", "inject=-seed1", "inject=missing-seed0", "inject=missing-seed1"}
    done = [r for r in rows.values() if r["status"] == "done"]
    failed = [r for r in rows.values() if r["status"] == "failed"]
    assert len(done) == 2 and len(failed) == 2
    assert all("missing.npz" in r["error"] and "Traceback" not in r["error"] for r in failed)
    for r in done:
        assert r["timesteps"] >= 1500 and Path(r["run_dir"]).parent == runs / "grid"
        assert (Path(r["run_dir"]) / "final.zip").is_file() and (runs / "grid" / f"{r['trial']}.log").is_file()
    from agents.training.model_files import load_model, model_sidecar

    best = runs / "grid" / "best.zip"
    assert best.is_file() and model_sidecar(best).is_file()
    model, info = load_model(best)
    assert model.num_timesteps >= 1500 and info["env"]["frame_skip"] == 4
    assert "best of 4 trials: inject=-seed" in p.stdout


@pytest.mark.slow
@NEEDS_RAY
def test_ctrl_c_stops_every_trial_and_each_saves_its_model(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    from tests.support import REPO

    runs = tmp_path / "runs"
    sets = ['algo.name="pddqn"', "batch.num_envs=4", "run.checkpoint_every=0", f'run.out_dir="{runs}"']
    args = ["train", "--ray", "local", "--seeds", "2", "--steps", "100000000", "--name", "cut"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", *args, *[x for s in sets for x in ("--set", s)]],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # started as a shell starts a job in the background: SIGINT ignored, which Python then
        # never turns into KeyboardInterrupt; the command's own handler must still see it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    end = time.monotonic() + 240
    while len(list(runs.glob("cut/*/tb/*/*"))) < 2:  # both trials are training
        assert proc.poll() is None and time.monotonic() < end, proc.stderr.read()[-2000:] if proc.stderr else ""
        time.sleep(0.5)
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    rows = json.loads((runs / "cut" / "trials.json").read_text())
    assert sorted(r["status"] for r in rows) == ["interrupted", "interrupted"]
    for trial in ("seed0", "seed1"):
        assert (runs / "cut" / trial / "interrupted.zip").is_file()
        assert (runs / "cut" / trial / "interrupted_replay_buffer.npz").is_file()
