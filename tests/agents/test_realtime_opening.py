"""The opening ``qwop play`` follows first: a fresh page's state after a click in a fixed update
is always the same, the opening is planned from it, followed while the game passes through its
states, left at the first key that lands late, saved and loaded whole, refused in one line when
damaged, and its decisions are made again from a trace."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agents.realtime.lookahead import FROM_OPENING, PLAIN_FROM_STATE
from agents.realtime.opening import Opening, load_opening, plan_opening
from agents.realtime.play import play_episode
from agents.realtime.receding import BeamController
from agents.search.guided_rollouts import guide_from_model
from browser_env.pages import SimulatedPage
from browser_env.predicted import PredictedPlay
from demos.format import load_demo
from sim_env import QwopSim
from sim_env.errors import UserInputError
from sim_env.starts import clicked_start
from tests.clitools import one_line_error, qwop
from tests.support import REPO

MODEL = REPO / "agents" / "models" / "qwop_pddqn.zip"
CLICK = 20  # the update the tests' openings are planned to click in


@pytest.fixture(scope="module")
def guide():
    return guide_from_model(str(MODEL))


@pytest.fixture(scope="module")
def opening(guide) -> Opening:
    """A short opening: 40 decisions (5.3 game seconds) from a click in update 20."""
    masks = plan_opening(BeamController(guide, beam=3, lead=5), CLICK, time_limit_s=40 * 4 / 30)
    return Opening.from_decisions(CLICK, "fma", masks, guide.frame_skip, meta={"made_by": "test"})


def test_a_click_in_the_same_update_gives_the_same_first_state_on_every_page() -> None:
    """What the opening rests on: pages opened after different intro lengths, with different
    clocks, give the first decision one exact state if the click lands in the same update."""
    seen = []
    for seed, intro in ((0, 3), (1, 11), (2, 19)):
        play = PredictedPlay(SimulatedPage(seed=seed, intro_updates=(intro, intro)), 4)
        got: list[bytes] = []
        play.begin(prepare=lambda snap, deadline, got=got: got.append(snap), click_update=CLICK)
        assert play.first_update == CLICK and got == [play.decision_state()]
        seen.append(got[0])
    assert seen[0] == seen[1] == seen[2] == clicked_start(CLICK)
    assert clicked_start(CLICK + 1) != seen[0]


def test_the_opening_is_followed_on_time_and_left_at_the_first_late_key(guide, opening) -> None:
    ctl = BeamController(guide, beam=3, lead=5, opening=opening)
    ep = play_episode(SimulatedPage(seed=1, intro_updates=(5, 10)), ctl, time_limit=8.0)
    depth = ep.decision_log.depth
    assert ep.click_late == 0 and ep.late == 0
    assert depth[: len(opening)] == [FROM_OPENING] * len(opening) and ctl.from_opening == len(opening)
    assert ep.decision_log.mask[: len(opening)] == [int(m) for m in opening.masks]
    assert FROM_OPENING not in depth[len(opening) :] and depth[len(opening)] >= 1  # the beam took over
    assert ctl.restarts == 1  # once, where the opening ended: no beam was grown while it led

    # every key change late: the first one leaves the opening's states for good
    ctl = BeamController(guide, beam=3, lead=5, opening=opening)
    ep = play_episode(SimulatedPage(late=1.0, seed=1, intro_updates=(5, 10)), ctl, time_limit=4.0)
    first_change = next(i for i, m in enumerate(opening.masks) if m != 0)
    assert ep.decision_log.depth[: first_change + 1] == [FROM_OPENING] * (first_change + 1)
    assert FROM_OPENING not in ep.decision_log.depth[first_change + 1 :]


def test_the_opening_sets_how_long_its_keys_are_held_and_nothing_else_does(guide) -> None:
    keys = np.array([0, 0, 9, 9, 9, 9, 9, 9, 9, 6, 6, 6], dtype=np.int8)  # holds of 2, 7, 3
    ctl = BeamController(guide, beam=3, lead=3, opening=Opening(CLICK, "fma", keys))
    sim = QwopSim()
    sim.restore(clicked_start(CLICK))
    got = []
    for _ in range(3):
        mask = ctl.decide(sim.snapshot(), 0)
        got.append((mask, ctl.hold, ctl.last_depth))
        sim.advance(np.full(ctl.hold, mask, dtype=np.int8))
    assert got == [(0, 2, FROM_OPENING), (9, 7, FROM_OPENING), (6, 3, FROM_OPENING)]
    ctl.decide(None, 6, state=sim.body_state())  # from the page's state (the mirror had differed)
    assert ctl.last_depth == PLAIN_FROM_STATE and ctl.hold == guide.frame_skip
    ctl.decide(sim.snapshot(), 6)  # past its end: the planner's decision, a frame skip long
    assert ctl.last_depth >= 0 and ctl.hold == guide.frame_skip


def test_a_page_past_the_opening_click_plays_without_it(guide, opening) -> None:
    ctl = BeamController(guide, beam=3, lead=5, opening=opening)
    ep = play_episode(SimulatedPage(seed=2, intro_updates=(CLICK + 5, CLICK + 5)), ctl, time_limit=3.0)
    assert ep.click_late == 0 and ctl.from_opening == 0 and FROM_OPENING not in ep.decision_log.depth


def test_an_opening_is_saved_and_loaded_whole_and_a_damaged_one_refused(opening, tmp_path: Path) -> None:
    path = opening.save(tmp_path / "o.npz")
    again = load_opening(path)
    assert again.click_update == CLICK and np.array_equal(again.masks, opening.masks) and again.meta == opening.meta
    assert again.decision(clicked_start(CLICK))[0] == int(opening.masks[0]) and again.decision(b"x") is None
    assert opening.save(path) != path  # a taken name is never overwritten
    (tmp_path / "junk.npz").write_bytes(b"not an archive")
    np.savez(tmp_path / "other.npz", masks=np.zeros(3))
    for bad in ("junk.npz", "other.npz"):
        with pytest.raises(UserInputError, match="not an opening"):
            load_opening(tmp_path / bad)
    with pytest.raises(UserInputError, match="opening not found"):
        load_opening(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="key masks"):
        Opening(CLICK, "fma", np.array([3, 16], dtype=np.int8))


def test_qwop_opening_plans_one_that_qwop_play_follows_and_checks(tmp_path: Path) -> None:
    out, trace = tmp_path / "o.npz", tmp_path / "t.npz"
    p = qwop("opening", "--beam", "2", "--lead", "3", "--time-limit", "3", "--out", str(out))
    assert p.returncode == 0, p.stderr[-2000:]
    assert "from a click in update 90" in p.stdout and load_opening(out).meta["planner"]["beam"] == 2
    args = ("play", "--sim", "--seed", "3", "--beam", "3", "--lead", "4", "--time-limit", "5", "--opening", str(out))
    p = qwop(*args, "--trace", str(trace))
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"after the opening {out}" in p.stdout
    demo = load_demo(trace)
    assert demo.meta["controller"]["opening"] == str(out) and FROM_OPENING in demo.meta["decisions"]["depth"]
    p = qwop("play", "--check", str(trace))
    assert p.returncode == 0 and "decisions made again offline" in p.stdout, p.stdout + p.stderr[-2000:]

    one_line_error(qwop("play", "--sim", "--no-plan", "--opening", str(out)), "--opening set the planner")
    one_line_error(qwop("play", "--sim", "--opening", str(tmp_path / "none.npz")), "opening not found")
    (tmp_path / "bad.npz").write_bytes(b"\0" * 10)
    one_line_error(qwop("play", "--sim", "--opening", str(tmp_path / "bad.npz")), "not an opening")
    one_line_error(qwop("opening", "--click-update", "1", "--out", str(tmp_path / "x.npz")), "--click-update")


def test_a_search_from_the_click_is_an_opening_with_key_changes_at_any_update(tmp_path: Path) -> None:
    """``qwop search --click-update``: every line starts from the clicked page's state, the best
    run is saved as an opening whose keys change at any update, and qwop play holds each
    decision's keys as long as the opening does (decisions made again from the trace)."""
    from sim_env.starts import replay_keys, start_game

    sim = start_game("fma", CLICK)
    assert sim.snapshot() == clicked_start(CLICK)
    keys = np.array([5, 5, 9, 0, 3] * 6, dtype=np.int8)
    run = replay_keys(keys, "fma", CLICK)
    for k in keys:
        sim.update(int(k))
    np.testing.assert_array_equal(run["state"][-1], sim.body_state())
    assert run["score_time"][-1] == sim.score_time

    out, trace = tmp_path / "o.npz", tmp_path / "t.npz"
    p = qwop("search", "--guide", "--click-update", "90", "--updates", "2000000", "--threads", "1",
             "--state", str(tmp_path / "s.npz"), "--out", str(out))  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    found = re.search(r"best run: 100 m in (\d+\.\d\d) s, saved as an opening", p.stdout)
    assert found and "qwop play --opening" in p.stdout, p.stdout
    opening = load_opening(out)
    assert opening.click_update == 90 and f"{opening.outcome()['time_s']:.2f}" == found.group(1)
    holds = np.diff(np.flatnonzero(np.diff(opening.keys, prepend=np.int8(-1)) != 0))
    assert set(holds) - {4, 8, 12, 16, 20}, holds  # key changes off the frame-skip grid
    p = qwop("play", "--sim", "--seed", "3", "--time-limit", "6", "--opening", str(out), "--trace", str(trace))
    assert p.returncode == 0, p.stderr[-2000:]
    log = load_demo(trace).meta["decisions"]
    n = next((i for i, d in enumerate(log["depth"]) if d != FROM_OPENING), len(log["depth"]))
    assert n >= 20 and list(np.diff(log["intended"][:n])) == list(holds[: n - 1])
    p = qwop("play", "--check", str(trace))
    assert p.returncode == 0 and "decisions made again offline" in p.stdout, p.stdout + p.stderr[-2000:]
    one_line_error(qwop("search", "--guide", "--click-update", "90", "--gif", str(tmp_path / "g.gif"),
                        "--updates", "10"), "--click-update")  # fmt: skip
