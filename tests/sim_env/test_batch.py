"""The batched engine: same bits as single games, zero-copy buffers, auto-reset, memory."""

from __future__ import annotations

import numpy as np
import pytest

import sim_env
from agents.bench.sim import bench_batch
from sim_env.gaits import SHUFFLE, gait_keys

# Bytes per game in a running batch (docs/performance.md has the breakdown).
MEMORY_PER_GAME_BOUND = 16 * 1024


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


@pytest.mark.parametrize(("envs", "threads"), [(8, 2), (8, 3), (37, 2), (37, 5)])
def test_same_bits_for_any_thread_count(envs: int, threads: int) -> None:
    """Every env is stepped exactly once per step whichever thread takes it: threads own
    shares of the envs and take groups from each other's when they finish early (37 envs:
    shares that are not whole groups; 5 threads on this machine's 2 cores: threads that are
    descheduled in the middle of a step)."""
    keys = _random_keys(200, envs, 2)
    ref = _run_batch(envs, 1, keys)
    got = _run_batch(envs, threads, keys)
    for a, b in zip(ref, got, strict=True):
        assert a.tobytes() == b.tobytes()


def test_batches_made_and_dropped_in_quick_succession() -> None:
    """The pool's threads wait for work spinning, then sleeping: a batch dropped at any of
    those moments ends its threads (a hang here is a failure by timeout)."""
    for i in range(40):
        b = sim_env.BatchSim(12, 3)
        for _ in range(i % 3):
            b.step(np.full(12, 5, dtype=np.int32))
        assert (b.episode_updates == i % 3).all()
        del b


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


def test_memory_per_game_in_a_running_batch() -> None:
    """A game's contacts are allocated as it needs them: after running and falling, a batch
    of 256 games costs what its games hold, its buffers and its threads' scratch space."""
    envs = 256
    b = sim_env.BatchSim(envs, 2)
    fresh = b.bytes_per_env
    rng = np.random.default_rng(3)
    for _ in range(300):
        b.step(rng.integers(0, 16, envs).astype(np.int32))
    assert sim_env.GAME_BYTES < 12 * 1024
    assert fresh <= b.bytes_per_env < MEMORY_PER_GAME_BOUND


def test_memory_per_game_past_the_hurdle() -> None:
    """The figure `python -m agents.bench.sim` prints: 256 games spread over the gait's first
    4,000 updates, so that half of them kick the 50 m hurdle along and hold the most
    contacts a run reaches, after 400 steps."""
    _, bytes_per_env = bench_batch(256, 2, steps=80, repeats=5)
    assert bytes_per_env < MEMORY_PER_GAME_BOUND


LANES = pytest.mark.skipif(
    not sim_env.lockstep_available(), reason="this CPU cannot run the lock step's lanes (x86-64 with AVX2 and FMA)"
)


def _step_bytes(b: sim_env.BatchSim) -> list[bytes]:
    """A step's every buffer byte, then the games' whole state (their snapshots)."""
    buffers = (
        b.state,
        b.obs,
        b.reward,
        b.terms,
        b.terminated,
        b.truncated,
        b.finished,
        b.final_state,
        b.final_obs,
        b.score,
        b.score_time,
        b.step_updates,
        b.episode_updates,
    )
    return [
        b"".join(np.ascontiguousarray(x).tobytes() for x in buffers),
        b"".join(bytes(b.snapshot_env(i)) for i in range(b.num_envs)),
    ]


def _lockstep_run(lockstep: bool, sincos: str, keys: np.ndarray, late: np.ndarray) -> tuple[list[bytes], int]:
    envs = keys.shape[1]
    b = sim_env.BatchSim(envs, 2, frame_skip=3, time_limit=25.0, sincos=sincos, lockstep=lockstep)
    assert b.lockstep == lockstep
    out = []
    for k, lt in zip(keys, late, strict=True):
        b.late[:] = lt
        b.step(k)
        out += _step_bytes(b)
    return out, b.lane_updates


