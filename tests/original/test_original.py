"""The tier on the original game (``pytest -m original``): every browser path on the
unmodified original, in headless Debian Chromium, with both backends.

It runs when the default game folder (or ``$QWOP_GAME``) holds the user's copy of the
original, and is skipped with the reason otherwise. Nothing of the game is in this
repository or downloaded by it. Keep the copy's domain lock enabled: the lock is tested.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("playwright")
pytest.importorskip("selenium")

import sim_env
from browser_env.errors import GameFolderError, GameLoadError
from browser_env.game import BrowserGame
from browser_env.server import default_game_folder, find_game_files
from sim_env.gaits import SHUFFLE, gait_keys
from sim_env.spec import RESET_EVENT_BASE
from tests.conftest import RUN_TRACES, SESSION_TRACES
from tests.support import REPO, play_script

pytestmark = pytest.mark.original

BACKENDS = ["playwright", "selenium"]


def _original_folder() -> tuple[Path | None, str]:
    try:
        files = find_game_files()
    except GameFolderError as exc:
        return None, f"no copy of the original: {exc}"
    js = files["QWOP.min.js"].read_text(encoding="utf-8", errors="replace")
    if "create_player" not in js or "planck" in js[:2000]:
        return None, f"{files['QWOP.min.js']} is not the original's QWOP.min.js"
    if shutil.which("chromium") is None:
        return None, "needs Debian chromium (bash scripts/test.sh installs it)"
    return default_game_folder(), ""


ORIGINAL, WHY_NOT = _original_folder()
if ORIGINAL is None:
    pytest.skip(f"tests on the original skipped: {WHY_NOT}", allow_module_level=True)


def _page_errors(g: BrowserGame) -> list[str]:
    return [line for line in g.driver.console() if "pageerror" in line or "Uncaught" in line]


@pytest.fixture(scope="module", params=BACKENDS)
def game(request: pytest.FixtureRequest) -> BrowserGame:
    g = BrowserGame(ORIGINAL, backend=request.param)
    yield g
    g.close()


def _assert_same_run(page: dict, want: dict) -> None:
    """Every update's state, flags and score of the page's run equal `want`'s, bit for bit
    (want's flags cast to the page's types)."""
    assert len(page["state"]) == len(want["state"])
    assert page["state"].tobytes() == want["state"].tobytes()
    for k in ("fallen", "game_ended", "jump_landed", "score_time", "score"):
        assert page[k].tobytes() == np.asarray(want[k]).astype(page[k].dtype).tobytes(), k


@pytest.mark.parametrize("path", RUN_TRACES, ids=lambda p: p.stem)
def test_trace_bit_for_bit_in_the_original(game: BrowserGame, path: Path) -> None:
    t = np.load(path)
    out = game.replay(t["keys"].astype(np.int8))
    assert out["initial"].tobytes() == t["initial"].tobytes()
    _assert_same_run(out, t)
    assert not _page_errors(game)


@pytest.mark.parametrize("path", SESSION_TRACES, ids=lambda p: p.stem)
def test_session_bit_for_bit_in_the_original(game: BrowserGame, path: Path) -> None:
    t = np.load(path)
    out = game.replay_session(t["events"].astype(np.int8))
    assert out["state"].tobytes() == t["state"].tobytes()
    np.testing.assert_array_equal(out["score_time"], t["score_time"])
    np.testing.assert_array_equal(out["fallen"], t["fallen"])


def _random_sequence(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    """Keys of one kind: uniform random per update, random keys held for random spans, or
    the gait with 2% of its updates replaced (it runs on into the hurdle)."""
    if kind == "uniform":
        return rng.integers(0, 16, n).astype(np.int8)
    if kind == "held":
        spans: list[np.ndarray] = []
        while sum(len(x) for x in spans) < n:
            spans.append(np.full(int(rng.integers(1, 80)), rng.integers(0, 16), np.int8))
        return np.concatenate(spans)[:n]
    keys = gait_keys(SHUFFLE, n).astype(np.int8)
    noisy = rng.random(n) < 0.02
    keys[noisy] = rng.integers(0, 16, int(noisy.sum()))
    return keys


RANDOM_KINDS = ["uniform", "held", "gait_noise", "session"]


@pytest.mark.parametrize("kind", RANDOM_KINDS)
def test_random_play_equals_the_simulator_in_the_original(game: BrowserGame, kind: str) -> None:
    """Key sequences no stored trace holds (seeded, so a failure repeats): the original and the
    simulator give the same bits in every update, flags and score included. Sessions restart
    the run at random updates (R), holding keys through the restart."""
    rng = np.random.default_rng(RANDOM_KINDS.index(kind) + 11)
    for _ in range(3):
        if kind == "session":
            events = _random_sequence(rng, "held", 1500)
            events[rng.integers(0, len(events), 3)] |= RESET_EVENT_BASE
            ours, theirs = sim_env.replay_session(events), game.replay_session(events)
        else:
            keys = _random_sequence(rng, kind, 2500)
            ours, theirs = sim_env.replay(keys), game.replay(keys)
            assert theirs["initial"].tobytes() == ours["initial"].tobytes()
        _assert_same_run(theirs, ours)
    assert not _page_errors(game)


def test_health_names_what_the_page_has(game: BrowserGame) -> None:
    game.new_page()
    h = game.health()
    assert h["found"] and h["runner"] and h["hostOk"] and h["missing"] == []
    assert h["sound"] == ("howler.js" if "howler.js" in game.game_files else "silent stand-in")
    assert h["channel"] == "open"
    assert not h["errors"] and not _page_errors(game)
    # the original asks the server for nothing outside its allowlist (Chromium asks for a favicon)
    assert set(game._server.refused) <= {"/favicon.ico"}, list(game._server.refused)


def test_domain_lock_passes_as_foddy_and_stops_the_game_elsewhere() -> None:
    with BrowserGame(ORIGINAL, mode="realtime") as g:
        g.new_page(start=False)
        before = g.health()["updates"]
        time.sleep(1.0)
        assert g.health()["updates"] >= before + 10  # the page's own loop runs: the lock let it
        g.url = g.url.replace("foddy.localhost", "127.0.0.1")
        with pytest.raises(GameLoadError):
            g.new_page(start=False)
        frozen = g.health()["updates"]
        time.sleep(0.5)
        assert g.health()["updates"] == frozen  # the original shut its engine down


@pytest.mark.parametrize("backend", BACKENDS)
def test_realtime_thirty_seconds_of_real_key_presses(backend: str) -> None:
    seconds = 30.0
    with BrowserGame(ORIGINAL, backend=backend, mode="realtime") as g:
        g.new_page(start=False)
        g.click_canvas()
        g.drain()
        rng = np.random.default_rng(3)
        rows, pressed, held = [], [], 0
        t0 = time.monotonic()
        next_press = t0
        while time.monotonic() - t0 < seconds:
            if time.monotonic() >= next_press:
                held = g.press(int(rng.integers(0, 16)), held)
                pressed.append(held)
                next_press = time.monotonic() + float(rng.uniform(0.1, 0.4))
            rows.append(g.drain())
            time.sleep(0.05)
        elapsed = time.monotonic() - t0
        rows.append(g.drain())
        assert not _page_errors(g)
    rec = np.concatenate(rows)
    np.testing.assert_array_equal(np.diff(rec[:, 0]), 1)  # none lost, none doubled
    assert abs(len(rec) / elapsed - 30.0) < 1.0
    landed = set((rec[:, 1].astype(int) % 16).tolist())
    assert len(set(pressed) & landed) >= 0.8 * len(set(pressed))  # the presses reached the game


@pytest.mark.parametrize("backend", BACKENDS)
def test_recording_with_real_keys_replays_bit_for_bit(tmp_path: Path, backend: str) -> None:
    from demos.format import CLICK_EVENT, load_demo
    from demos.record import Recorder
    from demos.replay import replay_browser, replay_sim

    rec = Recorder(ORIGINAL, tmp_path / "alice.npz", player="alice", backend=backend, headless=True, autosave_s=1.0)
    script = [
        ("wait", 0, 0.5),
        ("click", 0, 0.3),
        ("keys", 9, 0.6),
        ("keys", 5, 0.6),
        ("keys", 0, 0.3),
        ("tap", 0, 0.4),
        ("keys", 6, 0.6),
        ("keys", 10, 0.5),
        ("keys", 0, 0.3),
    ]
    play_script(rec, script)
    path = rec.finish()
    demo = load_demo(path)
    ev = demo.events
    assert (ev == CLICK_EVENT).sum() == 1 and ((ev >= 16) & (ev < 32)).sum() == 1
    assert {9, 5, 6, 10} <= set(demo.arrays["keys"].tolist())
    _, div = replay_sim(demo)
    assert div is None, f"the simulator departs from the recording: {div}"
    _, div = replay_browser(demo, str(ORIGINAL), backend)
    assert div is None, f"the original departs from its own recording in lock-step: {div}"


def test_eval_browser_equals_eval_sim(tmp_path: Path) -> None:
    from agents.cli import main

    assert main(["eval", "--sim", "--no-noise", "--episodes", "1", "--trace", str(tmp_path / "sim.npz")]) == 0
    assert main(["eval", "--browser", "--no-noise", "--episodes", "1", "--trace", str(tmp_path / "web.npz")]) == 0
    from demos.format import CLICK_EVENT, load_demo

    sim, web = load_demo(tmp_path / "sim.npz").arrays, load_demo(tmp_path / "web.npz").arrays
    rows = web["events"] != CLICK_EVENT
    srows = sim["events"] != CLICK_EVENT
    assert web["state"][rows].tobytes() == sim["state"][srows].tobytes()
    np.testing.assert_array_equal(web["score_time"][rows], sim["score_time"][srows])
    assert web["jump_landed"][-1] == sim["jump_landed"][-1]


def test_realtime_eval_trace_replays_exactly(tmp_path: Path) -> None:
    from agents.shipped import PRETRAINED
    from agents.training.evaluate import evaluate_browser, save_browser_recording
    from demos.format import load_demo
    from demos.replay import replay_sim

    report, records = evaluate_browser(PRETRAINED, None, mode="realtime", episodes=1, time_limit=12.0)
    assert report["decisions"] > 0
    assert 0 <= report["very_late_decisions"] <= report["late_decisions"] <= report["decisions"]
    initial, rec, t0 = records[0]
    path = save_browser_recording(rec, initial, tmp_path / "rt.npz", {"source": "test"}, t0)
    demo = load_demo(path)
    _, div = replay_sim(demo)
    assert div is None, f"the simulator departs from the real-time trace: {div}"
    out = sim_env.replay_session(demo.events, initial_score_time=demo.initial_score_time)
    # the episode ran to its 12 s limit, or the game ended first (a real-time run may fall)
    assert out["game_ended"][-1] or out["score_time"][-1] == pytest.approx(12.0, abs=0.5)


def test_play_video_is_the_original_canvas_of_the_best_run(tmp_path: Path) -> None:
    """``qwop play --video``: the best episode replayed in the original and its canvas captured."""
    from PIL import Image

    from demos.format import load_demo
    from tests.clitools import qwop

    video = tmp_path / "best.gif"
    p = qwop("play", "--time-limit", "3", "--video", str(video), "--trace", str(tmp_path / "best.npz"))
    assert p.returncode == 0, p.stderr[-2000:]
    assert "the original's canvas" in p.stdout and "differs" not in p.stderr
    demo_updates = int((np.asarray(load_demo(tmp_path / "best.npz").events) < 16).sum())
    with Image.open(video) as gif:
        assert len(set(gif.convert("RGB").getdata())) > 16  # a picture, not a blank canvas
        shown_ms = 0
        for i in range(gif.n_frames):  # a GIF writes a picture that did not change as one frame
            gif.seek(i)
            shown_ms += gif.info["duration"]
    # every second update of the session and its end, at the game's 30 updates per second
    assert shown_ms == pytest.approx(demo_updates / 30 * 1000, abs=150)


def test_play_plans_in_the_loop_and_every_decision_is_made_again(tmp_path: Path) -> None:
    """``qwop play``'s planner on the original: the mirror equals the page (strict), the click
    lands in the update it is meant for (then the first beam was grown on the intro screen), the
    beam grows between decisions, and the trace's every decision is made again offline."""
    import re

    from demos.format import load_demo
    from tests.clitools import qwop

    trace = tmp_path / "t.npz"
    p = qwop("play", "--time-limit", "8", "--strict", "--episodes", "2", "--trace", str(trace), "--no-opening")
    assert p.returncode == 0, p.stderr[-2000:]
    assert "planner in the loop" in p.stdout and "the mirror equalled the page at every update" in p.stdout
    assert "planner stages took" in p.stdout
    clicks = re.search(r"clicks (\d) of 2", p.stdout)
    assert clicks and int(clicks.group(1)) >= 1, p.stdout  # a click may land an update late, rarely
    meta = load_demo(trace).meta
    depth = meta["decisions"]["depth"]
    assert meta["controller"]["kind"] == "plan" and len(depth) >= 50
    # The beam grew between most decisions. How many is a speed figure (a stage takes tens of ms
    # of the 133 between decisions, and fewer fit on a slow machine): the report gives it.
    grown = re.search(r"the beam grew before (\d+) of its (\d+) decisions", p.stdout)
    assert grown and sum(d >= 1 for d in depth) <= int(grown.group(1)) <= int(grown.group(2)), p.stdout
    assert sum(d >= 1 for d in depth) >= 0.5 * len(depth), depth
    p = qwop("play", "--check", str(trace))
    assert p.returncode == 0, p.stdout + p.stderr[-2000:]
    assert f"{len(depth)} of {len(depth)} decisions made again offline" in p.stdout


