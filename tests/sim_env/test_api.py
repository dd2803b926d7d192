"""Python API of the simulator: names, shapes, reset, snapshots, determinism, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import sim_env
from sim_env.gaits import SHUFFLE, gait_keys


def test_initial_state_and_shapes() -> None:
    sim = sim_env.QwopSim()
    s = sim.body_state()
    assert s.shape == (12, 6) and s.dtype == np.float64
    assert not np.any(s[:, 3:])  # nothing moves before the first update
    assert (sim.fallen, sim.game_ended, sim.jump_landed) == (False, False, False)
    assert sim.score_time == 0.0 and sim.updates == 0
    assert sim_env.PART_NAMES[0] == "torso" and len(sim_env.PART_NAMES) == 12
    assert len(sim_env.JOINT_NAMES) == 11 and sim_env.JOINT_NAMES[3] == "leftHip"


def test_update_advances_time_and_keeps_state_finite() -> None:
    sim = sim_env.QwopSim()
    for k in range(16):
        sim.update(k)
    assert sim.updates == 16
    assert sim.score_time == pytest.approx(16 / 30)
    assert np.isfinite(sim.body_state()).all()
    assert sim.keys == 15


def test_replay_equals_stepping() -> None:
    keys = gait_keys(SHUFFLE, 300)
    out = sim_env.replay(keys)
    sim = sim_env.QwopSim()
    for t, k in enumerate(keys):
        sim.update(int(k))
        np.testing.assert_array_equal(sim.body_state(), out["state"][t])
    assert out["score"][-1] == sim.score
    assert set(out) >= {"state", "fallen", "game_ended", "jump_landed", "score_time", "score", "keys", "initial"}


def test_replay_stops_when_the_game_ends() -> None:
    keys = np.full(2000, sim_env.KEY_O, dtype=np.int8)  # holding O falls within seconds
    out = sim_env.replay(keys)
    assert len(out["state"]) < 2000
    assert out["game_ended"][-1] == 1 and out["fallen"][-1] == 1
    assert out["game_ended"][:-1].sum() == 0


def test_reset_matches_the_original_reset() -> None:
    sim = sim_env.QwopSim()
    for k in gait_keys(SHUFFLE, 100):
        sim.update(int(k))
    sim.reset(sim_env.KEY_Q)
    # reset() zeroes the time and then runs one update itself.
    assert sim.score_time == sim_env.UPDATE_DT
    assert not sim.fallen and not sim.game_ended
    assert sim.resets == 1
    # The same as a session with the reset as an event.
    events = np.concatenate([gait_keys(SHUFFLE, 100), [16 + sim_env.KEY_Q]]).astype(np.int8)
    out = sim_env.replay_session(events)
    np.testing.assert_array_equal(out["state"][-1], sim.body_state())


def test_game_keeps_stepping_after_a_fall_in_a_session() -> None:
    events = np.full(400, sim_env.KEY_O, dtype=np.int8)
    out = sim_env.replay_session(events)
    assert len(out["state"]) == 400
    fell = int(np.argmax(out["game_ended"]))
    assert 0 < fell < 399
    assert not np.array_equal(out["state"][fell], out["state"][fell + 1])  # ragdoll moves on


def test_snapshot_restore_is_exact() -> None:
    keys = gait_keys(SHUFFLE, 400)
    sim = sim_env.QwopSim()
    for k in keys[:200]:
        sim.update(int(k))
    snap = sim.snapshot()
    for k in keys[200:]:
        sim.update(int(k))
    end = sim.body_state()
    sim.restore(snap)
    assert sim.updates == 200
    for k in keys[200:]:
        sim.update(int(k))
    np.testing.assert_array_equal(sim.body_state(), end)
    np.testing.assert_array_equal(sim_env.replay(keys)["state"][-1], end)


def test_snapshot_into_a_game_that_held_more_contacts() -> None:
    """A game's contacts are stored beside it and grow as it needs them: restoring an early
    snapshot into a game that has since held more contacts leaves stale slots beyond the
    snapshot's, which new contacts must not inherit (the snapshots are equal bytes too)."""
    rng = np.random.default_rng(11)
    early_keys = gait_keys(SHUFFLE, 60)
    sim = sim_env.QwopSim()
    for k in early_keys:
        sim.update(int(k))
    early = sim.snapshot()
    for k in rng.integers(0, 16, 900):  # flailing and falling: more contacts than the gait's start
        sim.update(int(k))
    assert len(sim.snapshot()) > len(early), "the game should have held more contacts since"
    later = np.repeat(rng.integers(0, 16, 80), 5)
    sim.restore(early)
    assert sim.snapshot() == early
    fresh = sim_env.QwopSim()
    fresh.restore(early)
    for k in later:
        sim.update(int(k))
        fresh.update(int(k))
    assert sim.snapshot() == fresh.snapshot()


