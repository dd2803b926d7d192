"""Browser harness end to end on the open stand-in page, in headless Debian Chromium, with
both backends: adapter, lock-step, real-time key presses, env, and the error paths."""

from __future__ import annotations

import contextlib
import shutil
import time
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest

pytest.importorskip("playwright")
pytest.importorskip("selenium")

import browser_env
from browser_env.drivers import BrowserError, make_driver
from browser_env.fetch import fetch_game
from browser_env.game import BrowserGame, GameLoadError
from browser_env.server import GameFolderError, GameServer, default_game_folder, find_game_files
from browser_env.standin import PLANCK, build_standin
from tests.clitools import one_line_error, qwop
from tests.support import FIXTURES, REPO

if shutil.which("chromium") is None or not PLANCK.is_file():
    pytest.skip(
        "needs Debian chromium and the stand-in's npm dependency (bash scripts/test.sh installs both)",
        allow_module_level=True,
    )

BACKENDS = ["playwright", "selenium"]
GAIT = np.tile(np.array([9] * 5 + [5] * 9, dtype=np.int8), 20)


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_standin(tmp_path_factory.mktemp("standin"))


@pytest.fixture(scope="module", params=BACKENDS)
def game(request: pytest.FixtureRequest, standin: Path) -> BrowserGame:
    g = BrowserGame(standin, backend=request.param)
    yield g
    g.close()


def _standin_state(g: BrowserGame) -> np.ndarray:
    return np.array(g.driver.evaluate("() => window.__standinDebug().state"))


def test_lockstep_replay_is_deterministic(game: BrowserGame) -> None:
    a = game.replay(GAIT)
    b = game.replay(GAIT)
    assert a["state"].shape[1:] == (12, 6) and len(a["state"]) > 10
    assert a["state"].tobytes() == b["state"].tobytes()
    for k in ("fallen", "game_ended", "jump_landed", "score_time", "score"):
        np.testing.assert_array_equal(a[k], b[k])
    assert a["score_time"][0] == pytest.approx(1 / 30)
    if a["game_ended"][-1]:
        assert a["game_ended"][:-1].sum() == 0  # replay stops at the end, like sim_env.replay


def test_adapter_reads_what_the_game_has(game: BrowserGame) -> None:
    game.new_page()
    np.testing.assert_array_equal(game.body_state(), _standin_state(game))
    game.run(GAIT[:40])
    np.testing.assert_array_equal(game.body_state(), _standin_state(game))
    health = game.driver.evaluate("() => window.__qwopAdapter.health()")
    assert health["found"] and health["held"] and health["updates"] == 40
    assert game.history == [int(k) for k in GAIT[:40]]


def test_page_updates_are_held_in_lockstep(game: BrowserGame) -> None:
    game.new_page()
    before = game.health()
    time.sleep(0.3)
    after = game.health()
    assert after["updates"] == before["updates"] == 0
    assert after["preRunnerUpdates"] == 0  # held from the very start, as the traces were made
    # The page's animation frames are held back too (its loop waits for one), so it neither
    # updates nor draws between calls.
    assert after["heldFrames"] >= 1 and after["heldUpdates"] == before["heldUpdates"]
    assert game.score_time == 0
    game.call("hold", False)  # let go: the page's own loop runs again
    time.sleep(0.3)
    assert game.health()["updates"] > 3


def test_reset_and_session_replay(game: BrowserGame) -> None:
    game.new_page()
    game.run(GAIT[:30])
    game.reset(1)
    assert game.score_time == pytest.approx(1 / 30)
    assert game.history[-1] == 17
    events = np.concatenate([GAIT[:30], [17], GAIT[:20]]).astype(np.int8)
    s1 = game.replay_session(events)
    s2 = game.replay_session(events)
    assert len(s1["state"]) == len(events)
    assert s1["state"].tobytes() == s2["state"].tobytes()
    assert s1["score_time"][30] == pytest.approx(1 / 30)