def test_play_follows_the_shipped_opening_in_the_original(tmp_path: Path) -> None:
    """A fresh page of the original clicked in the opening's update has the state the opening was
    planned from: its decisions are the opening's for exactly as long as the page held the
    opening's keys (how long that is, before a key lands late, is a speed figure: python -m
    agents.bench.realtime), and are made again offline from the trace."""
    import re

    import numpy as np

    from agents.realtime.lookahead import FROM_OPENING
    from agents.realtime.opening import load_opening
    from agents.shipped import OPENING
    from demos.format import load_demo
    from tests.clitools import qwop

    opening = load_opening(OPENING)
    first = opening.click_update + 1  # the update its first decision is for
    p = qwop("play", "--time-limit", "6", "--strict", "--episodes", "3", "--out", str(tmp_path / "runs"))
    assert p.returncode == 0, p.stderr[-2000:]
    assert "after the opening" in p.stdout and "the mirror equalled the page at every update" in p.stdout
    clicks = re.search(r"clicks (\d) of 3", p.stdout)
    assert clicks and int(clicks.group(1)) >= 1, p.stdout  # a click may land an update late, rarely
    on_time = 0
    for trace in sorted((tmp_path / "runs").glob("episode_*.npz")):
        demo = load_demo(trace)
        log = demo.meta["decisions"]
        n = next((i for i, d in enumerate(log["depth"]) if d != FROM_OPENING), len(log["depth"]))
        if log["intended"][0] != first:  # the click landed late: a state the opening never reaches
            assert n == 0, log
            continue
        on_time += 1
        assert log["mask"][:n] == [int(m) for m in opening.masks[:n]]  # the opening's keys, in order
        # The first update after the click whose keys were not the opening's: the page left its
        # line there (a key landed late, or the page ran past a decision's update before it was
        # made), and the opening made every decision for an update up to that one, none after.
        last = log["intended"][-1]  # the keys are let go after the last decision
        u = demo.arrays["update_index"]
        rows = (u >= first) & (u < last)
        differ = demo.arrays["keys"][rows] != opening.keys[u[rows] - first]
        off = int(u[rows][np.argmax(differ)]) if np.any(differ) else last
        assert n == sum(at <= off for at in log["intended"]), (n, off, log)
        p = qwop("play", "--check", str(trace))
        assert p.returncode == 0 and "decisions made again offline" in p.stdout, p.stdout + p.stderr[-2000:]
    assert on_time == int(clicks.group(1))


