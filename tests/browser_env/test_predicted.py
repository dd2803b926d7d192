"""Predicted decisions and lookahead control on the simulated page: the mirror follows a page bit
for bit and names the first difference; decisions land where they are meant to, late keys are
followed; the decision state is the page's state before it gets there; ``qwop play --sim``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import sim_env
from agents.realtime.lookahead import LookaheadController
from agents.realtime.play import play_episode, replays_exactly, report
from agents.search.guided_rollouts import guide_from_model, policy_rollouts, rollout_rank
from browser_env.mirror import MirrorDivergedError, PageMirror
from browser_env.pages import SimulatedPage
from browser_env.predicted import NEXT_MARGIN_S, PredictedPlay, WorkMargin
from sim_env.spec import FLAG_FIRST_CLICK, HEADER, REC_EVENT, REC_FLAGS, REC_UPDATE
from tests.clitools import one_line_error, qwop
from tests.support import REPO

MODEL = REPO / "agents" / "models" / "qwop_pddqn.zip"


@pytest.fixture(scope="module")
def guide():
    return guide_from_model(str(MODEL))


def _session(page: SimulatedPage, keys: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Open the page, click, run until the click has landed and then ``keys`` (one per update):
    its records since page load."""
    start = page.open()
    rows = [start.records]
    page.click()
    while len(rows) == 1 or not int(rows[-1][0, REC_FLAGS]) & FLAG_FIRST_CLICK:
        rows.append(page.records(0.0))
    for k in keys:
        page.press(k)
        rows.append(page.records(0.0))
    return start.initial, np.concatenate(rows)


def test_mirror_follows_a_page_bit_for_bit() -> None:
    page = SimulatedPage(seed=3)
    initial, rec = _session(page, [9] * 40 + [6] * 40 + [0] * 10)
    start_time = float(rec[0, 3]) - 1 / 30  # the page's time at load (one intro update ran since)
    mirror = PageMirror(initial, start_time, "fma")
    for r in rec:
        assert mirror.follow(r)
    assert mirror.ok and mirror.clicked and mirror.updates == len(rec)
    np.testing.assert_array_equal(mirror.sim.body_state().ravel(), rec[-1, HEADER:])


def test_mirror_names_the_first_difference() -> None:
    page = SimulatedPage(seed=1)
    initial, rec = _session(page, [9] * 30)
    bad = rec.copy()
    k = len(bad) - 10
    bad[k, HEADER + 0] = np.nextafter(bad[k, HEADER + 0], np.inf)  # torso x, one bit
    mirror = PageMirror(initial, float(rec[0, 3]) - 1 / 30, "fma")
    results = [mirror.follow(r) for r in bad]
    assert results[k - 1] and not results[k] and not mirror.ok
    d = mirror.divergence
    assert d is not None and d.update == int(bad[k, REC_UPDATE]) and d.quantity == "state[torso, x]"
    assert "differs from the page at update" in str(d)
    strict = PageMirror(initial, float(rec[0, 3]) - 1 / 30, "fma", strict=True)
    with pytest.raises(MirrorDivergedError, match=r"state\[torso, x\]"):
        for r in bad:
            strict.follow(r)
    with pytest.raises(ValueError, match="neither"):
        PageMirror(initial, 0.0, "neither")


def _play(page: SimulatedPage, masks: list[int], fs: int = 4) -> tuple[PredictedPlay, list]:
    play = PredictedPlay(page, fs, strict=True)
    play.begin()
    decided = []
    for m in masks:
        snap = play.decision_state()
        point = play.point
        d = play.act(m)
        decided.append((snap, point, d))
    return play, decided


def test_decisions_land_in_their_update_and_the_prediction_is_exact() -> None:
    masks = [9, 6, 6, 1, 8, 0, 9, 5, 10] * 3
    play, decided = _play(SimulatedPage(seed=2), masks)
    by_update = {int(r[REC_UPDATE]): r for r in play.records}
    for snap, point, d in decided:
        assert d.landed == d.intended == point
        # the decision state was computed before the page ran update point - 1; it is that update's
        sim = sim_env.QwopSim()
        sim.restore(snap)
        np.testing.assert_array_equal(sim.body_state().ravel(), by_update[point - 1][HEADER:])
        assert int(by_update[point][REC_EVENT]) == d.mask
    points = [p for _, p, _ in decided]
    assert np.all(np.diff(points) == 4) and points[0] == play.first_update + 1
    assert play.stats.on_time == len(masks) and play.stats.late == 0


