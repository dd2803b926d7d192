"""A real-time run's decisions are kept in its trace and made again offline, bit for bit:
a decision cut short by its deadline is repeated at the depth it reached, a played trace's
every decision is checked by ``qwop play --check``, and a changed one is named."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from agents.realtime.lookahead import PLAIN_FROM_SNAPSHOT, PLAIN_FROM_STATE, LookaheadController
from agents.search.guided_rollouts import guide_from_model
from demos.format import load_demo, save_demo
from sim_env import QwopSim
from sim_env.gaits import SHUFFLE, gait_keys
from tests.clitools import one_line_error, qwop
from tests.support import REPO

MODEL = REPO / "agents" / "models" / "qwop_pddqn.zip"


@pytest.fixture(scope="module")
def guide():
    return guide_from_model(str(MODEL))


def test_a_decision_cut_by_its_deadline_is_made_again_at_its_depth(guide) -> None:
    sim = QwopSim()
    sim.advance(gait_keys(SHUFFLE, 200))
    snap = sim.snapshot()
    ctl = LookaheadController(guide, horizon=200)
    depths = set()
    for ms in (6, 10, 20, 40):
        mask = ctl.decide(snap, 0, deadline=time.monotonic() + ms / 1000.0)
        depth = ctl.last_depth
        depths.add(depth)
        assert LookaheadController(guide, horizon=200).decide(snap, 0, depth=depth) == mask, depth
    assert any(0 <= d < 200 for d in depths), depths  # some were cut short, and still repeat
    ctl.decide(snap, 0, deadline=time.monotonic() - 1.0)
    assert ctl.last_depth == PLAIN_FROM_SNAPSHOT
    ctl.decide(None, 0, state=sim.body_state())
    assert ctl.last_depth == PLAIN_FROM_STATE
    with pytest.raises(ValueError, match="needs its snapshot"):
        ctl.decide(None, 0, state=sim.body_state(), depth=5)


def test_qwop_play_check_makes_every_decision_again(tmp_path: Path) -> None:
    trace = tmp_path / "t.npz"
    p = qwop(  # this run falls: rollouts near the end are shallower than 6 (every one has ended)
        "play", "--sim", "--late", "0.1", "--seed", "3", "--horizon", "6", "--time-limit", "8", "--trace", str(trace)
    )
    assert p.returncode == 0, p.stderr[-2000:]
    demo = load_demo(trace)
    log = demo.meta["decisions"]
    assert len(log["mask"]) > 20 and max(log["depth"]) == 6 and min(log["depth"]) < 6
    assert 0 < demo.meta["late_share"] < 1 and demo.meta["sincos"] == "fma"
    p = qwop("play", "--check", str(trace))
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"{len(log['mask'])} of {len(log['mask'])} decisions made again offline" in p.stdout

    # One recorded decision changed: the check names it and fails.
    i = len(log["mask"]) // 2
    meta = dict(demo.meta)
    meta["decisions"] = {**log, "mask": [*log["mask"][:i], log["mask"][i] ^ 1, *log["mask"][i + 1 :]]}
    changed = save_demo(tmp_path / "changed.npz", demo.arrays, meta)
    p = qwop("play", "--check", str(changed))
    assert p.returncode == 1, p.stderr[-2000:]
    assert f"the first that differs: decision {i} " in p.stdout

    # A decision made at another depth than recorded is another decision, somewhere.
    meta["decisions"] = {**log, "depth": [1] * len(log["depth"])}
    p = qwop("play", "--check", str(save_demo(tmp_path / "shallow.npz", demo.arrays, meta)))
    assert p.returncode == 1 and "the first that differs" in p.stdout

    del meta["decisions"]
    one_line_error(qwop("play", "--check", str(save_demo(tmp_path / "none.npz", demo.arrays, meta))), "no decisions")
    one_line_error(qwop("play", "--check", str(tmp_path / "missing.npz")), "trace not found")
    assert np.asarray(demo.arrays["events"]).size > 0


def test_a_decision_made_after_the_page_ran_past_its_update_is_checked_from_the_state_it_had(
    guide, tmp_path: Path
) -> None:
    # A busy browser delivers several updates' records at once, so the page can be past the
    # update a decision was planned for; the decision is then made from the latest state, and
    # the trace must say so, or the check makes it again from another state.
    from agents.realtime.controllers import ControllerSettings
    from agents.realtime.decisions import check_decisions
    from agents.realtime.play import _episode_meta, play_episode
    from browser_env.pages import SimulatedPage

    settings = ControllerSettings("lookahead", horizon=2)
    ctl = settings.build(guide)
    e = play_episode(SimulatedPage(seed=1, burst=6), ctl, time_limit=8.0, strict=True)
    log = e.decision_log
    assert e.very_late >= 5  # the burst outran the plan, again and again (the runner falls soon)
    from agents.training.evaluate import save_browser_recording

    path = save_browser_recording(
        e.records, e.initial, tmp_path / "t.npz", _episode_meta(e, str(MODEL), settings, "test"), e.initial_score_time
    )
    r = check_decisions(load_demo(path), str(path))
    assert r["checked"] == len(log) >= 10 and r["equal"] == r["checked"], r["first_difference"]