def test_the_plain_policy_clicks_for_its_run_in_the_original(tmp_path: Path) -> None:
    """``qwop play --horizon 0``: the click lands in the update its model runs fastest from, and a
    run whose click and keys all land on time is the simulator's run from there, to the update."""
    import json

    from agents.realtime.policy_click import best_click
    from agents.search.guided_rollouts import guide_from_model
    from agents.shipped import REALTIME_MODEL
    from tests.clitools import qwop

    chosen = best_click(guide_from_model(str(REALTIME_MODEL)))
    p = qwop("play", "--horizon", "0", "--strict", "--episodes", "2", "--out", str(tmp_path / "runs"))
    assert p.returncode == 0, p.stderr[-2000:]
    assert "the mirror equalled the page at every update" in p.stdout
    r = json.loads((tmp_path / "runs" / "report.json").read_text())
    assert r["click_update"] == chosen.update and r["finished"] == [True, True]
    if r["clicks_on_time"] == 2 and r["late_decisions"] == 0:  # all on time: the planned run exactly
        assert r["times_s"] == [round(chosen.time_s, 4)] * 2


RECORDS = sorted((REPO / "agents" / "records").glob("*.npz"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_realtime_play_mirror_equals_the_page_at_every_update(backend: str) -> None:
    """``qwop play``'s loop on the original: the mirror equals the page at every update (strict:
    the first difference fails), the lookahead's keys land where they are meant to, the
    session replays exactly."""
    from agents.realtime.lookahead import LookaheadController
    from agents.realtime.play import play_episode, replays_exactly
    from agents.search.guided_rollouts import guide_from_model
    from agents.shipped import PRETRAINED
    from browser_env.pages import LivePage
    from browser_env.priority import RealtimePriority

    controller = LookaheadController(guide_from_model(str(PRETRAINED)), horizon=30)
    with RealtimePriority() as prio:  # as qwop play does: the player and its browser raised where allowed
        page = LivePage(BrowserGame(ORIGINAL, backend=backend, mode="realtime"))
        try:
            ep = play_episode(page, controller, time_limit=10.0, strict=True, settle_s=0.5, opened=prio.cover_children)
            assert not _page_errors(page.game)
        finally:
            page.close()
        raised = prio.describe()
    if os.geteuid() == 0:
        # Playwright's Chromium runs in a session of its own; Selenium's in the player's
        assert raised.startswith("priority raised by 10") and "session" in raised, raised
    assert ep.mirror_ok and ep.decisions >= 60 and ep.score > 5.0
    first = int(np.flatnonzero(ep.records[:, 2].astype(int) & 32)[0])
    assert len(ep.records) - first >= 10.0 * 30 - 5  # every update of the run was followed
    np.testing.assert_array_equal(np.diff(ep.records[:, 0]), 1)
    assert replays_exactly(ep)
    # Keys sent the moment the update before theirs has run: nearly all land in it (a bound
    # loose enough for a busy machine; the figures are measured by qwop play, docs/realtime.md).
    assert ep.on_time >= 0.9 * ep.decisions, (ep.on_time, ep.decisions)


def test_browser_env_predicted_observation_is_the_page_state_ahead() -> None:
    import gymnasium

    import browser_env  # noqa: F401
    from sim_env.observation import observe

    env = gymnasium.make(
        "QwopBrowser-v0", game=str(ORIGINAL), mode="realtime", predict=True, strict_mirror=True, frame_skip=4
    )
    try:
        obs, _ = env.reset()
        u = env.unwrapped
        # 42 decisions: the share on time is not decided by the first few after the click
        for a in [5, 5, 7, 7, 2, 2, 5, 5, 7, 7, 1, 1, 6, 6] * 3:
            obs, _, term, trunc, info = env.step(a)
            if term or trunc:
                break
            # the observation came before the page ran the update it shows: wait for it and compare
            np.testing.assert_array_equal(obs, observe(u.play.page_state()[None])[0])
            assert info["landed_update"] >= info["intended_update"]
        assert u.play.mirror.ok and u.play.stats.on_time >= 0.8 * len(u.play.stats.decisions)
    finally:
        env.close()


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_planner_record_replays_open_loop_in_the_original(game: BrowserGame, path: Path) -> None:
    """A run the planner found in the simulator finishes in the original in the same time,
    every state equal to the file's."""
    from demos.format import load_demo
    from sim_env.traces import first_divergence

    demo = load_demo(path)
    out = game.replay_session(demo.events, demo.initial_score_time)
    assert first_divergence(demo.trace(), out) is None
    assert out["jump_landed"][-1] and out["score"][-1] >= sim_env.FINISH_M
    assert out["score_time"][-1] == demo.meta["finish_time_s"]


def test_browser_env_starts_inside_a_good_run(tmp_path: Path) -> None:
    import gymnasium

    import browser_env  # noqa: F401 (registers QwopBrowser-v0)
    from demos.start_runs import start_run_keys

    record = RECORDS[0]
    env = gymnasium.make(
        "QwopBrowser-v0",
        game=str(ORIGINAL),
        mode="lockstep",
        start_keys=start_run_keys([str(record)]),
        start_share=1.0,
    )
    try:
        env.reset(seed=3)
        keys = env.unwrapped.episode_keys()
        assert len(keys) > 0
        env.step(0)
        keys = env.unwrapped.episode_keys()
        state = env.unwrapped.game.body_state()
        np.testing.assert_array_equal(sim_env.replay(keys)["state"][-1], state)
    finally:
        env.close()
