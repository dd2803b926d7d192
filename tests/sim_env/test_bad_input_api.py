"""The simulator's API refuses what it cannot take exactly, with a ``ValueError`` that says what
was wrong, instead of converting it (numpy's casts would turn 1.5 into 1 and 2**33 + 1 into 1)."""

from __future__ import annotations

import numpy as np
import pytest

import sim_env


@pytest.mark.parametrize(
    "keys",
    [
        np.array([1.5, 0]),
        np.array([2**33 + 1, 0], dtype=np.int64),
        np.array([2**63 + 1, 0], dtype=np.uint64),
        np.array([True, False]),
        np.array(["1", "0"]),
        [2**70, 0],
        np.array([16, 0]),
        np.array([-1, 0]),
    ],
    ids=["float", "int64-wraps", "uint64-wraps", "bool", "str", "huge-int", "16", "negative"],
)
def test_batch_step_refuses_keys_it_would_have_to_convert(keys: object) -> None:
    b = sim_env.BatchSim(2)
    before = b.obs.copy()
    with pytest.raises(ValueError, match="keys"):
        b.step(keys)
    np.testing.assert_array_equal(b.obs, before)  # nothing ran
    b.step(np.array([9, 5], dtype=np.int16))  # any integer dtype holding masks is fine
    b.step([9, 5])


def test_game_sets_refuse_indices_out_of_range_or_not_whole() -> None:
    games = sim_env.GameSet()
    keys = np.full((1, 4), 9, dtype=np.int8)
    for bad in (np.array([2**32], dtype=np.int64), np.array([1]), np.array([-1]), np.array([0.0]), np.array([False])):
        with pytest.raises(ValueError, match="parent"):
            games.expand(bad, keys)
        with pytest.raises(ValueError, match="indices"):
            games.select(bad)
    with pytest.raises(ValueError, match="keys"):
        games.expand(np.array([0]), np.full((1, 4), 9.5))
    assert len(games.select(np.array([0, 0]))) == 2
    assert games.expand([0], [[9, 9]])["updates"][0] == 2


def test_rollouts_refuse_bad_rows_and_settings() -> None:
    games = sim_env.GameSet()
    policy = sim_env.GuidePolicy([(np.zeros((83, 2)), np.zeros(2), "none")], 2, np.ones(1), np.array([0, 9]), 4)
    keys = np.full((1, 4), 9, dtype=np.int8)
    for bad in (np.array([1]), np.array([-1]), np.array([0.5])):
        with pytest.raises(ValueError, match="parent"):
            games.rollouts(bad, keys, policy, 3)
    with pytest.raises(ValueError, match="keys"):
        games.rollouts(np.array([0]), np.full((1, 4), 16), policy, 3)
    with pytest.raises(ValueError, match="lookahead"):
        games.rollouts(np.array([0]), keys, policy, -1)
    with pytest.raises(ValueError, match="threads"):
        games.rollouts(np.array([0]), keys, policy, 3, threads=0)
    with pytest.raises(TypeError):
        games.rollouts(np.array([0]), keys, "not a policy", 3)
    out = games.rollouts(np.array([0, 0]), np.zeros((2, 4), dtype=np.int8), policy, 3)
    assert out["rollout_len"].tolist() == [12, 12] and out["rollout_keys"].shape == (2, 12)


def test_update_refuses_a_mask_too_big_for_any_integer_type() -> None:
    sim = sim_env.QwopSim()
    for bad in (2**70, -(2**70), 16, -1):
        with pytest.raises(ValueError, match="out of range"):
            sim.update(bad)
    with pytest.raises(ValueError, match="bool"):
        sim.update(True)
    with pytest.raises(ValueError):
        sim.update(1.0)


def test_a_damaged_snapshot_is_called_damaged_not_another_version() -> None:
    sim = sim_env.QwopSim()
    sim.advance(np.full(40, 9, dtype=np.int8))
    snap = sim.snapshot()
    other = sim_env.QwopSim()
    for bad in (snap[:-1], snap[: len(snap) // 2], snap + b"\0"):
        with pytest.raises(ValueError, match="snapshot is damaged"):
            other.restore(bad)
    with pytest.raises(ValueError, match="too short"):
        other.restore(snap[:4])
    other.restore(snap)
    assert other.snapshot() == snap


def test_the_envs_refuse_bools_non_finite_weights_and_bad_seeds() -> None:
    import gymnasium

    env = gymnasium.make("QwopSim-v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action True"):
        env.step(True)
    with pytest.raises(ValueError, match="frame_skip"):
        gymnasium.make("QwopSim-v0", frame_skip=True)
    with pytest.raises(ValueError, match="reward_weights"):
        gymnasium.make("QwopSim-v0", reward_weights={"time": float("nan")})
    with pytest.raises(ValueError, match="time_limit"):
        gymnasium.make("QwopSim-v0", time_limit=float("inf"))
    vec = sim_env.make_vec(np.int64(2))  # a numpy integer is a number of envs
    assert vec.num_envs == 2
    with pytest.raises(TypeError, match="seed"):
        vec.reset(seed=1.5)
    with pytest.raises(TypeError, match="seed"):
        vec.reset(seed=-1)
    a, _ = vec.reset(seed=np.int64(3))
    b, _ = sim_env.make_vec(2).reset(seed=3)
    assert np.array_equal(a, b)


def test_a_trace_with_arrays_of_the_wrong_kind_is_refused(tmp_path) -> None:
    from sim_env.errors import UserInputError
    from sim_env.traces import load_trace

    out = sim_env.replay(np.array([1, 2, 4, 8] * 20, dtype=np.int8))
    good = {k: out[k] for k in ("keys", "state", "fallen", "game_ended", "jump_landed", "score_time", "score")}
    np.savez(tmp_path / "good.npz", **good)
    assert len(load_trace(tmp_path / "good.npz")["keys"]) == 80
    for name, bad in {
        "float keys": {**good, "keys": good["keys"].astype(np.float64) + 0.5},
        "keys over 15": {**good, "keys": good["keys"].astype(np.int64) + 300},
        "state of another shape": {**good, "state": good["state"][:, :6]},
        "a flag per update short": {**good, "fallen": good["fallen"][:-1]},
    }.items():
        np.savez(tmp_path / "bad.npz", **bad)
        with pytest.raises(UserInputError, match="is not a trace"):
            load_trace(tmp_path / "bad.npz")
        assert name