def test_bad_keys_are_rejected(game: BrowserGame) -> None:
    with pytest.raises(ValueError, match="out of range"):
        game.update(16)
    with pytest.raises(ValueError, match=r"keys\[1\] = 20 is out of range"):
        game.run(np.array([1, 20]))


def test_screenshot_of_the_canvas(game: BrowserGame) -> None:
    game.new_page()
    game.run(GAIT[:10])
    game.driver.evaluate("() => window.__qwopAdapter.renderFrames(2)")
    img = game.screenshot()
    assert img.shape == (400, 640, 3)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_realtime_key_presses_land_in_the_right_update(standin: Path, backend: str) -> None:
    with BrowserGame(standin, backend=backend, mode="realtime") as g:
        g.driver.add_init_script(
            "window.__keyTimes = [];"
            "window.addEventListener('keydown', (e) => window.__keyTimes.push([e.key, performance.now()]), true);"
        )
        g.new_page(start=False)
        g.click_canvas()
        g.drain()
        # some updates without keys first (waited for: a loaded machine may run none in 0.3 s)
        parts = [np.empty((0, 0))]
        while sum(len(p) for p in parts) < 3:
            time.sleep(0.1)
            parts.append(g.drain())
        g.press(1)  # Q down through the browser's input pipeline
        time.sleep(0.3)
        g.press(1 | 8, held=1)  # P down too
        time.sleep(0.3)
        g.press(0, held=9)
        time.sleep(0.2)
        parts.append(g.drain())
        rec = np.concatenate([p for p in parts if len(p)])
        times = dict((k, t) for k, t in g.driver.evaluate("() => window.__keyTimes"))
    masks = rec[:, 1].astype(int) % 16
    wall = rec[:, 5]
    first_q = int(np.argmax(masks & 1))
    assert masks[first_q] & 1 and first_q > 0
    assert wall[first_q] >= times["q"] > wall[first_q - 1]  # the first update after the key event
    first_p = int(np.argmax(masks & 8))
    assert masks[first_p] == 9
    assert wall[first_p] >= times["p"] > wall[first_p - 1]
    assert masks[-1] == 0
    np.testing.assert_array_equal(np.diff(rec[:, 0]), 1)  # every update, once


def test_realtime_stream_pushes_every_update_once(standin: Path) -> None:
    with BrowserGame(standin, backend="playwright", mode="realtime") as g:
        g.new_page(start=False)
        g.click_canvas()
        rows = [g.stream(True)]  # what the page ran before, then each update as it runs
        deadline = time.monotonic() + 20.0
        while sum(len(r) for r in rows) < len(rows[0]) + 30 and time.monotonic() < deadline:
            rows.append(g.pushed(1.0))
            if len(rows) == 5:
                assert len(g.drain()) == 0  # pushed records count as drained (a reply between pushes)
        health = g.health()
        rows.append(g.stream(False))
        rows.append(g.pushed(0.2))
    rec = np.concatenate(rows)
    np.testing.assert_array_equal(np.diff(rec[:, 0]), 1)  # none lost, none doubled
    assert health["streaming"] and health["pushed"] >= 30


def test_realtime_runs_one_update_per_thirtieth_of_the_page_clock(standin: Path) -> None:
    from sim_env.spec import REC_WALL_MS, UPDATES_PER_SECOND

    with BrowserGame(standin, backend="playwright", mode="realtime") as g:
        g.new_page(start=False)
        g.click_canvas()
        g.drain()
        rows = []
        while sum(len(r) for r in rows) < 90:  # three seconds of the page's updates
            time.sleep(0.25)
            rows.append(g.drain())
        rec = np.concatenate(rows)
    np.testing.assert_array_equal(np.diff(rec[:, 0]), 1)  # none dropped, none duplicated
    # The page's own clock, not the test's: update i is due a thirtieth of a second after i - 1.
    # A frame that comes late runs its updates late, in a burst, so single stamps jitter by a
    # frame or more on a busy machine; the earliest stamp of a window (some frame on time)
    # does not. Between the first and the last half second the pace may drift by 2 updates.
    lag_ms = rec[:, REC_WALL_MS] - np.arange(len(rec)) * 1000.0 / UPDATES_PER_SECOND
    window = UPDATES_PER_SECOND // 2
    drift = (lag_ms[-window:].min() - lag_ms[:window].min()) * UPDATES_PER_SECOND / 1000.0
    assert abs(drift) <= 2, (len(rec), drift)