@LANES
@pytest.mark.parametrize("sincos", ["fma", "generic"])
def test_lockstep_gives_the_same_bytes_as_env_by_env(sincos: str) -> None:
    """Four envs stepped together, joints in SIMD lanes: every buffer byte for byte as each
    env stepped alone, through falls, auto-resets, late updates, time limits, a last group of
    two envs and two threads; the gait keeps most groups running in the lanes."""
    envs, steps = 10, 600
    rng = np.random.default_rng(11)
    cycle = gait_keys(SHUFFLE, 18).astype(np.int32)
    keys = np.stack([cycle[(np.arange(envs) * 5 + t) % len(cycle)] for t in range(steps)])
    wild = _random_keys(steps, envs, 12)
    pick = np.repeat(rng.random((steps // 40 + 1, envs)) < 0.3, 40, axis=0)[:steps]
    keys = np.where(pick, wild, keys).astype(np.int32)
    late = (rng.random((steps, envs)) < 0.15).astype(np.uint8) * rng.integers(1, 3, (steps, envs)).astype(np.uint8)
    ref, none = _lockstep_run(False, sincos, keys, late)
    got, lanes = _lockstep_run(True, sincos, keys, late)
    assert none == 0
    assert lanes > 0.5 * envs * steps * 3, "most updates should have run in the lanes"
    for t, (a, b) in enumerate(zip(ref, got, strict=True)):
        assert a == b, f"step {t // 2} differs"


def _gait_batch(lockstep: bool, offsets: np.ndarray, steps: int, sincos: str = "fma") -> tuple[list[bytes], int]:
    """Envs run the gait from the given update offsets (advanced env by env), then step on
    in lock step or env by env; every step's buffers and the games' whole state."""
    b = sim_env.BatchSim(len(offsets), 2, time_limit=240.0, lockstep=lockstep, sincos=sincos)
    full = gait_keys(SHUFFLE, int(offsets.max()) + steps)
    for i, o in enumerate(offsets):
        b.advance_env(i, full[:o])
    lanes0 = b.lane_updates
    out = []
    for t in range(steps):
        b.step(full[offsets + t].astype(np.int32))
        out += _step_bytes(b)
    return out, b.lane_updates - lanes0


@LANES
@pytest.mark.parametrize("sincos", ["fma", "generic"])
def test_lockstep_with_a_second_island_gives_the_same_bytes(sincos: str) -> None:
    """Past the hurdle (about 2,300 updates into the gait) a world has two islands, the
    runner's and the kicked hurdle's, and in about one update in seven a single island where
    the hurdle's joint sits among the runner's (it touches the runner): the runner's joints
    still run in the lanes, the hurdle's world by world, with the same bytes as env by env."""
    offsets = 2300 + 7 * np.arange(8)
    ref, none = _gait_batch(False, offsets, 150, sincos)
    got, lanes = _gait_batch(True, offsets, 150, sincos)
    assert none == 0
    assert lanes == 8 * 150, f"only {lanes} of {8 * 150} updates ran in the lanes"
    for t, (a, b) in enumerate(zip(ref, got, strict=True)):
        assert a == b, f"step {t // 2} differs"


@LANES
@pytest.mark.parametrize("variant", ["fma", "generic"])
def test_lane_sincos_equals_the_engines(variant: str) -> None:
    """The lanes' sin/cos (trig_x4.h) against the engine's scalar one on over a million
    arguments across every range switch, the edges of each, infinities and NaN."""
    from sim_env import libm

    rng = np.random.default_rng(5)
    taylor = float.fromhex("0x1.020c49ba5e354p-3")
    edges = np.array([2.0**-27, 2.0**-26, 0.126, taylor, 0.85546875, 2.426264762878418, 105414348.0])
    near = np.concatenate([np.nextafter(edges, np.inf), np.nextafter(edges, 0), edges])
    x = np.concatenate(
        [
            rng.uniform(-8, 8, 800_000),
            rng.uniform(-1e6, 1e6, 100_000),
            rng.uniform(-1e9, 1e9, 1_000),
            np.exp(rng.uniform(-70, 0, 100_000)),
            near,
            -near,
            [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, 5e-324],
        ]
    )
    rng.shuffle(x)  # lanes mix ranges
    # Groups of four within one range (the lanes take shorter paths when every lane is below
    # 0.855 or below 2.43): arguments four to a group, in order.
    one_range = [
        rng.uniform(-0.86, 0.86, 200_000),
        rng.uniform(-0.13, 0.13, 40_000),
        rng.uniform(-2.43, 2.43, 200_000),
        np.exp(rng.uniform(-70, 0, 40_000)) * rng.choice([-1.0, 1.0], 40_000),
    ]
    x = np.concatenate([*one_range, x])
    s, c = libm.sincos(x, variant)
    ls, lc = libm.sincos(x, variant, lanes=True)
    np.testing.assert_array_equal(ls.view(np.int64), s.view(np.int64))
    np.testing.assert_array_equal(lc.view(np.int64), c.view(np.int64))


@LANES
def test_game_set_expands_in_lock_step_with_the_same_results() -> None:
    """A planner's expansion with groups of four children in the lanes: the same summaries and
    the same kept games, byte for byte, as child by child (falls mid-group, a short last group,
    parents that already ended, two threads)."""
    rng = np.random.default_rng(4)
    root = sim_env.GameSet()
    first = root.expand(np.zeros(6, np.int32), _random_keys(150, 6, 9).T.astype(np.int8), keep=True)
    parents = first["games"]
    assert first["ended"].any() and not first["ended"].all()
    n, horizon = 22, 90
    parent = rng.integers(0, 6, n).astype(np.int32)
    keys = np.where(rng.random((n, horizon)) < 0.7, 5, rng.integers(0, 16, (n, horizon))).astype(np.int8)
    got = parents.expand(parent, keys, threads=2, keep=True, lockstep=True)
    ref = parents.expand(parent, keys, threads=2, keep=True, lockstep=False)
    for name in ("state", "score_time", "score", "updates", "ended", "fallen", "landed"):
        assert got[name].tobytes() == ref[name].tobytes(), name
    for i in range(n):
        assert got["games"].snapshot(i) == ref["games"].snapshot(i), f"child {i}"
