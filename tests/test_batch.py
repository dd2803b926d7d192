"""The batched engine: same bits as single games, zero-copy buffers, auto-reset, memory."""

from __future__ import annotations

import numpy as np
import pytest

import sim_env
from sim_env.gaits import SHUFFLE, gait_keys


def _random_keys(steps: int, envs: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # Held keys for a few updates at a time, like a person, so envs run for a while.
    return np.repeat(rng.integers(0, 16, (steps // 6 + 1, envs)), 6, axis=0)[:steps].astype(np.int32)


def _run_batch(envs: int, threads: int, keys: np.ndarray, frame_skip: int = 1) -> list[np.ndarray]:
    b = sim_env.BatchSim(envs, threads, frame_skip=frame_skip)
    states = []
    for k in keys:
        b.step(k)
        states.append(b.state.copy())
    return states


def test_batch_matches_single_games_with_auto_reset() -> None:
    envs, steps = 6, 400
    keys = _random_keys(steps, envs, 1)
    b = sim_env.BatchSim(envs, 2)
    sims = [sim_env.QwopSim() for _ in range(envs)]
    resets = 0
    for t in range(steps):
        b.step(keys[t])
        for i, sim in enumerate(sims):
            before = sim.distance_m
            sim.update(int(keys[t, i]))
            assert b.reward[i] == sim.distance_m - before
            if sim.game_ended:
                assert b.terminated[i] == 1
                np.testing.assert_array_equal(b.final_state[i], sim.body_state())
                assert b.final_score[i] == sim.score
                sims[i] = sim = sim_env.QwopSim()
                resets += 1
                assert b.episode_updates[i] == 0
            else:
                assert b.terminated[i] == 0
            np.testing.assert_array_equal(b.state[i], sim.body_state())
    assert resets > 0, "the test should exercise auto-reset"


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_same_bits_for_any_thread_count(threads: int) -> None:
    keys = _random_keys(200, 8, 2)
    ref = _run_batch(8, 1, keys)
    got = _run_batch(8, threads, keys)
    for a, b in zip(ref, got, strict=True):
        assert a.tobytes() == b.tobytes()


def test_same_bits_in_every_slot() -> None:
    keys = gait_keys(SHUFFLE, 300).astype(np.int32)
    b = sim_env.BatchSim(5, 2)
    for k in keys:
        b.step(np.full(5, k, dtype=np.int32))
    first = b.snapshot_env(0)
    assert all(b.snapshot_env(i) == first for i in range(1, 5))
    np.testing.assert_array_equal(b.state[3], sim_env.replay(keys.astype(np.int8))["state"][-1])


def test_frame_skip_and_time_limit() -> None:
    keys = gait_keys(SHUFFLE, 60)
    ref = sim_env.replay(keys)
    truncs = 0
    # With frame skip 3 and a 1 s limit, an episode is 10 steps of 3 updates.
    b = sim_env.BatchSim(1, 1, frame_skip=3, time_limit=1.0)
    assert (b.frame_skip, b.time_limit, b.max_updates, b.frame_stack, b.sincos) == (3, 1.0, 30, 1, "fma")
    for t in range(10):
        b.step(np.array([keys[t * 3]], dtype=np.int32))
        truncs += int(b.truncated[0])
        if t < 9:
            np.testing.assert_array_equal(b.state[0], ref["state"][t * 3 + 2])
    assert truncs == 1 and b.truncated[0] == 1 and b.terminated[0] == 0
    np.testing.assert_array_equal(b.final_state[0], ref["state"][29])
    assert b.final_time[0] == ref["score_time"][29]


def test_buffers_are_zero_copy_views() -> None:
    b = sim_env.BatchSim(4, 1)
    s1, s2 = b.state, b.state
    assert s1.__array_interface__["data"][0] == s2.__array_interface__["data"][0]
    b.keys[:] = [1, 2, 4, 8]
    b.step()  # reads the keys buffer in place
    assert s1[0, 0, 3] != 0.0  # the view saw the step without being fetched again
    np.testing.assert_array_equal(b.keys, [1, 2, 4, 8])


def test_batch_rejects_bad_keys() -> None:
    b = sim_env.BatchSim(3, 1)
    with pytest.raises(ValueError, match="length num_envs = 3"):
        b.step(np.zeros(2, dtype=np.int32))
    with pytest.raises(ValueError, match=r"keys\[1\] = 16 is out of range"):
        b.step(np.array([0, 16, 0]))
    b.keys[2] = -3
    with pytest.raises(ValueError, match=r"keys buffer\[2\] = -3"):
        b.step()
    with pytest.raises(ValueError):
        sim_env.BatchSim(0, 1)
    with pytest.raises(ValueError):
        sim_env.BatchSim(2, 0)


def test_memory_per_game_under_64_kib() -> None:
    assert sim_env.BatchSim(1, 1).bytes_per_env < 64 * 1024
