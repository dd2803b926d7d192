"""Gymnasium envs on the simulator: checker, spaces, action sets, rewards, single vs vector."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import sim_env
from sim_env.actions import ACTION_SETS, action_masks, effective_mask, mask_label, masks_to_actions
from sim_env.observation import OBS_NAMES, OBS_SIZE, observe
from sim_env.rewards import REWARD_TERMS, profile_weights, reward_terms
from sim_env.traces import load_trace
from tests import oracle
from tests.support import FIXTURES, REPO


def _quiet_check(env: gymnasium.Env) -> None:
    with warnings.catch_warnings():
        # Unbounded Box spaces are deliberate (like Gymnasium's MuJoCo envs).
        warnings.filterwarnings("ignore", message=".*infinity.*")
        check_env(env)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"action_set": "full", "frame_skip": 3},
        {"action_set": "article", "frame_stack": 4, "reward": "shaped"},
        {"reward": "speed", "start_noise_updates": 10},
    ],
)
def test_env_checker_passes(options: dict) -> None:
    env = gymnasium.make("QwopSim-v0", **options)
    _quiet_check(env.unwrapped)


def test_spaces() -> None:
    env = gymnasium.make("QwopSim-v0", action_set="article", frame_stack=3)
    assert env.action_space.n == 11
    assert env.observation_space.shape == (3 * OBS_SIZE,)
    assert OBS_SIZE == 83 and len(OBS_NAMES) == 83
    assert len(set(OBS_NAMES)) == 83


def test_action_sets_map_to_the_right_keys() -> None:
    Q, W, O, P = sim_env.KEY_Q, sim_env.KEY_W, sim_env.KEY_O, sim_env.KEY_P  # noqa: N806, E741
    assert ACTION_SETS["full"] == tuple(range(16))
    labels = ["Q", "W", "O", "P", "QW", "QO", "QP", "WO", "WP", "OP", "-"]
    assert [mask_label(m) for m in ACTION_SETS["article"]] == labels
    assert sorted(ACTION_SETS["distinct"]) == sorted({effective_mask(m) for m in range(16)})
    assert len(ACTION_SETS["distinct"]) == 9
    assert effective_mask(Q | W | O | P) == Q | O
    for name, masks in ACTION_SETS.items():
        env = gymnasium.make("QwopSim-v0", action_set=name).unwrapped
        env.reset(seed=0)
        for a, mask in enumerate(masks):
            env.step(a)
            assert env.sim.keys == mask, (name, a)
    np.testing.assert_array_equal(masks_to_actions(np.array([Q | W, 0, O | P]), "distinct"), [3, 0, 1])
    with pytest.raises(ValueError, match="unknown action set"):
        action_masks("nope")


def test_observation_matches_documented_formulas(reference: Path) -> None:
    states = load_trace(reference / "traces" / "gait_b.npz")["state"]
    np.testing.assert_allclose(observe(states), oracle.observe(states), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="12, 6"):
        observe(np.zeros((3, 6)))


@pytest.mark.parametrize("profile", ["progress", "speed", "shaped"])
def test_rewards_match_formulas_on_recorded_traces(reference: Path, profile: str) -> None:
    trace = load_trace(reference / "traces" / "random_hold_1.npz")  # ends with a fall
    env = gymnasium.make("QwopSim-v0", action_set="full", reward=profile).unwrapped
    env.reset(seed=0)
    before = trace["initial"]
    w = profile_weights(profile)
    for t, k in enumerate(trace["keys"]):
        _, r, terminated, _, info = env.step(int(k))
        after = trace["state"][t]
        fell = bool(trace["fallen"][t]) and bool(trace["game_ended"][t]) and not trace["jump_landed"][t]
        expect = oracle.reward_terms(before, after, 1 / 30, trace["score_time"][t], fell, False)
        np.testing.assert_allclose(info["reward_terms"], expect, rtol=0, atol=1e-12)
        assert r == pytest.approx(float(expect @ w), abs=1e-12)
        before = after
        if terminated:
            assert t == len(trace["keys"]) - 1
            assert info["reward_terms"][REWARD_TERMS.index("fall")] == -1.0
    assert terminated


def test_finish_bonus_term() -> None:
    s = np.zeros((12, 6))
    t = reward_terms(s, s, 1 / 30, 47.5, False, True)
    assert t[REWARD_TERMS.index("finish")] == pytest.approx(120 - 47.5)


def _run_single(options: dict, actions: np.ndarray, seed: int) -> list[tuple]:
    env = gymnasium.make("QwopSim-v0", **options).unwrapped
    _obs, _ = env.reset(seed=seed)
    out = []
    for a in actions:
        obs2, r, te, tr, info = env.step(int(a))
        out.append((obs2, r, te, tr, info["reward_terms"]))
        if te or tr:
            obs2, _ = env.reset()
            out[-1] = (*out[-1], obs2)
    return out


@pytest.mark.parametrize("options", [{}, {"frame_skip": 3, "frame_stack": 2, "reward": "speed", "time_limit": 3.0}])
def test_single_and_vector_envs_agree(options: dict) -> None:
    n, steps = 4, 160
    rng = np.random.default_rng(3)
    actions = np.repeat(rng.integers(0, 9, (steps // 8 + 1, n)), 8, axis=0)[:steps]
    vec = sim_env.make_vec(n, 2, **options)
    vobs, _ = vec.reset(seed=0)
    singles = [_run_single(options, actions[:, i], seed=0) for i in range(n)]
    ends = 0
    for t in range(steps):
        vobs, vr, vte, vtr, info = vec.step(actions[t])
        for i in range(n):
            rec = singles[i][t]
            np.testing.assert_array_equal(vr[i], rec[1])
            assert (vte[i], vtr[i]) == (rec[2], rec[3])
            np.testing.assert_array_equal(info["reward_terms"][i], rec[4])
            if rec[2] or rec[3]:
                ends += 1
                np.testing.assert_array_equal(info["final_obs"][i], rec[0])
                np.testing.assert_array_equal(vobs[i], rec[5])  # first obs of the next episode
            else:
                np.testing.assert_array_equal(vobs[i], rec[0])
    assert ends > 0


def test_gymnasium_make_vec_and_sb3_adapter() -> None:
    envs = gymnasium.make_vec("QwopSim-v0", num_envs=3, vectorization_mode="vector_entry_point", frame_skip=2)
    obs, _ = envs.reset(seed=1)
    assert obs.shape == (3, OBS_SIZE)
    obs, r, te, _tr, _ = envs.step(np.array([1, 2, 3]))
    assert r.shape == (3,) and te.dtype == bool
    pytest.importorskip("stable_baselines3")
    from agents.training.sb3_env import make_sb3_vec

    venv = make_sb3_vec(3, 1, action_set="full")
    o = venv.reset()
    assert o.shape == (3, OBS_SIZE)
    done_seen = False
    for _ in range(300):
        venv.step_async(np.full(3, sim_env.KEY_O))
        o, r, d, infos = venv.step_wait()
        if d.any():
            i = int(np.flatnonzero(d)[0])
            assert "terminal_observation" in infos[i] and infos[i]["TimeLimit.truncated"] is False
            assert infos[i]["episode"]["l"] > 0
            done_seen = True
            break
    assert done_seen


def test_seeding_and_start_noise() -> None:
    def first_obs(seed: int | None) -> np.ndarray:
        env = gymnasium.make("QwopSim-v0", start_noise_updates=30).unwrapped
        return env.reset(seed=seed)[0]

    np.testing.assert_array_equal(first_obs(5), first_obs(5))
    assert not np.array_equal(first_obs(5), first_obs(6))
    plain = gymnasium.make("QwopSim-v0").unwrapped
    a, _ = plain.reset(seed=1)
    b, _ = plain.reset(seed=2)
    np.testing.assert_array_equal(a, b)  # the game itself is deterministic
    env = gymnasium.make("QwopSim-v0", start_noise_updates=20, action_set="full").unwrapped
    env.reset(seed=9)
    for a in (3, 5, 9):
        env.step(a)
    out = sim_env.replay(env.episode_keys())
    np.testing.assert_array_equal(out["state"][-1], env.sim.body_state())


RECORD = REPO / "agents" / "records" / "beam_seed0_56.93s.npz"


def test_episodes_start_inside_good_runs(tmp_path: Path) -> None:
    from demos.start_runs import start_run_keys
    from sim_env.vec_env import QwopVecEnv

    run = start_run_keys((str(RECORD),))[0]
    env = gymnasium.make("QwopSim-v0", start_keys=[run], start_share=1.0, frame_skip=2).unwrapped
    starts = set()
    for seed in range(6):
        env.reset(seed=seed)
        keys = env.episode_keys()
        np.testing.assert_array_equal(keys, run[: len(keys)])  # a prefix of the run
        starts.add(len(keys))
        env.step(4)
        np.testing.assert_array_equal(sim_env.replay(env.episode_keys())["state"][-1], env.sim.body_state())
    assert len(starts) >= 5  # at different points of it
    # time spent before the first step counts toward the limit
    env.reset(seed=0)
    assert env._info(np.zeros(7))["episode_updates"] == len(env.episode_keys())
    venv = QwopVecEnv(4, 1, track_keys=True, start_keys=start_run_keys([str(RECORD)]), start_share=1.0)
    venv.reset(seed=1)
    assert all(len(p) > 0 and np.array_equal(p, run[: len(p)]) for p in venv.episode_prefix)
    plain = gymnasium.make("QwopSim-v0", start_keys=[run], start_share=0.0).unwrapped
    plain.reset(seed=0)
    assert len(plain.episode_keys()) == 0
    not_demo = tmp_path / "x.npz"
    not_demo.write_bytes(b"nope")
    with pytest.raises(ValueError, match=r"x\.npz"):
        start_run_keys([str(not_demo)])
    # the env reads no files: a config's start_runs come to it as keys
    with pytest.raises(ValueError, match=r"start_keys=demos\.start_runs\.start_run_keys"):
        gymnasium.make("QwopSim-v0", start_runs=[str(RECORD)])
    with pytest.raises(ValueError, match=r"start_keys\[0\]\[2\] = 99 is out of range 0\.\.15"):
        gymnasium.make("QwopSim-v0", start_keys=[[1, 2, 99]])
    with pytest.raises(ValueError, match="start_share must be in"):
        gymnasium.make("QwopSim-v0", start_share=1.5)


def test_a_start_inside_a_run_from_its_nearest_kept_state_is_the_whole_runs_game() -> None:
    # The batched env restores a state kept along the run and runs only the keys after it: the
    # game, the observation (frame stack included) and the episode's clock must be those of
    # every key run from the traces' start.
    from demos.start_runs import start_run_keys
    from sim_env.starts import RunStates
    from sim_env.vec_env import QwopVecEnv

    runs = start_run_keys([str(RECORD)])
    venv = QwopVecEnv(8, 1, track_keys=True, start_keys=runs, start_share=1.0, frame_stack=2, sincos="generic")
    venv.reset(seed=3)
    for _ in range(3):
        for i, keys in enumerate(venv.episode_prefix):
            whole = sim_env.BatchSim(1, 1, venv.config.episode, sincos="generic")
            whole.reset()
            if keys.size:
                whole.advance_env(0, keys)
            assert whole.snapshot_env(0) == venv.batch.snapshot_env(i)
            np.testing.assert_array_equal(whole.obs[0], venv.batch.obs[i])
            assert whole.episode_updates[0] == venv.batch.episode_updates[i] == len(keys)
        venv._start_noise(np.arange(8))
    assert max(len(k) for k in venv.episode_prefix) > 32  # some began past a kept state
    states = RunStates(runs, every=32)
    assert states.before(0, 31)[1] == 0 and states.before(0, 64)[1] == 64
    assert states.before(0, 10**6)[1] == 32 * (len(runs[0]) // 32)  # past the run: its last kept state


def test_time_limit_truncates() -> None:
    env = gymnasium.make("QwopSim-v0", time_limit=1.0, frame_skip=4).unwrapped
    env.reset(seed=0)
    steps = 0
    while True:
        _, _, te, tr, info = env.step(0)
        steps += 1
        if te or tr:
            break
    assert tr and not te and steps == 8 and info["episode_updates"] == 30


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"action_set": "x"}, "unknown action set"),
        ({"reward": "fast"}, "unknown reward profile"),
        ({"reward_weights": {"speedy": 1}}, "unknown reward term"),
        ({"frame_skip": 0}, "frame_skip"),
        ({"time_limit": 0}, "time_limit"),
        ({"frame_stack": 0}, "frame_stack"),
    ],
)
def test_bad_options(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        gymnasium.make("QwopSim-v0", **options)


def test_bad_actions() -> None:
    env = gymnasium.make("QwopSim-v0").unwrapped
    env.reset()
    with pytest.raises(ValueError, match="not in Discrete"):
        env.step(9)
    vec = sim_env.make_vec(2, 1)
    vec.reset()
    with pytest.raises(ValueError, match=r"in 0\.\.8"):
        vec.step(np.array([0, 9]))
    with pytest.raises(ValueError, match="2 integers"):
        vec.step(np.array([0.5, 1.0]))


def test_render_rgb_array() -> None:
    env = gymnasium.make("QwopSim-v0", render_mode="rgb_array")
    env.reset()
    env.step(5)
    img = env.render()
    assert img.shape == (400, 640, 3) and img.dtype == np.uint8
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 3  # runner, track, sky drawn


def test_vec_env_final_keys_replay_each_episode() -> None:
    """With track_keys, final_info["keys"] is every update's mask of the episode (start noise
    included), and replaying it gives the episode's last state."""
    from sim_env.vec_env import QwopVecEnv

    _assert_final_keys_replay(QwopVecEnv(3, 1, track_keys=True, frame_skip=3, time_limit=2.0, start_noise_updates=5))


