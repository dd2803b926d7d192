"""The plain policy's click: ``qwop play --horizon 0`` clicks in the intro-screen update whose
start the policy runs fastest from, and a run whose keys all land on time is that run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.realtime.lookahead import LookaheadController
from agents.realtime.play import play_episode
from agents.realtime.policy_click import best_click
from agents.search.guided_rollouts import guide_from_model
from browser_env.pages import SimulatedPage
from tests.clitools import one_line_error, qwop
from tests.support import REPO

MODEL = REPO / "agents" / "models" / "qwop_pddqn.zip"
WINDOW = (90, 101)


@pytest.fixture(scope="module")
def guide():
    return guide_from_model(str(MODEL))


def _played(guide, click_update: int | None, seed: int = 0):
    page = SimulatedPage(seed=seed)  # every key on time; the page is seen after 1-90 intro updates
    return play_episode(page, LookaheadController(guide, horizon=0, click_update=click_update))


def test_the_chosen_click_is_the_fastest_start_of_its_window(guide) -> None:
    chosen = best_click(guide, WINDOW)
    assert WINDOW[0] <= chosen.update <= WINDOW[1] and chosen.finished
    times = {}
    for u in range(WINDOW[0], WINDOW[1] + 1):
        e = _played(guide, u)
        assert e.finished, u
        times[u] = e.time_s
    assert min(times.values()) == pytest.approx(chosen.time_s, abs=1e-9)
    assert chosen.update == min(times, key=lambda u: (times[u], u))
    assert len(set(round(t, 6) for t in times.values())) > 3  # the start matters: the choice is not idle
    # the same start from any page (intro length, clock), hence the same run
    assert {round(_played(guide, chosen.update, seed).time_s, 9) for seed in range(3)} == {round(chosen.time_s, 9)}


def test_a_window_must_be_ordered(guide) -> None:
    with pytest.raises(ValueError, match="window"):
        best_click(guide, (100, 90))


def test_qwop_play_horizon_0_clicks_where_its_model_is_fastest(tmp_path: Path) -> None:
    """By default the plain policy is the model trained for real time (agents/recipes/realtime.toml),
    which clicks where it was judged: a run whose keys all land on time is that run."""
    from agents.shipped import REALTIME_MODEL
    from demos.format import load_demo

    chosen = best_click(guide_from_model(str(REALTIME_MODEL)))
    assert chosen.update == 90 and chosen.time_s == pytest.approx(44.97, abs=0.01)  # its judged start and time
    out = tmp_path / "runs"
    p = qwop("play", "--sim", "--horizon", "0", "--episodes", "2", "--seed", "4", "--out", str(out))
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"the click lands in update {chosen.update}" in p.stdout
    assert load_demo(out / "episode_00.npz").meta["model"] == str(REALTIME_MODEL)
    r = json.loads((out / "report.json").read_text())
    assert r["clicks_on_time"] == 2 and r["controller"]["policy_click"] is True
    assert r["click_update"] == chosen.update
    assert r["times_s"] == [round(chosen.time_s, 4)] * 2
    trace = out / "episode_00.npz"
    p = qwop("play", "--check", str(trace))
    assert p.returncode == 0, p.stderr[-2000:]
    assert "the click lands" not in p.stdout  # checking decisions does not look for the click


def test_without_the_policy_click_the_page_decides(tmp_path: Path, guide) -> None:
    out = tmp_path / "runs"
    p = qwop("play", "--sim", "--horizon", "0", "--no-policy-click", "--episodes", "3", "--out", str(out))
    assert p.returncode == 0, p.stderr[-2000:]
    assert "clicking when the page is ready" in p.stdout and "the click lands" not in p.stdout
    r = json.loads((out / "report.json").read_text())
    assert len(set(r["times_s"])) > 1  # each page's own intro length: another start each time
    assert r["click_update"] is None


@pytest.mark.parametrize(
    "args",
    [("--no-policy-click",), ("--horizon", "30", "--policy-click"), ("--plan", "--no-policy-click")],
)
def test_the_policy_click_is_the_plain_policys(args: tuple[str, ...]) -> None:
    p = qwop("play", "--sim", *args)
    assert p.returncode == 2
    assert "plain policy's (--horizon 0)" in one_line_error(p)
