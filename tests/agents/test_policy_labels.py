"""The rollout policy's labels on a policy's own states (agents/search/policy_labels.py) and their
benchmark (agents/bench/policy_labels.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.bench import policy_labels as bench
from agents.search.guided_rollouts import game_after, guide_from_model, policy_rollouts, rollout_rank
from agents.search.policy_labels import label_policy_states
from agents.shipped import PRETRAINED
from sim_env.errors import UserInputError
from sim_env.observation import observe

pytestmark = pytest.mark.skipif(not PRETRAINED.is_file(), reason="agents/models/qwop_pddqn.zip is missing")


@pytest.fixture(scope="module")
def guide():
    return guide_from_model(str(PRETRAINED))


def test_labels_are_the_rollout_policys_choice_on_the_learners_own_run(guide) -> None:
    data = label_policy_states(guide, guide, games=1, lookahead=2, start_noise=0)
    assert data.games == 1 and len(data.obs) == len(data.labels) == len(data.values) == len(data.learner)
    # the first state is the standard start; its label and values are its rollouts'
    games = game_after(np.zeros(0, dtype=np.int8))
    state = np.asarray(games.body_states())
    assert np.array_equal(data.obs[0], observe(state)[0].astype(np.float32))
    tries = np.repeat(guide.masks[:, None], guide.frame_skip, axis=1)
    out = policy_rollouts(games, np.zeros(len(tries), dtype=np.int32), tries, guide, 2)
    assert data.labels[0] == int(np.argmax(rollout_rank(out)))
    assert np.allclose(data.values[0], np.asarray(out["rollout_x"]))  # no finish or fall 2 decisions in
    # mix 0: the games follow the learner, so its actions are its greedy ones on the states visited
    assert np.array_equal(data.learner, guide.act_obs(data.obs))
    assert 0.0 < data.agreement < 1.0
    assert data.regret_m(data.labels) == 0.0 < data.regret_m(data.learner)  # the label is the best value


def test_labels_are_deterministic_and_a_mix_changes_the_states(guide) -> None:
    a = label_policy_states(guide, guide, games=2, lookahead=1, seed=3, threads=2)
    b = label_policy_states(guide, guide, games=2, lookahead=1, seed=3, threads=1)
    assert np.array_equal(a.obs, b.obs) and np.array_equal(a.labels, b.labels)
    c = label_policy_states(guide, guide, games=2, lookahead=1, seed=3, mix=1.0)
    assert len(c.obs) != len(a.obs) or not np.array_equal(c.obs, a.obs)


@pytest.mark.parametrize(
    "kwargs", [{"games": 0}, {"lookahead": 0}, {"start_noise": -1}, {"mix": 1.5}], ids=lambda k: next(iter(k))
)
def test_impossible_values_are_refused(guide, kwargs) -> None:
    with pytest.raises(UserInputError):
        label_policy_states(guide, guide, **{"games": 1, "lookahead": 1, **kwargs})


def test_the_benchmark_fits_and_reports_without_overwriting(tmp_path: Path, capsys) -> None:
    out = tmp_path / "rows.json"
    assert bench.main(["--quick", "--fit", "margin:1e-3", "advantage:1e-3", "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["model"] for r in rows] == ["as it is", "margin 0.001", "advantage 0.001"]
    assert rows[0]["from_start_s"] == pytest.approx(44.70, abs=0.01)  # the shipped model's run
    assert all(r["loss"][1] < r["loss"][0] for r in rows[1:])
    assert "| as it is |" in capsys.readouterr().out
    with pytest.raises(UserInputError, match="exists"):
        bench.main(["--quick", "--out", str(out)])
    with pytest.raises(SystemExit):
        bench.main(["--quick", "--fit", "hinge:0.1"])


def test_kept_labels_are_fitted_on_again_with_the_same_rows(tmp_path: Path) -> None:
    kept, first, again = tmp_path / "labels.npz", tmp_path / "a.json", tmp_path / "b.json"
    assert bench.main(["--quick", "--fit", "soft:1e-3", "--save-labels", str(kept), "--out", str(first)]) == 0
    assert bench.main(["--quick", "--fit", "soft:1e-3", "--labels", str(kept), "--out", str(again)]) == 0
    a, b = json.loads(first.read_text())["rows"], json.loads(again.read_text())["rows"]
    assert a == b and a[1]["model"] == "soft 0.001" and a[1]["loss"][1] < a[1]["loss"][0]
    assert json.loads(again.read_text())["labelled"]["lookahead"] == json.loads(first.read_text())["lookahead"] == 3
    with pytest.raises(UserInputError, match="drop --games, --save-labels"):  # kept labels are not made again
        bench.main(["--quick", "--labels", str(kept), "--games", "8", "--save-labels", str(tmp_path / "c.npz")])
    with pytest.raises(UserInputError, match="--mix is a chance"):
        bench.main(["--quick", "--mix", "1.5"])
    with pytest.raises(UserInputError, match="exists"):
        bench.main(["--quick", "--save-labels", str(kept)])
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(kept.read_bytes()[:200])
    with pytest.raises(UserInputError, match="damaged"):
        bench.main(["--quick", "--labels", str(damaged)])
    with pytest.raises(UserInputError, match="not found"):
        bench.main(["--quick", "--labels", str(tmp_path / "none.npz")])
