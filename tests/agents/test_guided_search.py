"""The guided planner (``qwop search --guide``): the policy it is guided by acts as the model
does, whatever the batch; the search is deterministic on any thread count and resumable; a
finish it finds replays exactly; a changed guide or a bad option is one line."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import sim_env
from agents.search.guided_rollouts import game_after, guide_from_model, policy_rollouts
from agents.search.planner import LocalExpander
from agents.search.run import run_search
from agents.search.state import PlannerConfig, load_state, new_state
from agents.training.model_files import load_model
from sim_env.observation import observe
from sim_env.spec import UNITS_PER_METRE
from tests.clitools import one_line_error, qwop
from tests.support import NEEDS_RAY, REPO, assert_ray_equals_local

MODELS = REPO / "agents" / "models"
PDDQN = MODELS / "qwop_pddqn.zip"
GUIDED = PlannerConfig(guide=str(PDDQN), beam=3, lookahead=4, seed=3)


def _states(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        out.append(sim_env.replay(rng.integers(0, 16, int(rng.integers(20, 400))).astype(np.int8))["state"][-1])
    return np.stack(out)


@pytest.mark.parametrize("name", ["qwop_pddqn.zip", "qwop_ppo.zip"])
def test_guide_acts_as_the_model_and_rows_do_not_depend_on_the_batch(name: str) -> None:
    model, _ = load_model(MODELS / name)
    guide = guide_from_model(str(MODELS / name))
    states = _states(60)
    obs = observe(states)
    acts = guide.act(states)
    predicted, _ = model.predict(obs, deterministic=True)
    # float64 against the model's float32: the same action but for near ties
    assert np.mean(acts == predicted) >= 0.95
    alone = np.array([guide.act(states[i : i + 1])[0] for i in range(len(states))])
    assert np.array_equal(alone, acts)
    v = guide.values(obs)
    assert all(np.array_equal(guide.values(obs[i : i + 1])[0], v[i]) for i in range(0, 60, 7))


def test_rollouts_follow_the_guide() -> None:
    """A try's rollout is the guide's greedy play: replaying its keys gives the same end."""
    guide = guide_from_model(str(PDDQN))
    games = sim_env.GameSet()
    keys = np.repeat(guide.masks[:, None], guide.frame_skip, axis=1)
    out = policy_rollouts(games, np.zeros(len(keys), dtype=np.int32), keys, guide, lookahead=6, threads=2)
    assert out["total_updates"] == out["updates"].sum() + out["rollout_len"].sum()
    for c in (0, 4, 8):
        run = np.concatenate([keys[c], out["rollout_keys"][c, : out["rollout_len"][c]]])
        sim = sim_env.QwopSim()
        for d in range(0, len(run), guide.frame_skip):
            if d >= guide.frame_skip:  # after the tried action, the guide's choice
                assert guide.masks[guide.act(sim.body_state()[None])[0]] == run[d]
            sim.advance(run[d : d + guide.frame_skip])
        assert sim.body_state()[0, 0] / UNITS_PER_METRE == out["rollout_x"][c]


def _reference_rollouts(games, parent, keys, guide, lookahead: int) -> dict:
    """The rollouts decision by decision from GameSet.expand and the guide's choice in Python:
    what the C++ rollouts must equal."""
    first = games.expand(parent, keys, keep=True)
    child = first.pop("games")
    n, fs = len(parent), guide.frame_skip
    fin = sim_env.finished_100m(first["ended"], first["landed"], first["score"])
    end = np.where(fin, sim_env.ROLLOUT_FINISHED, np.where(first["ended"], sim_env.ROLLOUT_FELL, 0))
    x = first["state"][:, 0, 0] / UNITS_PER_METRE
    t = first["score_time"].copy()
    rs = first["state"].copy()
    rkeys = np.zeros((n, lookahead * fs), dtype=np.int8)
    rlen = np.zeros(n, dtype=np.int32)
    total = int(first["updates"].sum())
    for c in np.flatnonzero(end == sim_env.ROLLOUT_RUNNING):
        g = child.select(np.array([c], dtype=np.int32))
        state = first["state"][c]
        for _ in range(lookahead):
            k = np.repeat(guide.masks[guide.act(state[None])], fs)[None]
            o = g.expand(np.zeros(1, dtype=np.int32), k, keep=True)
            u = int(o["updates"][0])
            rkeys[c, rlen[c] : rlen[c] + u] = k[0, :u]
            rlen[c] += u
            total += u
            x[c], t[c], state, g = o["state"][0, 0, 0] / UNITS_PER_METRE, o["score_time"][0], o["state"][0], o["games"]
            rs[c] = state
            if o["ended"][0]:
                done = sim_env.finished_100m(o["ended"], o["landed"], o["score"])[0]
                end[c] = sim_env.ROLLOUT_FINISHED if done else sim_env.ROLLOUT_FELL
                break
    return {
        **first,
        "rollout_end": end,
        "rollout_x": x,
        "rollout_time": t,
        "rollout_state": rs,
        "rollout_keys": rkeys,
        "rollout_len": rlen,
        "total_updates": total,
    }


@pytest.mark.parametrize("at_end", [False, True])
def test_rollouts_in_cpp_equal_the_guide_decision_by_decision_on_any_thread_count(at_end: bool) -> None:
    """The C++ rollouts are the guide's greedy play, row by row: equal to a Python reference
    built from GameSet.expand and the guide's choice, on 1, 2 and 3 threads; near the line
    (at_end) rows finish or fall within the lookahead."""
    guide = guide_from_model(str(PDDQN))
    record = _record_keys()
    prefix = record[: len(record) - 30] if at_end else record[:400]
    beam = game_after(prefix).select(np.zeros(5, dtype=np.int32))
    beam = beam.expand(np.arange(5, dtype=np.int32), np.arange(5, dtype=np.int8)[:, None] * 3, keep=True)["games"]
    parent = np.repeat(np.arange(5, dtype=np.int32), len(guide.masks))
    keys = np.repeat(np.tile(guide.masks, 5)[:, None], guide.frame_skip, axis=1)
    want = _reference_rollouts(beam, parent, keys, guide, lookahead=12)
    if at_end:
        assert (want["rollout_end"] == sim_env.ROLLOUT_FINISHED).any()
    else:
        assert want["rollout_len"].max() == 12 * guide.frame_skip
    for threads in (1, 2, 3):
        got = policy_rollouts(beam, parent, keys, guide, lookahead=12, threads=threads)
        assert got["rollout_depth"] == -(-want["rollout_len"].max() // guide.frame_skip)  # the deepest row's decisions
        for k, v in want.items():
            assert np.array_equal(np.asarray(got[k]), np.asarray(v)), (threads, k)
    stopped = policy_rollouts(beam, parent, keys, guide, lookahead=12, deadline=0.0)
    assert stopped["rollout_depth"] == 0 and not stopped["rollout_len"].any()
    assert np.array_equal(stopped["state"], want["state"])


def _record_keys() -> np.ndarray:
    keys = np.load(REPO / "agents" / "records" / "guided_seed0_39.77s.npz")["keys"]
    return keys[keys >= 0].astype(np.int8)


def test_guide_values_are_the_network_in_float64_and_survive_pickling() -> None:
    import pickle

    guide = guide_from_model(str(PDDQN))
    obs = observe(_states(20, seed=4))
    h = obs.astype(np.float64)
    for w, b, act in guide.layers:
        h = h @ w + b
        h = np.maximum(h, 0.0) if act == "relu" else h
    v = guide.values(obs)
    assert np.allclose(v, h.reshape(len(h), -1, guide.n_actions).sum(axis=1), rtol=1e-12, atol=1e-12)
    copy = pickle.loads(pickle.dumps(guide))  # as Ray ships it: the C++ network is rebuilt
    assert np.array_equal(copy.values(obs), v)


def test_guide_policy_refuses_a_network_that_does_not_fit() -> None:
    w, b = np.zeros((83, 4)), np.zeros(4)
    masks = np.arange(4, dtype=np.int8)
    with pytest.raises(ValueError, match="chain"):
        sim_env.GuidePolicy([(np.zeros((10, 4)), b, "none")], 4, np.ones(1), masks, 4)
    with pytest.raises(ValueError, match="heads x actions"):
        sim_env.GuidePolicy([(w, b, "none")], 3, np.ones(1), masks[:3], 4)
    with pytest.raises(ValueError, match="activation"):
        sim_env.GuidePolicy([(w, b, "gelu")], 4, np.ones(1), masks, 4)
    with pytest.raises(ValueError, match=r"0\.\.15|out of range"):
        sim_env.GuidePolicy([(w, b, "none")], 4, np.ones(1), np.array([0, 1, 2, 16]), 4)
    with pytest.raises(ValueError, match="frame_skip"):
        sim_env.GuidePolicy([(w, b, "none")], 4, np.ones(1), masks, 0)


def _guided(budget: int, threads: int = 2, cfg: PlannerConfig = GUIDED, state_path: Path | None = None):
    return run_search(new_state(cfg), LocalExpander(threads), budget, state_path=state_path, progress=False)


def test_guided_search_is_deterministic_on_any_thread_count_and_resumes(tmp_path: Path) -> None:
    a = _guided(40_000)
    b = _guided(40_000, threads=1)
    assert a.history == b.history and all(np.array_equal(x, y) for x, y in zip(a.keys, b.keys, strict=True))
    path = tmp_path / "g.npz"
    _guided(15_000, state_path=path)
    resumed = run_search(load_state(path), LocalExpander(2), 40_000, state_path=path, progress=False)
    assert resumed.history == a.history and resumed.updates == a.updates
    # the beam is time-synchronous, one decision per stage
    assert len({len(k) for k in a.keys}) == 1


def test_tries_held_for_fewer_updates_than_the_guide_decides(tmp_path: Path) -> None:
    """try_updates=2: every stage adds two updates of one tried mask to each kept game."""
    st = _guided(8_000, cfg=replace(GUIDED, try_updates=2, start_noise=0))
    assert st.stage > 10 and not st.restarts and st.keys
    for keys in st.keys:  # one line, from the standard start (no random keys before it)
        assert len(keys) == 2 * st.stage
        pairs = keys.reshape(-1, 2)
        assert np.array_equal(pairs[:, 0], pairs[:, 1])  # a mask is held for its two updates
    assert len(np.unique(st.keys[0])) > 2


def test_per_parent_limits_each_kept_game_s_tries_in_the_next_beam() -> None:
    """per_parent=2: no stage keeps more than two tries of one game (tries of one game share
    its keys but the last decision's); without the limit the best game's tries fill the beam."""
    from agents.search.run import make_planner

    def most_of_one_parent(per_parent: int) -> int:
        planner = make_planner(new_state(replace(GUIDED, beam=8, per_parent=per_parent)), LocalExpander(2))
        most = 0
        for _ in range(40):
            planner.step()
            prefixes = [k[: -planner.policy.frame_skip].tobytes() for k in planner.state.keys]
            most = max(most, max(prefixes.count(p) for p in prefixes))
        return most

    assert most_of_one_parent(2) == 2
    assert most_of_one_parent(0) > 2


def test_refine_beam_keeps_more_games_once_a_run_has_finished() -> None:
    from agents.search.run import make_planner
    from agents.search.state import seed_best_run
    from demos.format import load_demo

    record = sorted((MODELS.parent / "records").glob("guided_seed0_*.npz"))[0]
    cfg = replace(GUIDED, beam=3, refine_beam=12, per_parent=2)

    def widest(with_record: bool) -> int:
        st = new_state(cfg)
        if with_record:
            seed_best_run(st, load_demo(record).events[1:].astype(np.int8))
        planner = make_planner(st, LocalExpander(2))
        most = 0
        for _ in range(12):
            planner.step()
            most = max(most, len(st.keys))
        return most

    assert widest(with_record=False) == 3
    assert widest(with_record=True) == 12


def _with_record(cfg: PlannerConfig):
    """A new search whose best run is the first shipped record (no faster run in a small search)."""
    from agents.search.state import seed_best_run
    from demos.format import load_demo

    record = sorted((MODELS.parent / "records").glob("guided_seed0_*.npz"))[0]
    st = new_state(cfg)
    seed_best_run(st, load_demo(record).events[1:].astype(np.int8))
    return st


def test_tries_get_finer_once_the_best_run_has_stood(tmp_path: Path) -> None:
    """fine_after: once the best run has stood that many updates (a run given at the start counts
    from the end of the first stage), every stage adds fine_try_updates updates rather than the
    guide's 4, for good; a search stopped before or after the switch resumes exactly."""
    from agents.search.run import make_planner

    cfg = replace(GUIDED, fine_after=10_000, fine_try_updates=2)
    st = _with_record(cfg)
    planner = make_planner(st, LocalExpander(2))
    holds = []
    for _ in range(40):
        start, length, restarts = st.updates, len(st.keys[0]), st.restarts
        planner.step()
        if st.restarts == restarts:  # the same line went on: its games grew by one try
            holds.append((start - st.history[0][0], len(st.keys[0]) - length))
    assert planner.fine
    assert all(hold == (2 if since >= 10_000 else 4) for since, hold in holds)
    assert {hold for _, hold in holds} == {2, 4}

    whole = run_search(_with_record(cfg), LocalExpander(2), 30_000, progress=False)
    path = tmp_path / "s.npz"
    run_search(_with_record(cfg), LocalExpander(2), 5_000, state_path=path, progress=False)
    for budget in (15_000, 30_000):  # stopped before the switch, then after it
        resumed = run_search(load_state(path), LocalExpander(1), budget, state_path=path, progress=False)
    assert resumed.history == whole.history
    assert all(np.array_equal(a, b) for a, b in zip(resumed.keys, whole.keys, strict=True))
    # a search that stalled, switched, then found a faster run resumes with the finer tries
    st = _with_record(cfg)
    t = st.best_time_s
    st.history, st.updates = [(100, t + 1, 0.0), (10_100, t + 1, 0.0), (10_200, t, 0.0)], 10_200
    assert make_planner(st, LocalExpander(1)).fine
    st.history = [(100, t + 1, 0.0), (10_099, t + 1, 0.0), (10_200, t, 0.0)]
    assert not make_planner(st, LocalExpander(1)).fine


def test_when_a_best_run_was_found_and_whether_it_stood() -> None:
    from agents.search.state import best_found_at, stalled_for

    inf = float("inf")
    history = [(100, inf, 1.0), (200, 40.0, 90.0), (300, 40.0, 90.0), (400, 39.5, 90.0), (900, 39.5, 90.0)]
    assert best_found_at(history) == (39.5, 400)
    assert best_found_at(history[:1]) == (inf, 0)
    assert stalled_for(history, 500) and not stalled_for(history, 501) and not stalled_for(history, 0)
    assert not stalled_for(history[:4], 150)  # 40 s stood 100 updates before 39.5 s was found
    assert stalled_for(history[:3], 100)


def test_best_per_parent_picks_by_score_within_the_limit() -> None:
    from agents.search.beam_moves import best_per_parent

    score = np.array([5.0, 9.0, 8.0, 7.0, 9.0, 1.0, 6.0])
    parent = np.array([0, 0, 0, 0, 1, 1, 2])
    idx = np.arange(7)
    assert best_per_parent(idx, score, parent, 4, 0).tolist() == [1, 4, 2, 3]  # ties: the first row first
    assert best_per_parent(idx, score, parent, 4, 2).tolist() == [1, 4, 2, 6]
    assert best_per_parent(idx, score, parent, 9, 1).tolist() == [1, 4, 6]
    assert best_per_parent(idx[4:], score, parent, 9, 1).tolist() == [4, 6]


def test_a_state_saved_before_per_parent_and_refine_beam_resumes_without_them(tmp_path: Path) -> None:
    path = tmp_path / "s.npz"
    _guided(6_000, cfg=replace(GUIDED, per_parent=2, refine_beam=16), state_path=path)
    with np.load(path) as z:
        arrays = dict(z)
    meta = json.loads(str(arrays["meta"]))
    del meta["config"]["per_parent"], meta["config"]["refine_beam"]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(path, **arrays)
    cfg = load_state(path).config
    assert cfg.per_parent == 0 and cfg.refine_beam == 0


@pytest.mark.parametrize("try_updates", [0, 2])
def test_guided_search_finishes_and_the_run_replays_exactly(try_updates: int) -> None:
    """From a game 6 m before the line (in the shipped record run), the guided search finishes;
    its keys from the start replay to the same finish time (with the guide's own decisions as
    tries, and with tries of two updates)."""
    from demos.format import load_demo

    record = sorted((MODELS.parent / "records").glob("guided_seed0_*.npz"))[0]
    events = load_demo(record).events
    keys = events[1:].astype(np.int8)  # after the click
    run = sim_env.replay(keys)
    near = int(np.argmax(run["state"][:, 0, 0] > 940.0))
    st = new_state(replace(GUIDED, beam=4, lookahead=8, try_updates=try_updates))
    st.keys = [keys[: near + 1]]
    run_search(st, LocalExpander(2), 150_000, progress=False)
    assert st.best_keys is not None
    out = sim_env.replay(st.best_keys)
    assert out["jump_landed"][-1] and out["score"][-1] >= sim_env.FINISH_M
    assert out["score_time"][-1] == st.best_time_s


def test_guided_search_cli_and_a_changed_guide(tmp_path: Path) -> None:
    model = tmp_path / "guide.zip"
    shutil.copy(PDDQN, model)
    shutil.copy(MODELS / "qwop_pddqn.qwop.json", tmp_path / "guide.qwop.json")
    state = tmp_path / "s.npz"
    args = ["search", "--guide", str(model), "--updates", "6000", "--threads", "1", "--lookahead", "3"]
    p = qwop(*args, "--state", str(state), "--out", str(tmp_path / "best.npz"))
    assert p.returncode == 0, p.stderr[-2000:]
    st = load_state(state)
    assert st.config.guide == str(model.resolve()) and st.config.beam == 8 and st.config.lookahead == 3
    model.write_bytes(model.read_bytes()[:-10] + b"0123456789")
    one_line_error(qwop("search", "--resume", str(state), "--updates", "9000"), "has changed")
    one_line_error(qwop("search", "--guide", str(tmp_path / "none.zip"), "--updates", "10"), "model not found")
    one_line_error(qwop("search", "--guide", "--lookahead", "0", "--updates", "10"), "--lookahead")


def test_search_cli_takes_planner_settings(tmp_path: Path) -> None:
    """--set: the guided defaults (two tries per game, a wider beam after a finish) can be
    turned off, as the records found before them were searched; bad settings are one line."""
    from agents.search.state import GUIDED_PER_PARENT, GUIDED_REFINE_BEAM

    base = ["search", "--guide", "--updates", "3000", "--threads", "1", "--lookahead", "3"]
    p = qwop(*base, "--state", str(tmp_path / "a.npz"), "--out", str(tmp_path / "a_best.npz"))
    assert p.returncode == 0, p.stderr[-2000:]
    cfg = load_state(tmp_path / "a.npz").config
    assert (cfg.beam, cfg.per_parent, cfg.refine_beam) == (8, GUIDED_PER_PARENT, GUIDED_REFINE_BEAM)
    off = ["--set", "per_parent=0", "refine_beam=0"]
    p = qwop(*base, *off, "--state", str(tmp_path / "b.npz"), "--out", str(tmp_path / "b_best.npz"))
    assert p.returncode == 0, p.stderr[-2000:]
    cfg = load_state(tmp_path / "b.npz").config
    assert (cfg.beam, cfg.per_parent, cfg.refine_beam) == (8, 0, 0)
    p = qwop(*base, "--beam", "4", "--state", str(tmp_path / "c.npz"), "--out", str(tmp_path / "c_best.npz"))
    assert p.returncode == 0, p.stderr[-2000:]
    cfg = load_state(tmp_path / "c.npz").config  # a beam given: that beam throughout
    assert (cfg.beam, cfg.per_parent, cfg.refine_beam) == (4, GUIDED_PER_PARENT, 0)
    one_line_error(qwop(*base, "--set", "per_parent=-1"), "at least 0")
    one_line_error(qwop(*base, "--set", "beams=3"), "NAME=VALUE")
    one_line_error(qwop("search", "--resume", str(tmp_path / "b.npz"), "--updates", "9000", *off), "--set")


@pytest.mark.slow
@NEEDS_RAY
def test_guided_search_on_a_local_ray_cluster_equals_the_embedded_engine() -> None:
    assert_ray_equals_local(GUIDED, 20_000)


def test_tune_guide_trains_the_guide_on_the_search_s_choices(tmp_path: Path) -> None:
    """qwop tune-guide: each round trains the guide on the search's choices (its loss falls),
    the models are written with their provenance, the rounds are deterministic, and an
    existing folder is never written over."""
    import re

    out = tmp_path / "guide"
    args = [
        "tune-guide",
        str(PDDQN),
        "--rounds",
        "2",
        "--updates",
        "150000",
        "--epochs",
        "3",
        "--learning-rate",
        "1e-3",
    ]
    p = qwop(*args, "--out", str(out))
    assert p.returncode == 0, p.stderr[-2000:]
    losses = [(float(a), float(b)) for a, b in re.findall(r"loss ([0-9.]+) -> ([0-9.]+)", p.stdout)]
    assert len(losses) == 2 and all(b < a for a, b in losses), p.stdout
    side = json.loads((out / "round2.qwop.json").read_text())
    assert [r["round"] for r in side["tuned_on_search"]] == [1, 2]
    assert side["tuned_on_search"][1]["guide"] == "round1.zip"
    assert side["env"] == json.loads((MODELS / "qwop_pddqn.qwop.json").read_text())["env"]
    first, tuned = guide_from_model(str(PDDQN)), guide_from_model(str(out / "round2.zip"))
    assert not np.array_equal(first.layers[0][0], tuned.layers[0][0])
    again = tmp_path / "again"
    assert qwop("tune-guide", str(PDDQN), "--rounds", "1", *args[4:], "--out", str(again)).returncode == 0
    a, b = guide_from_model(str(out / "round1.zip")), guide_from_model(str(again / "round1.zip"))
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a.layers, b.layers, strict=True))
    one_line_error(qwop(*args, "--out", str(out)), "exists")
    # --set: the rounds' search with other settings, kept in the provenance
    other = tmp_path / "one-per-game"
    p = qwop("tune-guide", str(PDDQN), "--rounds", "1", *args[4:], "--set", "per_parent=1", "--out", str(other))
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads((other / "round1.qwop.json").read_text())["tuned_on_search"][-1]["settings"] == ["per_parent=1"]
    assert not np.array_equal(a.layers[0][0], guide_from_model(str(other / "round1.zip")).layers[0][0])
    one_line_error(qwop(*args, "--set", "beams=3", "--out", str(tmp_path / "bad")), "NAME=VALUE")
    one_line_error(qwop(*args, "--set", "seed=3", "--out", str(tmp_path / "bad")), "--seed")
    assert not (tmp_path / "bad").exists()