def test_browser_env_checker_and_spaces(standin: Path) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("QwopBrowser-v0", game=str(standin), mode="lockstep", frame_skip=2, action_set="distinct")
    sim = gymnasium.make("QwopSim-v0", frame_skip=2, action_set="distinct")
    assert env.observation_space == sim.observation_space
    assert env.action_space == sim.action_space
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")
        check_env(env.unwrapped, skip_render_check=True)
    env.reset(seed=0)
    total = 0.0
    for a in [5, 5, 4, 4, 5, 5]:
        _, r, te, tr, _info = env.step(a)
        total += r
        if te or tr:
            break
    keys = env.unwrapped.episode_keys()
    out = env.unwrapped.game.replay(keys)
    np.testing.assert_array_equal(out["state"][-1], env.unwrapped.game.body_state())
    env.close()


def test_browser_env_realtime_reports_landed_update(standin: Path) -> None:
    env = gymnasium.make("QwopBrowser-v0", game=str(standin), mode="realtime", frame_skip=2)
    env.reset()
    landed = []
    for a in [3, 6, 3, 6]:
        _, _, te, _, info = env.step(a)
        landed.append(info["landed_update"])
        assert len(info["records"]) >= 2
        if te:
            break
    # The episode keeps every update the page ran since it loaded, each once (the trace replays).
    rec = np.concatenate(env.unwrapped.episode_records)
    np.testing.assert_array_equal(np.diff(rec[:, 0]), 1)
    assert int(rec[0, 0]) == 1 and int(rec[-1, 2]) & 32
    assert all(x >= 0 for x in landed) and landed == sorted(landed)
    env.close()


# ---------------------------------------------------------------- error paths


