"""The planner (``qwop search``): deterministic for a seed, budget and worker count, resumable
without losing work, its best run replays exactly, and bad input is one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sim_env
from agents.search.planner import BeamSearch, LocalExpander
from agents.search.run import run_search
from agents.search.state import PlannerConfig, SearchState, load_state, new_state
from sim_env.gaits import SHUFFLE, gait_keys
from tests.clitools import one_line_error, qwop
from tests.support import NEEDS_RAY, REPO, assert_ray_equals_local

SMALL = PlannerConfig(beam=24, children=6, horizon=12, seed=5)


def _search(budget: int, threads: int = 2, state_path: Path | None = None, cfg: PlannerConfig = SMALL) -> SearchState:
    return run_search(new_state(cfg), LocalExpander(threads), budget, state_path=state_path, progress=False)


def test_same_seed_budget_and_workers_give_the_same_search() -> None:
    a, b = _search(30_000), _search(30_000)
    assert a.updates == b.updates and a.farthest_m == b.farthest_m and a.history == b.history
    assert all(np.array_equal(x, y) for x, y in zip(a.keys, b.keys, strict=True))
    # The engine is deterministic, so even another thread count finds the same.
    c = _search(30_000, threads=1)
    assert c.history == a.history
    assert _search(30_000, cfg=PlannerConfig(beam=24, children=6, horizon=12, seed=6)).history != a.history


def test_beam_games_are_their_keys() -> None:
    """Every kept game is exactly its key sequence replayed from the start."""
    st = _search(20_000)
    p = BeamSearch(st, LocalExpander(1))
    for i in (0, len(p.games) - 1):
        sim = sim_env.QwopSim()
        sim.advance(st.keys[i])
        snap = sim_env.QwopSim()
        snap.restore(p.games.snapshot(i))
        assert np.array_equal(sim.body_state(), snap.body_state()) and sim.score_time == snap.score_time


def test_resume_continues_without_losing_work(tmp_path: Path) -> None:
    path = tmp_path / "state.npz"
    _search(15_000, state_path=path)
    first = load_state(path)
    assert first.updates >= 15_000
    resumed = run_search(first, LocalExpander(2), 40_000, state_path=path, progress=False)
    whole = _search(40_000)
    assert resumed.history == whole.history and resumed.updates == whole.updates
    assert all(np.array_equal(x, y) for x, y in zip(resumed.keys, whole.keys, strict=True))


def test_a_finish_is_found_and_replays_exactly() -> None:
    """From a game a few metres before the line, the planner finishes; its keys from the
    start replay in the simulator to the same finish time."""
    prefix = gait_keys(SHUFFLE, 5000)
    run = sim_env.replay(prefix)
    near = int(np.argmax(run["state"][:, 0, 0] > 970.0))  # 97 m
    assert run["state"][near, 0, 0] > 970.0
    prefix = prefix[: near + 1]
    st = SearchState(config=PlannerConfig(beam=16, children=8, horizon=20, seed=1, time_limit=200.0))
    st.keys = [prefix]  # the search starts from the game these keys lead to
    run_search(st, LocalExpander(2), 60_000, progress=False)
    assert st.best_keys is not None and st.best_time_s < 200
    out = sim_env.replay(st.best_keys)
    assert out["game_ended"][-1] and out["jump_landed"][-1] and out["score_time"][-1] == st.best_time_s


def test_search_cli_writes_the_best_run_and_resumes(tmp_path: Path) -> None:
    state = tmp_path / "s.npz"
    args = ["search", "--updates", "8000", "--beam", "8", "--children", "4", "--horizon", "10", "--threads", "1"]
    p = qwop(*args, "--state", str(state), "--out", str(tmp_path / "best.npz"))
    assert p.returncode == 0, p.stderr[-2000:]
    assert state.is_file() and "state saved in" in p.stdout
    # An existing state is never overwritten by a new search.
    one_line_error(qwop(*args, "--state", str(state)), "exists", "--resume")
    p = qwop("search", "--resume", str(state), "--updates", "12000")
    assert p.returncode == 0, p.stderr[-2000:]
    assert load_state(state).updates >= 12000


def test_search_bad_input_is_one_line(tmp_path: Path) -> None:
    one_line_error(qwop("search", "--updates", "0"), "--updates")
    one_line_error(qwop("search", "--minutes", "-1"), "--minutes")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a state")
    one_line_error(qwop("search", "--resume", str(bad), "--updates", "10"), "cannot resume")
    one_line_error(qwop("search", "--resume", str(tmp_path / "none.npz"), "--updates", "10"), "not found")
    one_line_error(qwop("search", "--state", str(tmp_path / "x.npz")), "budget")


@NEEDS_RAY
def test_ray_address_that_does_not_answer(tmp_path: Path) -> None:
    p = qwop("search", "--updates", "100", "--ray", "127.0.0.1:9", "--state", str(tmp_path / "r.npz"))
    one_line_error(p, "does not answer")


@pytest.mark.slow
@NEEDS_RAY
def test_search_on_a_local_ray_cluster_equals_the_embedded_engine() -> None:
    assert_ray_equals_local(SMALL, 20_000)


RECORDS = sorted((REPO / "agents" / "records").glob("*.npz"))


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_shipped_record_replays_to_its_finish_time(path: Path) -> None:
    from demos.format import load_demo

    demo = load_demo(path)
    for key in ("finish_time_s", "farthest_m", "command", "seed", "updates", "cpu_seconds"):
        assert key in demo.meta, key
    out = sim_env.replay_session(demo.events)
    assert out["jump_landed"][-1] and out["score"][-1] >= sim_env.FINISH_M
    assert out["score_time"][-1] == demo.meta["finish_time_s"]
    assert (path.with_suffix(".gif")).is_file()


def test_search_from_a_given_run_refines_it(tmp_path, capsys):
    from agents.cli import main

    record = REPO / "agents" / "records" / "beam_seed0_57.47s.npz"
    state = tmp_path / "s.npz"
    out = tmp_path / "best.npz"
    args = ["search", "--from-run", str(record), "--updates", "300000", "--state", str(state), "--out", str(out)]
    assert main([*args, "--threads", "2", "--beam", "16", "--children", "8"]) == 0
    printed = capsys.readouterr().out
    assert "starting from" in printed and "finishes in 57.47 s" in printed
    from agents.search.state import load_state

    st = load_state(state)
    assert st.best_keys is not None and st.best_time_s <= 57.47 + 1e-9  # never worse than the run it was given
    # a run that does not finish is refused in one line
    unfinished = tmp_path / "short.npz"
    from demos.simulate import save_keys_as_demo

    save_keys_as_demo(np.zeros(30, dtype=np.int8), unfinished, {})
    assert main(["search", "--from-run", str(unfinished), "--updates", "1000", "--state", str(tmp_path / "t.npz")]) == 2
    assert "does not finish 100 m" in capsys.readouterr().err


def test_the_benchmark_reads_a_saved_search_with_its_cpu_over_wall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.bench.search import main as bench

    state = tmp_path / "s.npz"
    st = _search(40_000, threads=2, state_path=state)
    assert bench(["--from-state", str(state), "--minutes", str(st.cpu_seconds / 60 / 2)]) == 0
    out = capsys.readouterr().out
    row = out.strip().splitlines()[-1].split("|")
    assert "CPU / wall" in out and float(row[3]) > 0  # how many cores the search kept busy


def test_planner_settings_by_name() -> None:
    from agents.search.state import with_settings

    cfg = with_settings(PlannerConfig(), ["lookahead=25", "refine=0.5", "action_set=full"])
    assert (cfg.lookahead, cfg.refine, cfg.action_set) == (25, 0.5, "full")
    for bad, says in (
        ("beem=3", "NAME=VALUE"),
        ("beam=x", "takes a whole number"),
        ("beam=0", "at least 1"),
        ("seed=3", "set by --seed"),  # not overridden silently: --seed is the one way
        ("guide=m.zip", "set by --guide"),
    ):
        with pytest.raises(ValueError, match=says):
            with_settings(PlannerConfig(), [bad])


def test_a_state_saved_before_lines_still_loads(tmp_path: Path) -> None:
    """States written before lines kept the beam's keys as one (games, updates) array: they
    load as one line and the search goes on from them as from the new layout."""
    path = tmp_path / "s.npz"
    _search(20_000, threads=1, state_path=path)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k not in ("beam_keys_flat", "beam_key_lengths", "beam_line")}
        arrays["beam_keys"] = np.stack(np.split(z["beam_keys_flat"], np.cumsum(z["beam_key_lengths"])[:-1]))
    old = tmp_path / "old.npz"
    np.savez_compressed(old, **arrays)
    a, b = load_state(path), load_state(old)
    assert all(np.array_equal(x, y) for x, y in zip(a.keys, b.keys, strict=True)) and b.line == []
    a = run_search(a, LocalExpander(1), 40_000, progress=False)
    b = run_search(b, LocalExpander(1), 40_000, progress=False)
    assert a.history == b.history and b.line == [0] * len(b.keys)