def test_lines_grow_side_by_side_deterministically_and_resume(tmp_path: Path) -> None:
    """lines=3: three lines of search in one batch per stage, each with its own beam and
    restarts (lines restarted at different times differ in length), sharing the best run;
    the same search on 1 or 2 threads and after a resume; one line is the search without
    lines."""
    cfg = replace(GUIDED, lines=3)
    a = _guided(60_000, cfg=cfg)
    b = _guided(60_000, threads=1, cfg=cfg)
    assert a.history == b.history and all(np.array_equal(x, y) for x, y in zip(a.keys, b.keys, strict=True))
    assert sorted(set(a.line)) == [0, 1, 2] and a.restarts > 0
    for line in range(3):  # each line is time-synchronous
        assert len({len(k) for k, i in zip(a.keys, a.line, strict=True) if i == line}) == 1
    path = tmp_path / "lines.npz"
    _guided(25_000, cfg=cfg, state_path=path)
    resumed = run_search(load_state(path), LocalExpander(2), 60_000, state_path=path, progress=False)
    assert resumed.history == a.history and resumed.line == a.line
    assert all(np.array_equal(x, y) for x, y in zip(resumed.keys, a.keys, strict=True))


@pytest.mark.slow
@NEEDS_RAY
def test_lines_on_a_local_ray_cluster_equal_the_embedded_engine() -> None:
    assert_ray_equals_local(replace(GUIDED, lines=4), 30_000)


def test_the_shipped_guide_is_the_model_tuned_on_the_search() -> None:
    """agents/models/qwop_guide.zip, the default guide of qwop search --guide: the record
    recipe's model after two rounds of qwop tune-guide, with that provenance, and a network of
    the same shape as the model it came from."""
    from agents.shipped import GUIDE, RECIPE_MODEL

    side = json.loads(GUIDE.with_name("qwop_guide.qwop.json").read_text())
    assert [(r["round"], r["guide"]) for r in side["tuned_on_search"]] == [(1, RECIPE_MODEL.name), (2, "round1.zip")]
    guide, base = guide_from_model(str(GUIDE)), guide_from_model(str(RECIPE_MODEL))
    assert [w.shape for w, _, _ in guide.layers] == [w.shape for w, _, _ in base.layers]
    assert not np.array_equal(guide.layers[0][0], base.layers[0][0])