def test_missing_game_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(GameFolderError, match=r"no game folder at .*nope: copy your QWOP\.min\.js"):
        find_game_files(tmp_path / "nope")
    # Without a folder: the default one, named in the message with how to choose another.
    monkeypatch.setenv("QWOP_GAME", str(tmp_path / "default"))
    assert default_game_folder() == tmp_path / "default"
    with pytest.raises(GameFolderError, match=r"default game folder; --game or \$QWOP_GAME") as err:
        find_game_files()
    assert str(tmp_path / "default") in str(err.value) and "qwop fetch-game" in str(err.value)
    monkeypatch.delenv("QWOP_GAME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_game_folder() == tmp_path / "xdg" / "qwop" / "game"
    (tmp_path / "QWOP.min.js").write_text("//")
    with pytest.raises(GameFolderError, match=r"missing assetbundle\.parcel.*fetch-game"):
        GameServer(tmp_path)


def test_assets_layout_is_served(tmp_path: Path) -> None:
    build_standin(tmp_path, layout="assets")
    assert set(find_game_files(tmp_path)) == {"QWOP.min.js", "assetbundle.parcel"}
    with BrowserGame(tmp_path) as g:
        g.new_page()
        g.run(GAIT[:5])
        assert g.updates == 5


def test_page_that_never_finishes_loading(tmp_path: Path) -> None:
    build_standin(tmp_path, never_finish_loading=True)
    with BrowserGame(tmp_path, timeout_s=3) as g, pytest.raises(GameLoadError) as err:
        g.new_page()
    msg = str(err.value)
    assert "did not finish loading" in msg and "standin: asset bundle says never finish" in msg


def test_adapter_reports_what_it_found_without_a_game(tmp_path: Path) -> None:
    (tmp_path / "QWOP.min.js").write_text(
        "window.notTheGame = {}; window.notTheGame.m_world = {step() {}};"
        "console.log('this page has no QWOP game object');"
    )
    (tmp_path / "assetbundle.parcel").write_text("x")
    with BrowserGame(tmp_path, timeout_s=2) as g, pytest.raises(GameLoadError) as err:
        g.new_page()
    msg = str(err.value)
    assert "did not find the game object" in msg and "Objects that got m_world" in msg
    assert "this page has no QWOP game object" in msg


def test_domain_lock_is_detected(standin: Path) -> None:
    with BrowserGame(standin, timeout_s=5) as g:
        g.url = g.url.replace("foddy.localhost", "127.0.0.1")
        with pytest.raises(GameLoadError, match="domain lock"):
            g.new_page()
        dead = g.driver.evaluate("() => window.__standinDebug().dead")
        assert dead  # the stand-in shut its engine down, like the original does


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_browser_installed(backend: str, tmp_path: Path) -> None:
    with pytest.raises(BrowserError, match="apt-get install -y chromium chromium-driver"):
        make_driver(backend, executable_path=str(tmp_path / "no-chromium"))


def test_cli_no_game_folder_is_one_line(tmp_path: Path) -> None:
    one_line_error(qwop("eval", "--browser", "--game", str(tmp_path / "nope")), "no game folder at", "fetch-game")
    # No --game: the default folder, named, with how to choose another.
    p = qwop("eval", "--browser", env={"QWOP_GAME": str(tmp_path / "empty")})
    one_line_error(p, str(tmp_path / "empty"), "default game folder", "QWOP_GAME")
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "QWOP.min.js").write_text("//")
    one_line_error(qwop("record", "--game", str(tmp_path / "half"), "--headless"), "missing assetbundle.parcel")
    assert not (tmp_path / "recordings").exists()


def test_cli_other_game_or_changed_game_is_one_line(tmp_path: Path, standin: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "QWOP.min.js").write_text("window.notTheGame = {}; window.notTheGame.m_world = {};")
    (other / "assetbundle.parcel").write_text("x")
    p = qwop("eval", "--browser", "--no-noise", "--episodes", "1", "--game", str(other), env={"QWOP_LOAD_TIMEOUT": "3"})
    one_line_error(p, "did not find the game object", "Objects that got m_world")
    changed = tmp_path / "changed"
    shutil.copytree(standin, changed)
    js = (changed / "QWOP.min.js").read_text()
    (changed / "QWOP.min.js").write_text(js.replace("this.scoreTime", "this.scoreClock"))
    p = qwop("eval", "--browser", "--no-noise", "--episodes", "1", "--game", str(changed))
    one_line_error(p, "lacks what the adapter reads: scoreTime", "differs from the original")


def test_cli_browser_that_cannot_start_is_one_line(standin: Path) -> None:
    p = qwop("eval", "--browser", "--game", str(standin), env={"QWOP_CHROMIUM": "/bin/false"})
    one_line_error(p, "Chromium (/bin/false) did not start", "apt-get install")


def test_unknown_backend(standin: Path) -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        BrowserGame(standin, backend="lynx")


def test_fetch_game_offline_message(tmp_path: Path) -> None:
    with pytest.raises(ConnectionError, match="needs to be online"):
        fetch_game(tmp_path / "g", base_url="http://127.0.0.1:9/", timeout_s=2)
    assert not any((tmp_path / "g").glob("*.part"))


@pytest.mark.slow
def test_browser_bench_smoke() -> None:
    from agents.bench.browser import main

    assert main(["--quick"]) == 0


