"""Demos: recording real key presses on the stand-in, the file format, replay, conversion."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from demos.convert import load
from demos.format import CLICK_EVENT, DemoFormatError, load_demo, save_demo
from demos.inspect import main_demos, summary
from demos.replay import main_replay, replay_sim, write_video
from demos.simulate import simulated_demo_arrays
from sim_env.actions import action_masks
from tests.support import play_script


def sim_demo(events: np.ndarray) -> tuple[dict[str, np.ndarray], dict]:
    """A demo made from a simulated session (what an exact recording of it would hold)."""
    return simulated_demo_arrays(events), {"player": "sim", "date": "2026-12-02T00:00:00+00:00"}


EVENTS = np.concatenate([[0] * 5, [CLICK_EVENT], np.tile([9] * 5 + [5] * 9, 8), [16 + 1], [6] * 40]).astype(np.int8)


def test_save_never_overwrites_and_round_trips(tmp_path: Path) -> None:
    arrays, meta = sim_demo(EVENTS)
    p1 = save_demo(tmp_path / "run.npz", arrays, meta)
    p2 = save_demo(tmp_path / "run.npz", arrays, meta)
    p3 = save_demo(tmp_path / "run", arrays, meta)
    assert p1.name == "run.npz" and p2.name == "run-1.npz" and p3.name == "run-2.npz"
    d = load_demo(p2)
    for k, v in arrays.items():
        np.testing.assert_array_equal(d.arrays[k], v)
    assert d.meta["player"] == "sim" and d.meta["format_version"] == 1
    assert not list(tmp_path.glob(".*.part"))  # no temporary files left


def test_corrupt_and_truncated_files(tmp_path: Path) -> None:
    arrays, meta = sim_demo(EVENTS)
    good = save_demo(tmp_path / "good.npz", arrays, meta)
    data = good.read_bytes()
    (tmp_path / "trunc.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(DemoFormatError, match="truncated"):
        load_demo(tmp_path / "trunc.npz")
    (tmp_path / "junk.npz").write_bytes(b"this is not a demo")
    with pytest.raises(DemoFormatError, match="not a readable demo"):
        load_demo(tmp_path / "junk.npz")
    bad = dict(arrays)
    bad["state"] = bad["state"][:-3]
    np.savez(tmp_path / "short.npz", **bad, meta=np.array(json.dumps(meta)))
    with pytest.raises(DemoFormatError, match=r"'state' has shape \(\d+, 12, 6\), expected"):
        load_demo(tmp_path / "short.npz")
    bad = dict(arrays)
    bad["events"] = bad["events"].copy()
    bad["events"][7] = 40
    np.savez(tmp_path / "ev.npz", **bad, meta=np.array(json.dumps(meta)))
    with pytest.raises(DemoFormatError, match=r"events\[7\] = 40 is not an event"):
        load_demo(tmp_path / "ev.npz")
    bad = {k: v for k, v in arrays.items() if k != "keys"}
    np.savez(tmp_path / "nokeys.npz", **bad, meta=np.array(json.dumps(meta)))
    with pytest.raises(DemoFormatError, match=r"missing arrays \['keys'\]"):
        load_demo(tmp_path / "nokeys.npz")
    # A flipped byte inside a compressed member.
    corrupt = bytearray(data)
    with zipfile.ZipFile(good) as z:
        info = z.getinfo("state.npy")
    off = info.header_offset + 30 + len(info.filename) + 200
    corrupt[off] ^= 0xFF
    (tmp_path / "flip.npz").write_bytes(bytes(corrupt))
    with pytest.raises(DemoFormatError):
        load_demo(tmp_path / "flip.npz")
    assert main_demos("validate", [str(tmp_path)]) == 1
    with pytest.raises(DemoFormatError):
        save_demo(tmp_path / "x.npz", {**arrays, "events": arrays["events"][:-1]}, meta)


def test_replay_sim_reports_first_departure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    arrays, meta = sim_demo(EVENTS)
    path = save_demo(tmp_path / "d.npz", arrays, meta)
    _, div = replay_sim(load_demo(path))
    assert div is None
    arrays["state"] = arrays["state"].copy()
    arrays["state"][60, 3, 1] += 1e-6
    bad = save_demo(tmp_path / "d.npz", arrays, meta)
    assert main_replay(str(bad), sim=True, browser=False, game=None, backend="playwright", video=None) == 1
    out = capsys.readouterr().out
    assert "event update 60: leftCalf.y" in out


def test_demos_info_and_video(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    arrays, meta = sim_demo(EVENTS)
    path = save_demo(tmp_path / "d.npz", arrays, meta)
    s = summary(path)
    assert len(s["episodes"]) == 2
    assert s["episodes"][0]["updates"] == 112 and s["episodes"][1]["updates"] == 41
    assert main_demos("info", [str(path)]) == 0
    assert "episode 1" in capsys.readouterr().out
    pytest.importorskip("PIL")
    gif = write_video(load_demo(path), tmp_path / "run.gif", every=4)
    assert gif.stat().st_size > 1000


@pytest.mark.parametrize(("action_set", "frame_skip"), [("full", 1), ("distinct", 2), ("article", 5)])
def test_conversion_to_pairs(tmp_path: Path, action_set: str, frame_skip: int) -> None:
    arrays, meta = sim_demo(EVENTS)
    path = save_demo(tmp_path / "d.npz", arrays, meta)
    data = load(path, action_set=action_set, frame_skip=frame_skip)
    n0 = int(np.ceil(112 / frame_skip))
    n1 = int(np.ceil(41 / frame_skip))
    assert len(data) == n0 + n1 and data.obs.shape == (len(data), 83)
    masks = action_masks(action_set)
    assert masks[data.actions[0]] == 9
    assert masks[data.actions[n0]] == 1  # the reset's update holds Q
    assert (data.behaviour_prob == 1).all()
    # The first transitions are what the env would give for the same actions.
    import gymnasium

    env = gymnasium.make("QwopSim-v0", action_set=action_set, frame_skip=frame_skip).unwrapped
    obs, _ = env.reset()
    np.testing.assert_allclose(data.obs[0], obs, atol=1e-6)


def test_conversion_with_frame_stack(tmp_path: Path) -> None:
    arrays, meta = sim_demo(EVENTS)
    data = load(save_demo(tmp_path / "d.npz", arrays, meta), frame_stack=3)
    assert data.obs.shape[1] == 3 * 83
    np.testing.assert_array_equal(data.obs[0, :83], data.obs[0, 166:])  # padded with the first frame


# ---------------------------------------------------------------- recording in the browser

pytest.importorskip("playwright")


def _standin(tmp_path: Path) -> Path:
    from browser_env.standin import PLANCK, build_standin

    if shutil.which("chromium") is None or not PLANCK.is_file():
        pytest.skip("needs Debian chromium and the stand-in's npm dependency")
    return build_standin(tmp_path / "game")


SCRIPT = [
    ("wait", 0, 0.3),
    ("click", 0, 0.3),
    ("keys", 9, 0.4),
    ("keys", 5, 0.4),
    ("keys", 0, 0.2),
    ("tap", 0, 0.3),
    ("keys", 6, 0.4),
    ("keys", 0, 0.2),
]


def test_recording_saves_exactly_what_the_game_saw(tmp_path: Path) -> None:
    from browser_env.game import BrowserGame
    from demos.record import Recorder

    game = _standin(tmp_path)
    rec = Recorder(game, tmp_path / "demos" / "alice.npz", player="alice", headless=True, autosave_s=0.5)
    play_script(rec, SCRIPT)
    rec.game.driver.evaluate("() => window.__qwopAdapter.hold(true)")  # freeze the page, then compare
    rec.poll()
    log = rec.game.driver.evaluate("() => window.__standinDebug().log")
    path = rec.finish()
    d = load_demo(path)
    a = d.arrays
    rows = a["events"] != CLICK_EVENT
    assert len(log) == int(rows.sum())  # every update the game ran, once
    np.testing.assert_array_equal(a["keys"][rows], [m for m, _, _ in log])
    np.testing.assert_array_equal(a["state"][rows], np.array([s for _, _, s in log]))
    resets = np.flatnonzero((a["events"] >= 16) & (a["events"] < 32))
    assert len(resets) == 1 and [r for _, r, _ in log].count(1) == 1
    # Keys go down one at a time, so an update can land between two key events (Q alone
    # while P is released and O pressed): those intermediate masks are what the game saw.
    seen = set(np.unique(a["keys"][rows]).tolist())
    assert {0, 5, 6, 9} <= seen <= {0, 1, 2, 4, 5, 6, 8, 9}
    assert d.num_episodes == 2
    assert a["episode_partial"][0] == 0
    assert d.meta["player"] == "alice" and len(d.meta["game_files"]["QWOP.min.js"]) == 64
    assert not (path.parent / "alice.partial.npz").exists()
    # Replayed in the stand-in in lock-step, the session gives the same states.
    with BrowserGame(game) as g:
        out = g.replay_session(a["events"])
    np.testing.assert_array_equal(out["state"], a["state"])
    np.testing.assert_array_equal(out["initial"], a["initial"])


def test_browser_closed_mid_episode_keeps_everything(tmp_path: Path) -> None:
    from demos.record import Recorder

    game = _standin(tmp_path)
    out = tmp_path / "demos" / "bob.npz"
    out.parent.mkdir(parents=True)
    out.write_bytes(b"an earlier recording")  # must not be touched
    rec = Recorder(game, out, player="bob", headless=True, autosave_s=0.3)
    play_script(rec, SCRIPT[:4])
    assert rec.autosave_path.exists()
    seen = rec.updates
    rec.game.driver.close()  # the person closes the browser
    assert rec.poll() is False
    path = rec.finish()
    assert out.read_bytes() == b"an earlier recording"
    assert path.name == "bob-1.npz"
    d = load_demo(path)
    assert int((d.arrays["events"] != CLICK_EVENT).sum()) == seen
    assert d.arrays["episode_partial"][-1] == 1 and d.meta["incomplete"] is True


def test_saved_runs_and_replays_give_split_times(tmp_path: Path) -> None:
    from demos.simulate import save_keys_as_demo
    from tests.clitools import qwop as qwop_cli
    from tests.support import RECORDS

    record = load_demo(RECORDS / "guided_seed0_41.10s.npz")
    path = save_keys_as_demo(record.events[1:].astype(np.int8), tmp_path / "run.npz", {"note": "a copy"})
    meta = load_demo(path).meta
    assert len(meta["splits_s"]) == 10 and meta["splits_s"][-1] == pytest.approx(41.1, abs=0.01)
    p = qwop_cli("replay", str(path))
    assert p.returncode == 0 and "split times every 10 m: 6.83 (6.83), 11.07 (4.23)" in p.stdout, p.stdout
