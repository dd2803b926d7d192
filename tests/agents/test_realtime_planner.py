"""The planner in the loop (``qwop play``'s default controller): its beam runs ahead of the game
and starts again when keys land late, its decisions are made again offline from the states and
the stage counts a trace keeps, it beats the lookahead in the simulator, and the command line
says what it refuses."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from agents.realtime.controllers import ControllerSettings
from agents.realtime.lookahead import PLAIN_FROM_SNAPSHOT, PLAIN_FROM_STATE
from agents.realtime.receding import BeamController
from agents.search.guided_rollouts import guide_from_model
from demos.format import load_demo, save_demo
from sim_env import QwopSim
from sim_env.errors import UserInputError
from sim_env.gaits import SHUFFLE, gait_keys
from tests.clitools import one_line_error, qwop
from tests.support import REPO

MODEL = REPO / "agents" / "models" / "qwop_pddqn.zip"


@pytest.fixture(scope="module")
def guide():
    return guide_from_model(str(MODEL))


def _after(sim: QwopSim, mask: int, fs: int = 4) -> bytes:
    sim.advance(np.full(fs, mask, dtype=np.int8))
    return sim.snapshot()


def test_the_beam_runs_ahead_and_starts_again_when_keys_land_late(guide) -> None:
    ctl = BeamController(guide, beam=3, lead=4, lookahead=3, catch_up=2)
    sim = QwopSim()
    sim.advance(gait_keys(SHUFFLE, 120))
    snap = sim.snapshot()
    aheads = []
    for _ in range(6):  # on time: every decision goes where the beam assumed
        mask = ctl.decide(snap, 0)
        assert ctl.last_depth in (1, 2)
        aheads.append(ctl.ahead)
        ctl.think()  # while the page runs on: two stages a decision until the beam is 4 ahead
        snap = _after(sim, mask)
    # one decision committed, two stages grown: one more ahead each time, then held at the lead
    assert aheads == [1, 2, 3, 4, 4, 4] and ctl.restarts == 1
    # the keys landed an update late: the held keys ran once more, the beam starts again
    held = mask
    mask = ctl.decide(snap, held)
    ctl.think()
    sim.advance(np.full(1, held, dtype=np.int8))
    snap = _after(sim, mask)
    ctl.decide(snap, mask)
    assert ctl.restarts == 2 and ctl.ahead == 1 and ctl.last_depth == 2  # the think() stages were lost


def test_no_time_left_commits_from_the_beam_or_falls_back_to_the_policy(guide) -> None:
    ctl = BeamController(guide, beam=2, lead=3, lookahead=2)
    sim = QwopSim()
    sim.advance(gait_keys(SHUFFLE, 80))
    snap = sim.snapshot()
    ctl.decide(snap, 0)  # a stage's time is now known
    mask = ctl.decide(snap, 0, deadline=time.monotonic() - 1.0)  # a fresh beam, no time: the plain policy
    assert ctl.last_depth == PLAIN_FROM_SNAPSHOT and ctl.short_of_time == 1
    assert mask == ctl.act_state(sim.body_state())
    snap = _after(sim, mask)
    mask = ctl.decide(snap, mask)  # the beam starts again, with time
    assert ctl.last_depth == 2 and ctl.ahead == 1
    snap = _after(sim, mask)
    mask = ctl.decide(snap, mask, deadline=time.monotonic() - 1.0)
    assert ctl.last_depth == 0  # the beam was ahead: its best line's next action, no stage grown
    ctl.think(deadline=time.monotonic() - 1.0)  # no time between decisions either: nothing grows
    assert ctl.ahead == 0
    ctl.decide(None, 0, state=sim.body_state())
    assert ctl.last_depth == PLAIN_FROM_STATE
    with pytest.raises(ValueError, match="snapshot or a state"):
        ctl.decide(None, 0)
    with pytest.raises(ValueError, match="beam must be at least 1"):
        BeamController(guide, beam=0)


def test_the_first_decision_is_planned_on_the_intro_screen(guide) -> None:
    from agents.realtime.play import play_episode
    from browser_env.pages import SimulatedPage

    ctl = BeamController(guide, beam=3, lead=6)
    ep = play_episode(SimulatedPage(seed=4), ctl, time_limit=3.0)
    # grown to the lead before the click, and not started again at the first decision
    assert ep.decision_log.depth[0] == 6 and ctl.restarts == 1 and ep.late == 0


def test_a_stage_the_deadline_cuts_short_leaves_the_beam_as_it_was(guide) -> None:
    ctl = BeamController(guide, beam=3, lead=4)
    sim = QwopSim()
    sim.advance(gait_keys(SHUFFLE, 80))
    ctl.prepare(sim.snapshot())
    lines, done = [list(line.actions) for line in ctl._lines], ctl.updates_simulated
    assert ctl.ahead == 4
    assert not ctl._stage(deadline=time.monotonic())  # due now: cut after its first decision
    assert [list(line.actions) for line in ctl._lines] == lines and ctl.updates_simulated > done
    ctl.stage_s = 0.0  # a stage is expected to fit, and is cut: counted, nothing grown
    assert ctl._grow(1, time.monotonic() + 1e-4) == 0 and ctl.stages_cut == 1 and ctl.ahead == 4


def test_planner_decisions_are_made_again_from_the_trace(tmp_path: Path) -> None:
    trace = tmp_path / "t.npz"
    p = qwop("play", "--sim", "--late", "0.1", "--seed", "3", "--beam", "3", "--lead", "6", "--time-limit", "8")
    assert p.returncode == 0, p.stderr[-2000:]
    assert "planner in the loop (beam 3, 6 decisions ahead" in p.stdout
    p = qwop(
        "play", "--sim", "--late", "0.1", "--seed", "3", "--beam", "3", "--lead", "6", "--time-limit", "8",
        "--trace", str(trace),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    demo = load_demo(trace)
    assert demo.meta["controller"]["kind"] == "plan" and demo.meta["controller"]["beam"] == 3
    log = demo.meta["decisions"]
    assert len(log["mask"]) > 40 and set(log["depth"]) >= {1, 2} and demo.meta["late_share"] > 0
    p = qwop("play", "--check", str(trace))
    assert p.returncode == 0, p.stdout + p.stderr[-2000:]
    assert f"{len(log['mask'])} of {len(log['mask'])} decisions made again offline" in p.stdout

    # a beam grown one stage a decision is never ahead: another beam, other decisions
    meta = dict(demo.meta)
    meta["decisions"] = {**log, "depth": [1] * len(log["depth"])}
    p = qwop("play", "--check", str(save_demo(tmp_path / "fewer.npz", demo.arrays, meta)))
    assert p.returncode == 1 and "the first that differs" in p.stdout

    meta["decisions"] = log
    meta["controller"] = {**demo.meta["controller"], "beam": 0}
    one_line_error(qwop("play", "--check", str(save_demo(tmp_path / "b.npz", demo.arrays, meta))), "beam must be")
    meta["controller"] = {"kind": "plan", "width": 3}
    one_line_error(qwop("play", "--check", str(save_demo(tmp_path / "w.npz", demo.arrays, meta))), "damaged")


def test_the_planner_beats_the_lookahead_in_the_simulator() -> None:
    """The same emulated pages (intro screens of three lengths, 1% of keys late): the planner's
    median is over a second faster."""
    from agents.realtime.play import make_page, play_episode

    guide = guide_from_model(str(MODEL))
    times: dict[str, list[float]] = {"plan": [], "lookahead": []}
    for kind, ts in times.items():
        page = make_page("sim", "realtime", late=0.01, seed=0)
        ctl = ControllerSettings(kind).build(guide)
        for _ in range(3):
            ep = play_episode(page, ctl)
            ts.append(ep.time_s if ep.finished else float("inf"))
    assert np.median(times["plan"]) < np.median(times["lookahead"]) - 1.0, times


def test_controller_settings_and_the_command_line_refuse_what_does_not_fit(tmp_path: Path) -> None:
    one_line_error(qwop("play", "--sim", "--plan", "--horizon", "5"), "--horizon set the lookahead")
    one_line_error(qwop("play", "--sim", "--no-plan", "--beam", "4"), "--beam set the planner")
    one_line_error(qwop("play", "--sim", "--horizon", "5", "--lead", "4"), "--lead set the planner")
    one_line_error(qwop("play", "--sim", "--beam", "0"), "--beam")
    with pytest.raises(UserInputError, match="one of plan, lookahead"):
        ControllerSettings("beam")
    with pytest.raises(UserInputError, match="horizon"):
        ControllerSettings("lookahead", horizon=-1)
    # a trace from before the planner names its lookahead by its horizon
    old = ControllerSettings.from_meta({"horizon": 12, "late_weight": 0.1}, "t.npz")
    assert old == ControllerSettings("lookahead", horizon=12, late_weight=0.1)
    # a damaged trace's settings: one line, not a traceback
    for meta in ({"horizon": "x"}, {"controller": {"kind": "lookahead", "late_weight": "x"}}):
        with pytest.raises(UserInputError, match=r"damaged|late weight"):
            ControllerSettings.from_meta(meta, "t.npz")