def test_the_click_lands_when_sent_and_the_intro_work_gets_the_first_decisions_state() -> None:
    page = SimulatedPage(seed=8, intro_updates=(5, 5))
    start = page.open()
    assert len(start.records) == 5 and not int(start.records[-1][REC_FLAGS]) & FLAG_FIRST_CLICK
    given: list[tuple[bytes, float | None]] = []
    play = PredictedPlay(SimulatedPage(seed=8, intro_updates=(5, 5)), 4, strict=True)
    play.begin(prepare=lambda snap, deadline: given.append((snap, deadline)))
    assert play.first_update == 6  # five intro updates, the click in the next
    assert len(given) == 1 and given[0][1] is None  # a page that waits gives no deadline
    assert play.decision_state() == given[0][0]  # the state the first decision has, bit for bit
    # a real page: the click is meant for the update a settle time after the page opened
    play = PredictedPlay(SimulatedPage(seed=8, intro_updates=(5, 5)), 4, strict=True)
    play.begin(settle_s=0.5, prepare=lambda snap, deadline: given.append((snap, deadline)))
    assert play.first_update == 5 + 15 and play.decision_state() == given[1][0]


def test_the_work_margin_grows_when_keys_come_close_and_shrinks_back() -> None:
    m = WorkMargin()
    assert m.seconds == m.most_s  # a page's first seconds: the most
    for _ in range(300):
        m.update(30.0, False)  # keys well ahead of their update: back to the least
    assert m.seconds == pytest.approx(NEXT_MARGIN_S, abs=1e-6)
    m.seconds = NEXT_MARGIN_S
    m.update(-20.0, True)  # sent 20 ms after the update ran: the work must end 30 ms earlier
    assert m.seconds == pytest.approx(NEXT_MARGIN_S + 0.030)
    for _ in range(10):
        m.update(-50.0, True)
    assert m.seconds == m.most_s  # never more
    for _ in range(300):
        m.update(float("nan"), False)
    assert m.seconds == pytest.approx(NEXT_MARGIN_S, abs=1e-6)


def test_a_decision_held_longer_or_shorter_than_the_frame_skip_lands_where_meant() -> None:
    holds = [1, 7, 2, 4, 13, 3]
    play = PredictedPlay(SimulatedPage(seed=2), 4, strict=True)
    play.begin()
    points = []
    for m, h in zip([9, 6, 1, 8, 0, 5], holds, strict=True):
        points.append(play.point)
        d = play.act(m, hold=h)
        assert d.landed == d.intended
    assert list(np.diff(points)) == holds[:-1] and play.mirror.ok
    with pytest.raises(ValueError, match="at least 1 update"):
        play.act(3, hold=0)


def test_late_keys_are_followed_and_the_next_decision_starts_from_where_they_landed() -> None:
    masks = [9, 6, 9, 6, 9, 6]
    play, decided = _play(SimulatedPage(seed=2, late=1.0), masks)
    for _, point, d in decided:
        assert d.landed == point + 1 and d.changed
    points = [p for _, p, _ in decided]
    assert np.all(np.diff(points) == 5)  # a frame-skip after the landing
    assert play.stats.late == len(masks) and play.stats.on_time == 0 and play.mirror.ok


def test_records_arriving_several_at_once_the_page_state_is_the_one_decided_from() -> None:
    # A busy browser delivers several updates' records at once: waiting for the update before a
    # decision's can bring later ones too, and the page's state compared with the decision's
    # must still be that update's, not the latest record.
    play = PredictedPlay(SimulatedPage(seed=4, burst=3), 4, strict=True)
    play.begin()
    overshot = 0
    for m in [9, 6, 6, 1, 8, 0, 9, 5, 10] * 3:
        snap = play.decision_state()
        assert snap is not None
        sim = sim_env.QwopSim()
        sim.restore(snap)
        decided_from = max(play.point - 1, play.last_update)
        state = play.page_state()
        np.testing.assert_array_equal(sim.body_state(), state)
        overshot += play.last_update > decided_from
        play.act(m)
    assert overshot > 0  # the page did run past the update decided from
    assert play.stats.late > 0 and play.mirror.ok


