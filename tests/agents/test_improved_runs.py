"""The rollout policy's runs over a trained agent (agents/search/improved_runs.py), saved as demos,
and demo folders wherever demo files are taken."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sim_env
from agents.cli import main as qwop
from agents.search.guided_rollouts import guide_from_model, policy_rollouts, rollout_rank
from agents.search.improved_runs import improved_demos, improved_run
from agents.shipped import PRETRAINED
from agents.training.evaluate import evaluate_sim
from demos.format import DemoFormatError, demo_files, load_demo
from demos.replay import replay_sim
from demos.start_runs import start_run_keys

# The base model, whose rollout policy finishes from the start (the improvement is one step of
# policy improvement, not a guarantee of a finish).
BASE = PRETRAINED.with_name("qwop_pddqn_base.zip")
pytestmark = pytest.mark.skipif(not BASE.is_file(), reason="agents/models/qwop_pddqn_base.zip is missing")


@pytest.mark.slow
def test_rollout_policy_improves_on_its_guide_and_its_runs_replay(tmp_path: Path) -> None:
    guide = guide_from_model(str(BASE))
    keys, res = improved_run(guide, np.zeros(0, dtype=np.int8), lookahead=15)
    own = evaluate_sim(BASE, episodes=1, num_envs=1, start_noise_updates=0)
    # one step of policy improvement: from the same start, a finish faster than the agent's own
    assert res["finished"] and own["best_run_finished"]
    assert res["time_s"] < own["best_run_time_s"] - 1.0
    run = sim_env.replay(keys)
    assert run["jump_landed"][-1] and run["score"][-1] >= 100.0
    assert run["score_time"][-1] == res["time_s"]
    # every decision is the action whose rollout ranked first
    games = sim_env.GameSet()
    tries = np.repeat(guide.masks[:, None], guide.frame_skip, axis=1)
    out = policy_rollouts(games, np.zeros(len(tries), dtype=np.int32), tries, guide, 15)
    first = int(np.argmax(rollout_rank(out)))
    np.testing.assert_array_equal(keys[: guide.frame_skip], tries[first])

    # saved as demos: the finished runs only, replaying exactly, never over an existing file
    files = improved_demos(str(BASE), 1, tmp_path / "runs", log=lambda s: None)
    assert len(files) == 1
    demo = load_demo(files[0])
    _, div = replay_sim(demo)
    assert div is None and demo.meta["improved_run"] and demo.meta["lookahead"] == 15
    again = improved_demos(str(BASE), 1, tmp_path / "runs", log=lambda s: None)
    assert again[0] != files[0] and len(demo_files(tmp_path / "runs")) == 2
    # a folder of demos is taken wherever demo files are
    assert len(start_run_keys((str(tmp_path / "runs"),))) == 2


def test_improved_runs_command_and_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "imp"
    assert qwop(["improve", str(BASE), "--runs", "1", "--out", str(out)]) == 0
    assert "1 of 1 runs finished" in capsys.readouterr().out and len(list(out.glob("*.npz"))) == 1
    afile = tmp_path / "file.npz"
    afile.write_bytes(b"x")
    assert qwop(["improve", "--runs", "1", "--out", str(afile)]) == 2
    assert "is a file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        qwop(["improve", "--runs", "0"])
    assert exc.value.code == 2
    (tmp_path / "empty").mkdir()
    with pytest.raises(DemoFormatError, match="without demo"):
        demo_files([tmp_path / "empty"])
    assert qwop(["train", "--inject", str(tmp_path / "empty"), "--algo", "pddqn", "--steps", "100"]) == 2