def _assert_final_keys_replay(env: Any) -> None:
    """Steps a tracking vector env with random actions; each ended episode's final keys replay
    to its final state."""
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(40):
        _, _, term, trunc, info = env.step(rng.integers(0, 9, 3))
        for i in np.flatnonzero(term | trunc):
            keys = info["final_info"]["keys"][i]
            run = sim_env.replay(keys)
            assert len(run["state"]) == len(keys)
            assert np.array_equal(run["state"][-1], env.batch.final_state[i])
            checked += 1
    assert checked >= 3
    env.close()


def test_late_decisions_keep_the_previous_keys_for_one_update() -> None:
    """late_decision_prob: a late step's first update keeps the keys held before it (what real
    time does to a decision), in the single and the vector env alike, and the episode's keys
    still replay it exactly."""
    from sim_env import _core
    from sim_env.vec_env import QwopVecEnv

    # The C++ step: late=1 is one more update with the previous keys, then the step's own.
    a, b = _core.Env(frame_skip=4), _core.Env(frame_skip=4)
    a.step(sim_env.KEY_Q)
    b.step(sim_env.KEY_Q)
    out = a.step(sim_env.KEY_O | sim_env.KEY_W, late=1)
    assert out["updates"] == 5
    b.sim.advance(np.array([sim_env.KEY_Q] + [sim_env.KEY_O | sim_env.KEY_W] * 4, dtype=np.int8))  # by hand
    np.testing.assert_array_equal(a.sim.body_state(), b.sim.body_state())
    with pytest.raises(ValueError, match="late must be >= 0"):
        a.step(0, late=-1)

    # Single env: some steps are late, the keys record it, and they replay the episode.
    env = gymnasium.make("QwopSim-v0", frame_skip=4, late_decision_prob=0.5, time_limit=6.0).unwrapped
    env.reset(seed=3)
    per_step, before = [], 0
    for act in np.random.default_rng(1).integers(0, 9, 60):
        _, _, te, tr, info = env.step(int(act))
        per_step.append(info["episode_updates"] - before)
        before = info["episode_updates"]
        if te or tr:
            break
    keys = env.episode_keys()
    np.testing.assert_array_equal(sim_env.replay(keys)["state"][-1], env.sim.body_state())
    assert set(per_step[:-1]) == {4, 5}  # on time and late steps

    # Vector env: the same in every env, episode after episode.
    _assert_final_keys_replay(QwopVecEnv(3, 1, track_keys=True, frame_skip=3, time_limit=2.0, late_decision_prob=0.5))

    # Off (the default): no step is late, and the RNG's stream is the one it always was.
    plain = QwopVecEnv(2, 1, frame_skip=3, start_noise_updates=5)
    zero = QwopVecEnv(2, 1, frame_skip=3, start_noise_updates=5, late_decision_prob=0.0)
    for e in (plain, zero):
        e.reset(seed=9)
        for _ in range(30):
            e.step(np.array([1, 2]))
    np.testing.assert_array_equal(plain.batch.state, zero.batch.state)
    with pytest.raises(ValueError, match="late_decision_prob must be in"):
        gymnasium.make("QwopSim-v0", late_decision_prob=1.5)


