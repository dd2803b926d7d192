"""Episodes that start as a real-time page's game does (``EnvConfig.start_click``): after a click
in a drawn intro update, in the single and the vector env alike, replayable from their click."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import sim_env
from sim_env import _core
from sim_env.starts import clicked_start, replay_keys, start_game
from sim_env.vec_env import QwopVecEnv


def test_a_clicked_start_is_the_page_after_its_click() -> None:
    page = sim_env.QwopSim(first_click=False)
    page.advance(np.zeros(89, dtype=np.int8))
    page.click()
    page.update(0)
    assert clicked_start(90) == page.snapshot()
    assert clicked_start(1) != clicked_start(90) != clicked_start(91)
    # the click in update 1 is the traces' start one update on
    traces = sim_env.QwopSim()
    traces.update(0)
    assert start_game("fma", 1).snapshot() == traces.snapshot()
    for bad in (0, -3, True, 2.5):
        with pytest.raises(ValueError, match="update >= 1"):
            clicked_start(bad)


def test_episodes_start_after_the_click_in_both_envs_and_replay() -> None:
    single = gymnasium.make("QwopSim-v0", frame_skip=4, start_click=[120, 120], start_noise_updates=6).unwrapped
    vec = QwopVecEnv(1, 1, track_keys=True, frame_skip=4, start_click=[120, 120], start_noise_updates=6)
    obs1, info = single.reset(seed=5)
    obs2, _ = vec.reset(seed=5)
    np.testing.assert_array_equal(obs1, obs2[0])
    assert single.click_update == 120 and vec.episode_click[0] == 120
    noise = single.episode_keys()
    game = start_game("fma", 120)
    game.advance(noise)
    np.testing.assert_array_equal(single.sim.body_state(), game.body_state())
    assert info["episode_updates"] == 1 + len(noise)  # the click's update is the episode's first
    rng = np.random.default_rng(2)
    for _ in range(400):
        a = int(rng.integers(0, 9))
        o1, r1, te, tr, _ = single.step(a)
        o2, r2, te2, tr2, info2 = vec.step(np.array([a]))
        if te or tr:
            assert te2[0] or tr2[0]
            assert info2["final_info"]["click_update"][0] == 120
            keys = info2["final_info"]["keys"][0]
            np.testing.assert_array_equal(keys, single.episode_keys())
            run = replay_keys(keys, "fma", 120)
            np.testing.assert_array_equal(run["state"][-1], vec.batch.final_state[0])
            break
        np.testing.assert_array_equal(o1, o2[0])
        assert r1 == r2[0]
    else:
        pytest.fail("no episode ended")


def test_clicks_are_drawn_over_the_range_and_start_runs_keep_the_traces_start() -> None:
    vec = QwopVecEnv(64, 2, frame_skip=4, start_click=[90, 93])
    vec.reset(seed=1)
    assert set(vec.episode_click.tolist()) == {90, 91, 92, 93}
    for i, u in enumerate(vec.episode_click.tolist()):
        assert vec.batch.snapshot_env(i) == clicked_start(u)
    run = sim_env.replay(np.zeros(300, dtype=np.int8))  # keys from the traces' start
    mixed = QwopVecEnv(32, 1, frame_skip=4, start_click=[90, 90], start_share=0.5, start_keys=[np.zeros(300, np.int8)])
    mixed.reset(seed=2)
    clicked = mixed.episode_click == 90
    assert 0 < clicked.sum() < 32
    for i in np.flatnonzero(~clicked):  # a start run's episode: its keys from the traces' start
        n = len(mixed.episode_prefix[i])
        want = run["state"][n - 1] if n else sim_env.QwopSim().body_state()
        np.testing.assert_array_equal(mixed.batch.state[i], want)
    # off (the default): the RNG's stream is the one it always was
    plain, empty = QwopVecEnv(4, 1, start_noise_updates=5), QwopVecEnv(4, 1, start_noise_updates=5, start_click=[])
    plain.reset(seed=3)
    empty.reset(seed=3)
    np.testing.assert_array_equal(plain.batch.state, empty.batch.state)


@pytest.mark.parametrize("bad", [[0, 5], [5, 3], [90], [90, 91, 92], [True, 2], [1, 99_999], "90", [90.0, 91]])
def test_an_impossible_click_range_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="start_click must be"):
        gymnasium.make("QwopSim-v0", start_click=bad)


def test_the_engine_refuses_a_bad_start() -> None:
    batch = sim_env.BatchSim(2, 1, frame_skip=4)
    before = batch.snapshot_env(0)
    with pytest.raises(ValueError):
        batch.start_env(0, b"not a snapshot", 1)
    assert batch.snapshot_env(0) == before
    with pytest.raises(ValueError, match="updates must be in"):
        batch.start_env(0, clicked_start(90), -1)
    with pytest.raises(IndexError):
        batch.start_env(2, clicked_start(90), 1)
    env = _core.Env(frame_skip=4)
    with pytest.raises(ValueError, match="updates must be in"):
        env.start(clicked_start(90), 10**6)  # past the episode's time limit
    env.start(clicked_start(90), 1)
    assert env.updates == 1 and env.sim.snapshot() == clicked_start(90)