def test_browser_env_refuses_emulated_lateness(standin: Path) -> None:
    """late_decision_prob is the simulator's emulation of real time; the browser has the real thing."""
    with pytest.raises(ValueError, match="mode='realtime'"):
        gymnasium.make("QwopBrowser-v0", game=str(standin), late_decision_prob=0.2)


def test_package_registers_env() -> None:
    assert "QwopBrowser-v0" in gymnasium.registry
    assert browser_env.BrowserGame is BrowserGame


def test_page_sincos_is_probed(game: BrowserGame) -> None:
    """The harness says whose sin/cos the page computes, and warns when the simulator's differ."""
    from sim_env import libm

    assert game.sincos == libm.host_variant()
    assert game.sincos_note(game.sincos) is None
    other = "generic" if game.sincos == "fma" else "fma"
    assert "will drift here" in (game.sincos_note(other) or "")
    assert "neither" in libm.mismatch_note(libm.NEITHER) and "replay exactly" in libm.mismatch_note(libm.NEITHER)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_browser_killed_mid_evaluation_is_one_line_and_keeps_what_finished(
    standin: Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psutil

    from agents.training.evaluate import evaluate_browser
    from browser_env.env import QwopBrowserEnv
    from browser_env.errors import BrowserHarnessError

    model = REPO / "agents" / "models" / "qwop_pddqn.zip"
    others = {p.pid for p in psutil.Process().children(recursive=True)}  # the module's own browsers live on
    reset = QwopBrowserEnv.reset
    resets = [0]

    def kill_then_reset(self, *args, **kwargs):
        resets[0] += 1
        if resets[0] == 2:  # after the first episode: the browser is killed (as by a user, or the OOM killer)
            for p in psutil.Process().children(recursive=True):
                with contextlib.suppress(psutil.NoSuchProcess):  # one that ended meanwhile (a renderer)
                    if p.pid not in others and "chrom" in p.name():
                        p.kill()
        return reset(self, *args, **kwargs)

    monkeypatch.setattr(QwopBrowserEnv, "reset", kill_then_reset)
    report, records = evaluate_browser(
        model, str(standin), backend=backend, episodes=3, start_noise_updates=0, time_limit=3.0
    )
    assert report["episodes"] == 1 and len(records) == 1
    assert report["stopped"].startswith("the browser stopped answering during episode 2")
    assert "\n" not in report["stopped"]
    # Killed before any episode finished: an error of ours (one line from the CLI), nothing to report.
    resets[0] = 1
    with pytest.raises(BrowserHarnessError):
        evaluate_browser(model, str(standin), backend=backend, episodes=2, start_noise_updates=0, time_limit=3.0)


def test_a_watched_replay_is_paced_draws_the_real_canvas_and_stays_exact(game: BrowserGame, tmp_path: Path) -> None:
    from PIL import Image

    from browser_env.watch import Watch
    from demos.replay import write_frames

    events = np.concatenate([GAIT[:30], [17], GAIT[:29]]).astype(np.int8)
    plain = game.replay_session(events)
    game.watch = Watch(pace_hz=30.0, every=4)
    t0 = time.monotonic()
    try:
        watched = game.replay_session(events)
        game.watch.last_frame(game)
        frames = game.watch.frames
    finally:
        game.watch = None
    took = time.monotonic() - t0
    assert watched["state"].tobytes() == plain["state"].tobytes()  # watching changes nothing
    assert took >= 58 / 30  # 59 updates at the game's 30 per second
    assert len(frames) == 15 + 1 and frames[0].shape[2] == 3  # every 4th update, and the last
    assert len({f.tobytes() for f in frames}) > 1  # the canvas moved
    gif = write_frames(frames, tmp_path / "canvas.gif", 30 / 4)
    with Image.open(gif) as im:
        assert im.n_frames == len(frames) and im.size == (frames[0].shape[1], frames[0].shape[0])


def test_replay_show_needs_the_browser() -> None:
    p = qwop("replay", str(FIXTURES / "nothing.npz"), "--show")
    one_line_error(p, "--show", "--browser")