def test_lookahead_takes_the_action_whose_rollout_goes_best(guide) -> None:
    play, _ = _play(SimulatedPage(seed=5), [9] * 12)
    snap = play.decision_state()
    ctl = LookaheadController(guide, horizon=6)
    chosen = ctl.decide(snap, play.page.held)
    games = sim_env.GameSet().select(np.zeros(0, dtype=np.int32))
    games.add(snap)
    keys = np.repeat(guide.masks[:, None], guide.frame_skip, axis=1)
    out = policy_rollouts(games, np.zeros(len(keys), dtype=np.int32), keys, guide, 6)
    assert chosen == int(guide.masks[int(np.argmax(rollout_rank(out)))])
    sim = sim_env.QwopSim()
    sim.restore(snap)
    plain = LookaheadController(guide, horizon=0)
    assert plain.decide(snap, 0) == int(guide.masks[int(guide.act(sim.body_state()[None])[0])])
    with pytest.raises(ValueError, match="horizon"):
        LookaheadController(guide, horizon=-1)


def test_played_episode_replays_exactly_and_reports(guide) -> None:
    ctl = LookaheadController(guide, horizon=0)
    ep = play_episode(SimulatedPage(seed=7, late=0.2), ctl, time_limit=6.0)
    assert ep.mirror_ok and ep.decisions > 30 and 0 < ep.late < ep.decisions
    assert replays_exactly(ep)
    r = report([ep], "simulator")
    assert r["decisions"] == ep.decisions and r["late_decisions"] == ep.late
    assert r["on_time_decisions"] == ep.decisions - ep.late


def test_qwop_play_in_the_simulator(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    p = qwop(
        "play", "--sim", "--horizon", "2", "--late", "0.05", "--time-limit", "5", "--episodes", "2", "--out", str(out)
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert "decisions in their intended update" in p.stdout and "2 of 2 traces replay exactly" in p.stdout
    assert ", clicks 2 of 2" in p.stdout  # the emulated page takes the click in the update it was sent before
    r = json.loads((out / "report.json").read_text())
    assert r["episodes"] == 2 and r["mirror_equal"] and r["late_decisions"] > 0
    from demos.format import load_demo

    demo = load_demo(out / "episode_00.npz")
    replay = sim_env.replay_session(demo.events, initial_score_time=demo.initial_score_time)
    np.testing.assert_array_equal(replay["state"], demo.arrays["state"])


def test_qwop_play_bad_input(tmp_path: Path) -> None:
    one_line_error(qwop("play", "--sim", "--game", str(tmp_path)), "--game, --show and --video are for the browser")
    one_line_error(qwop("play", "--sim", "--video", str(tmp_path / "v.gif")), "are for the browser")
    one_line_error(qwop("play", "--video", str(tmp_path / "v.avi")), "must end in .gif or .mp4")
    one_line_error(qwop("play", "--sim", "--late", "2"), "late")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    one_line_error(qwop("play", "--sim", "--out", str(tmp_path / "full")), "not empty")
    one_line_error(qwop("play", "--sim", "--trace", str(tmp_path / "no" / "t.npz")), "does not exist")
    one_line_error(qwop("play", str(tmp_path / "missing.zip"), "--sim"), "missing.zip")


def test_lookahead_answers_by_its_deadline(guide) -> None:
    import time

    play, _ = _play(SimulatedPage(seed=6), [9] * 10)
    snap = play.decision_state()
    ctl = LookaheadController(guide, horizon=8)
    unhurried = ctl.decide(snap, play.page.held)
    assert ctl.decide(snap, play.page.held, deadline=time.monotonic() + 60.0) == unhurried
    assert ctl.short_of_time == 0
    plain = LookaheadController(guide, horizon=0).decide(snap, play.page.held)
    assert ctl.decide(snap, play.page.held, deadline=time.monotonic() - 0.01) == plain  # keys already due
    assert ctl.short_of_time == 1
    games = sim_env.GameSet().select(np.zeros(0, dtype=np.int32))
    games.add(snap)
    keys = np.repeat(guide.masks[:, None], guide.frame_skip, axis=1)
    cut = policy_rollouts(games, np.zeros(len(keys), dtype=np.int32), keys, guide, 8, deadline=time.monotonic())
    assert cut["rollout_depth"] == 0 and (cut["rollout_len"] == 0).all()
    assert play.deadline() is None  # a simulated page waits for its controller


def test_eval_bad_outputs_and_modes_fail_before_any_work(tmp_path: Path) -> None:
    one_line_error(qwop("eval", "--gif", str(tmp_path / "no" / "x.gif")), "does not exist")
    one_line_error(qwop("eval", "--trace", str(tmp_path / "no" / "x.npz")), "does not exist")
    one_line_error(qwop("eval", "--mode", "realtime"), "--mode realtime is for --browser")
    one_line_error(qwop("eval", "--predict"), "--predict is for --browser --mode realtime")