DIVE_SHORT = FIXTURES / "dive_short_keys.npy"


def test_a_dive_that_lands_short_of_100_m_is_a_fall_not_a_finish(tmp_path: Path) -> None:
    """The original counts a fall after the final jump as its landing, at the fall's x; these
    keys (the shipped agent's run, then random keys from 96 m) dive over the line and land at
    99.0 m. Every env, report and tool calls that a fall (finished_100m), not a finish."""
    from demos.inspect import summary as demo_summary
    from demos.replay import outcome
    from demos.simulate import save_keys_as_demo
    from sim_env.vec_env import QwopVecEnv

    keys = np.load(DIVE_SHORT)
    run = sim_env.replay(keys)
    assert run["game_ended"][-1] and run["jump_landed"][-1] and run["fallen"][-1] and run["score"][-1] == 99.0
    assert len(run["state"]) == len(keys)
    assert not sim_env.finished_100m(True, True, 99.0) and sim_env.finished_100m(True, True, 100.0)

    env = gymnasium.make("QwopSim-v0", action_set="full", reward="speed").unwrapped
    env.reset(seed=0)
    for k in keys:
        _, _, te, _, info = env.step(int(k))
    assert te and not info["finished"] and info["fallen"]
    terms = dict(zip(REWARD_TERMS, info["reward_terms"], strict=True))
    assert terms["finish"] == 0.0 and terms["fall"] != 0.0

    venv = QwopVecEnv(1, 1, action_set="full")
    venv.reset(seed=0)
    for k in keys:
        _, _, te, _, info = venv.step(np.array([k]))
    assert te[0] and not info["final_info"]["finished"][0] and info["final_info"]["fallen"][0]

    demo = save_keys_as_demo(keys, tmp_path / "dive.npz", {"source": "test"})
    summary = demo_summary(demo)["episodes"][0]
    assert not summary["finished"] and summary["fell"]
    assert outcome(run).startswith("ended the final jump at 99.0 m")