@pytest.mark.parametrize("bad", [16, -1, 255, 1 << 40])
def test_key_mask_out_of_range(bad: int) -> None:
    sim = sim_env.QwopSim()
    with pytest.raises(ValueError, match="out of range"):
        sim.update(bad)
    with pytest.raises(ValueError, match="out of range"):
        sim.reset(bad)
    assert sim.updates == 0  # nothing ran


@pytest.mark.parametrize("bad", [1.5, "Q", None, True])
def test_key_mask_wrong_type(bad: object) -> None:
    with pytest.raises(ValueError, match="keys must be an int mask"):
        sim_env.QwopSim().update(bad)  # type: ignore[arg-type]


def test_numpy_integer_masks_are_accepted() -> None:
    sim = sim_env.QwopSim()
    sim.update(np.int8(5))
    sim.update(np.int64(10))
    assert sim.updates == 2


def test_replay_rejects_wrong_dtype_and_values() -> None:
    with pytest.raises(ValueError, match="dtype int8"):
        sim_env.replay(np.zeros(5, dtype=np.int64))
    with pytest.raises(ValueError, match="numpy int8 array"):
        sim_env.replay([0, 1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"keys\[2\] = 16 is out of range"):
        sim_env.replay(np.array([0, 1, 16], dtype=np.int8))
    with pytest.raises(ValueError, match="1-D"):
        sim_env.replay(np.zeros((2, 2), dtype=np.int8))
    with pytest.raises(ValueError, match=r"events\[1\] = 33 is out of range 0..32"):
        sim_env.replay_session(np.array([0, 33], dtype=np.int8))


def test_restore_rejects_foreign_snapshots() -> None:
    sim = sim_env.QwopSim()
    snap = bytearray(sim.snapshot())
    with pytest.raises(ValueError, match="bytes returned by snapshot"):
        sim.restore("not bytes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="too short"):
        sim.restore(b"abc")
    with pytest.raises(ValueError, match="bad header"):
        sim.restore(b"X" * len(snap))
    other_version = bytearray(snap)
    other_version[8] ^= 0xFF  # version field
    with pytest.raises(ValueError, match="another simulator version"):
        sim.restore(bytes(other_version))
    with pytest.raises(ValueError, match="snapshot is damaged"):  # cut short: damaged, not another version
        sim.restore(bytes(snap[:-8]))
    sim.update(3)
    assert np.isfinite(sim.body_state()).all()


def test_same_keys_same_bits_every_run() -> None:
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 16, 600).astype(np.int8)
    a = sim_env.replay(keys)["state"]
    b = sim_env.replay(keys)["state"]
    assert a.tobytes() == b.tobytes()


def test_intro_screen_before_the_first_click() -> None:
    sim = sim_env.QwopSim(first_click=False)
    assert not sim.first_click
    for _ in range(10):
        sim.update(0)
    # Updates run (the head's torque builds up) but the world is not stepped.
    np.testing.assert_array_equal(sim.body_state(), sim_env.QwopSim().body_state())
    assert sim.detail()["bodies"][1][0] < -10
    sim.click()
    assert sim.first_click and sim.score_time == 0.0
    sim.update(9)
    assert sim.score_time == sim_env.UPDATE_DT
    events = np.array([0] * 10 + [sim_env.CLICK_EVENT, 9], dtype=np.int8)
    out = sim_env.replay_session(events)
    np.testing.assert_array_equal(out["state"][-1], sim.body_state())
    # The idle frames change the run: the same key after a click with no idle frames differs.
    assert not np.array_equal(sim_env.replay(np.array([9], dtype=np.int8))["state"][-1], sim.body_state())


def test_split_times_every_ten_metres() -> None:
    from demos.format import load_demo
    from sim_env.traces import split_times
    from tests.support import RECORDS

    demo = load_demo(RECORDS / "guided_seed0_41.10s.npz")
    run = sim_env.replay(demo.events[1:].astype(np.int8))
    splits = split_times(run)
    assert len(splits) == 10 and splits[-1] == float(run["score_time"][-1])  # the finish closes them
    assert np.all(np.diff(splits) > 0)
    first = int(np.argmax(run["score"] >= 10))
    assert splits[0] == float(run["score_time"][first]) and run["score"][first - 1] < 10
    # a run that stops short has the splits it reached, and a reset starts them again
    short = sim_env.replay(demo.events[1 : first + 5].astype(np.int8))
    assert split_times(short) == splits[:1]
    keys = demo.events[1 : first + 5].astype(np.int8)
    from sim_env.spec import RESET_EVENT_BASE

    session = sim_env.replay_session(np.concatenate([keys, [RESET_EVENT_BASE], keys[:30]]).astype(np.int8))
    assert split_times(session) == []
