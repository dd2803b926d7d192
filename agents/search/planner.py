"""``qwop search``: a planner over the exact simulator that looks for the fastest 100 m.

Two ways to grow the beam. Guided (``--guide MODEL``, ``PlannerConfig.guide``): every stage
is one decision of a trained policy; each kept game is tried with every action, each try is
followed by the policy's greedy rollout of ``lookahead`` decisions, and the next beam keeps
the tries whose rollouts got farthest (a finished rollout first, by its time; a fall last):
a one-step policy improvement inside a beam (``agents/search/guided_rollouts.py``). It turns the
shipped agent's 56.9 s gait into a run under the 47.34 s record in about a minute. When
its lines die or fall behind the best run, new lines start after a few random-key updates
or from the best run at a random update. Unguided (the default):
a time-synchronous beam search with diversity. Every stage, each kept game is copied
``children`` times and each copy runs ``horizon`` updates of random held key masks (segments
of ``min_hold``..``max_hold`` updates); falls are dropped, finishes are recorded, and the next
beam keeps the copies that score best (distance, plus shares of the torso's speed and the
head's height), at most ``per_cell`` per cell of (distance, torso angle, thigh spread), so
that different gaits survive. Because every game in a stage has run the same number of
updates, "farthest" means "fastest so far". Once a run has finished, games more than
``pace_margin_m`` behind its pace are dropped, and when a line of search dies most new lines
start from the best run at a random update, looking for a faster way on from there. The
games live in C++ (``sim_env.GameSet``), expanded on every core, or on a Ray cluster.

The search is deterministic for a seed and a budget in updates, whatever the worker count;
its state (the beam as key sequences, the RNG, the best run) is saved every few seconds
(``SAVE_EVERY_S``, after a stage) and when the search stops, and
a stopped search resumes from it without losing work. The best run is saved in the demo
format (``qwop replay FILE --browser`` replays it in the original).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

import sim_env
from agents.interrupts import StopRequest
from agents.search.guided_rollouts import (
    FINISHED,
    GuidePolicy,
    finished_100m,
    game_after,
    guide_from_model,
    policy_rollouts,
    rollout_rank,
)
from sim_env.actions import action_masks
from sim_env.errors import UserInputError
from sim_env.spec import UNITS_PER_METRE

STATE_VERSION = 1
# Seconds between saves of a running search's state. A guided stage takes milliseconds and a
# saved state grows with the history, so saving after every stage cost more than searching;
# a search that is stopped (Ctrl-C, a budget) saves at once, a killed one loses at most this.
SAVE_EVERY_S = 5.0
# Games kept per decision in a guided search. Measured on its first line with the previous
# shipped model as guide: one game (the plain rollout policy) finishes in 47.63 s with a
# lookahead of 15 decisions and 47.23 s with 30 (twice the work); 8 games with 15: 47.27 s
# first, 43.43 s after 17 M updates of restarts. With the current shipped model as guide,
# best after 10 M updates (seed 0): 4 games 43.33 s, 8 games 41.83 s, 16 games 43.17 s.
GUIDED_BEAM = 8


def _part(name: str) -> int:
    return sim_env.PART_NAMES.index(name)


TORSO = _part("torso")
HEAD = _part("head")
LEFT_THIGH = _part("leftThigh")
RIGHT_THIGH = _part("rightThigh")


@dataclass(frozen=True)
class PlannerConfig:
    beam: int = 256  # games kept per stage
    children: int = 32  # copies expanded per kept game
    horizon: int = 24  # updates per stage
    # Chosen by measurement (distance after 24.8 s, beam 128, two seeds): holds of 2-12 updates
    # reached 27 m, 4-24 32 m, 6-30 34 m, 8-40 32 m; a head-height term 27 -> 29.5 m; speed
    # weight 1.5 a little better than 0.5 or 3; repeating the parent's last stride or holding
    # its last keys on did not help. For the same work per stage, fewer kept games with more
    # copies each go faster (mean pace over 30 s: 512 x 16 about 1.37 m/s, 256 x 32 1.48,
    # and with 8 per cell 1.58; horizons of 16 or 36 updates did worse than 24).
    min_hold: int = 6  # updates a key mask is held, at least
    max_hold: int = 30  # and at most
    action_set: str = "distinct"  # which key masks segments use (sim_env.actions)
    speed_weight: float = 1.5  # score = distance (m) + speed_weight * torso speed (m/s)
    height_weight: float = 1.0  # plus this x the head's height above the track (m): an upright runner
    per_cell: int = 8  # kept games per diversity cell
    cell_m: float = 0.5  # cell size along the track (m)
    time_limit: float = 100.0  # game seconds before a line of search is given up
    refine: float = 0.75  # after a finish, share of restarts that resume the best run from a random point
    pace_margin_m: float = 3.0  # once a run finished, drop games this far behind it at the same update
    seed: int = 0
    sincos: str = "fma"
    guide: str = ""  # a trained model (.zip): the guided search (module docstring); "" = unguided
    guide_sha256: str = ""  # the model file's hash, checked when a guided search resumes
    lookahead: int = 15  # guided: decisions of the policy's rollout after each tried action
    # guided: random-key updates (0..N) before a new line from the start, so lines differ; the
    # first line has none (the same range as qwop eval's start noise)
    start_noise: int = 15

    def check(self) -> None:
        for name in ("beam", "children", "horizon", "min_hold", "per_cell", "lookahead"):
            if getattr(self, name) < 1:
                raise UserInputError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_hold < self.min_hold:
            raise UserInputError(f"max_hold ({self.max_hold}) must be at least min_hold ({self.min_hold})")
        if not self.time_limit > 0 or not self.cell_m > 0:
            raise UserInputError("time_limit and cell_m must be positive")
        if self.start_noise < 0:
            raise UserInputError(f"start_noise must be at least 0, got {self.start_noise}")
        action_masks(self.action_set)


class Expander(Protocol):
    """Runs the children of a stage: where ``sim_env.GameSet.expand`` and the guided
    search's rollouts (``agents.search.guided_rollouts.policy_rollouts``) run."""

    def expand(self, games: sim_env.GameSet, parent: np.ndarray, keys: np.ndarray) -> dict[str, Any]: ...

    def rollouts(
        self, games: sim_env.GameSet, parent: np.ndarray, keys: np.ndarray, policy: GuidePolicy, lookahead: int
    ) -> dict[str, Any]: ...

    def close(self) -> None: ...


class LocalExpander:
    """The embedded engine on local threads."""

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads or os.cpu_count() or 1

    def expand(self, games: sim_env.GameSet, parent: np.ndarray, keys: np.ndarray) -> dict[str, Any]:
        return games.expand(parent, keys, threads=self.threads)

    def rollouts(
        self, games: sim_env.GameSet, parent: np.ndarray, keys: np.ndarray, policy: GuidePolicy, lookahead: int
    ) -> dict[str, Any]:
        return policy_rollouts(games, parent, keys, policy, lookahead, threads=self.threads)

    def close(self) -> None:
        pass


@dataclass
class SearchState:
    """Everything a search needs to go on: saved every ``SAVE_EVERY_S`` and when a search stops."""

    config: PlannerConfig
    stage: int = 0
    keys: list[np.ndarray] = field(default_factory=list)  # each beam game's key masks so far
    rng: dict[str, Any] = field(default_factory=dict)
    best_keys: np.ndarray | None = None
    best_x: np.ndarray | None = None  # the best run's torso x (m) after each update
    best_time_s: float = float("inf")
    farthest_m: float = 0.0
    updates: int = 0
    cpu_seconds: float = 0.0
    restarts: int = 0
    history: list[tuple[int, float, float]] = field(default_factory=list)  # (updates, best time, farthest m)
    wall: list[float] = field(default_factory=list)  # wall-clock seconds of search at the end of each stage
    cpu: list[float] = field(default_factory=list)  # CPU-seconds of search (all threads) at the end of each stage
    stopped_by: str = ""  # the signal that ended the search after a whole stage (not saved)


def _segments(rng: np.random.Generator, masks: np.ndarray, n: int, horizon: int, lo: int, hi: int) -> np.ndarray:
    """``n`` rows of ``horizon`` key masks made of held segments."""
    longest = (horizon + lo - 1) // lo + 1
    durations = rng.integers(lo, hi + 1, (n, longest))
    choices = masks[rng.integers(0, len(masks), (n, longest))]
    ends = np.cumsum(durations, axis=1)
    t = np.arange(horizon)
    seg = (t[None, :, None] >= ends[:, None, :]).sum(axis=2)
    return np.take_along_axis(choices, seg, axis=1).astype(np.int8)


def _cells(state: np.ndarray, cell_m: float) -> np.ndarray:
    x = state[:, TORSO, 0] / UNITS_PER_METRE
    angle = np.round(state[:, TORSO, 2] / 0.35)
    spread = np.round((state[:, LEFT_THIGH, 2] - state[:, RIGHT_THIGH, 2]) / 0.5)
    return np.stack([np.floor(x / cell_m), angle, spread], axis=1).astype(np.int64)


def _select(score: np.ndarray, cells: np.ndarray, k: int, per_cell: int) -> np.ndarray:
    """Up to ``k`` indices by score, at most ``per_cell`` per cell (then the rest by score)."""
    order = np.argsort(-score, kind="stable")
    _, cell_id = np.unique(cells[order], axis=0, return_inverse=True)
    cell_id = cell_id.ravel()
    rank = np.zeros(len(order), dtype=np.int64)
    seen: dict[int, int] = {}
    for i, c in enumerate(cell_id):
        rank[i] = seen.get(int(c), 0)
        seen[int(c)] = rank[i] + 1
    first = order[rank < per_cell]
    if len(first) >= k:
        return first[:k]
    rest = order[rank >= per_cell]
    return np.concatenate([first, rest[: k - len(first)]])


class Planner:
    def __init__(self, state: SearchState, expander: Expander) -> None:
        self.state = state
        self.cfg = state.config
        self.expander = expander
        self.masks = action_masks(self.cfg.action_set).astype(np.int8)
        self.policy: GuidePolicy | None = None
        if self.cfg.guide:
            self.policy = load_guide(self.cfg)
            self.masks = self.policy.masks
        self.rng = np.random.default_rng(self.cfg.seed)
        if state.rng:
            self.rng.bit_generator.state = state.rng
        if state.keys:
            self.games = self._replayed(state.keys)
        else:
            self._restart()

    def _replayed(self, keys: list[np.ndarray]) -> sim_env.GameSet:
        """The beam's games rebuilt from their key sequences (all of one length: the beam
        is time-synchronous), so a saved search does not depend on the snapshot format."""
        rows = np.stack(keys) if len(keys[0]) else np.zeros((len(keys), 0), dtype=np.int8)
        start = sim_env.GameSet(self.cfg.sincos)
        if rows.shape[1] == 0:
            return start.select(np.zeros(len(keys), dtype=np.int32))
        threads = getattr(self.expander, "threads", 1)
        return start.expand(np.zeros(len(keys), dtype=np.int32), rows, threads=threads, keep=True)["games"]

    def _restart(self) -> None:
        """A new line of search: from the start, or (refining) from the best run's game at a
        random update, to look for a faster way on from there."""
        st = self.state
        prefix = np.zeros(0, dtype=np.int8)
        if st.best_keys is not None and self.rng.random() < self.cfg.refine:
            prefix = st.best_keys[: int(self.rng.integers(0, max(1, len(st.best_keys) - self.cfg.horizon)))]
        elif self.policy is not None:
            # a guided line is deterministic from its start: a new one starts after random keys
            n = int(self.rng.integers(0, self.cfg.start_noise + 1))
            prefix = np.asarray(action_masks("full")[self.rng.integers(0, 16, n)], dtype=np.int8)
        self.games = game_after(prefix, self.cfg.sincos)
        st.keys = [prefix]
        st.stage = 0

    def _new_best(self, keys: np.ndarray, time_s: float) -> None:
        st = self.state
        st.best_time_s, st.best_keys = time_s, keys
        st.best_x = sim_env.replay(keys, sincos=self.cfg.sincos)["state"][:, TORSO, 0] / UNITS_PER_METRE

    def step(self) -> None:
        """One stage: expand, record finishes, keep the next beam."""
        if self.policy is not None:
            return self._guided_step(self.policy)
        cfg, st = self.cfg, self.state
        t0, w0 = time.process_time(), time.monotonic()
        n_parents = len(self.games)
        parent = np.repeat(np.arange(n_parents, dtype=np.int32), cfg.children)
        keys = _segments(self.rng, self.masks, len(parent), cfg.horizon, cfg.min_hold, cfg.max_hold)
        out = self.expander.expand(self.games, parent, keys)
        st.updates += int(out["updates"].sum())
        # The game's own end: the final jump landed, and the score it shows is 100 m.
        finished = finished_100m(out)
        alive = ~out["ended"]
        x = out["state"][:, TORSO, 0] / UNITS_PER_METRE
        st.farthest_m = max(st.farthest_m, float(x.max()))
        for c in np.flatnonzero(finished):
            t = float(out["score_time"][c])
            if t < st.best_time_s:
                self._new_best(np.concatenate([st.keys[parent[c]], keys[c, : out["updates"][c]]]), t)
        keep_mask = alive & ~self._too_slow(out, x)
        if not keep_mask.any():
            st.restarts += 1
            self._restart()
        else:
            idx = np.flatnonzero(keep_mask)
            vx = out["state"][idx, TORSO, 3] / UNITS_PER_METRE
            head_height = (sim_env.TRACK_TOP_Y - out["state"][idx, HEAD, 1]) / UNITS_PER_METRE
            score = x[idx] + cfg.speed_weight * vx + cfg.height_weight * head_height
            chosen = idx[_select(score, _cells(out["state"][idx], cfg.cell_m), cfg.beam, cfg.per_cell)]
            self._next_beam(parent[chosen], keys[chosen])
        self._end_stage(t0, w0)

    def _guided_step(self, policy: GuidePolicy) -> None:
        """One decision: every kept game tries every action, each try is judged by the
        policy's greedy rollout after it, and the best tries make the next beam."""
        cfg, st = self.cfg, self.state
        t0, w0 = time.process_time(), time.monotonic()
        n_actions = len(self.masks)
        parent = np.repeat(np.arange(len(self.games), dtype=np.int32), n_actions)
        keys = np.repeat(np.tile(self.masks, len(self.games))[:, None], policy.frame_skip, axis=1)
        out = self.expander.rollouts(self.games, parent, keys, policy, cfg.lookahead)
        st.updates += int(out["total_updates"])
        end, rx = out["rollout_end"], out["rollout_x"]
        st.farthest_m = max(st.farthest_m, float(rx.max()))
        for c in np.flatnonzero(end == FINISHED):
            t = float(out["rollout_time"][c])
            if t < st.best_time_s:
                first = keys[c, : out["updates"][c]]
                rest = out["rollout_keys"][c, : out["rollout_len"][c]]
                self._new_best(np.concatenate([st.keys[parent[c]], first, rest]), t)
        score = rollout_rank(out)
        x = out["state"][:, TORSO, 0] / UNITS_PER_METRE
        keep_mask = ~out["ended"] & ~self._too_slow(out, x)
        if not keep_mask.any():
            st.restarts += 1
            self._restart()
        else:
            idx = np.flatnonzero(keep_mask)
            chosen = idx[np.argsort(-score[idx], kind="stable")[: cfg.beam]]
            self._next_beam(parent[chosen], keys[chosen])
        self._end_stage(t0, w0)

    def _too_slow(self, out: dict[str, Any], x: np.ndarray) -> np.ndarray:
        """Children that cannot beat the best run any more: past its time (or the time
        limit), or more than ``pace_margin_m`` behind where it was at the same update."""
        st = self.state
        too_slow = out["score_time"] >= min(self.cfg.time_limit, st.best_time_s)
        if st.best_x is not None:
            at = np.minimum(len(st.keys[0]) + out["updates"], len(st.best_x)) - 1
            too_slow |= x < st.best_x[at] - self.cfg.pace_margin_m
        return too_slow

    def _next_beam(self, parent: np.ndarray, keys: np.ndarray) -> None:
        """The chosen children become the beam: run again, kept this time (re-running them
        costs a small share of the stage), with their key sequences."""
        st = self.state
        threads = getattr(self.expander, "threads", 1)
        self.games = self.games.expand(parent, keys, threads=threads, keep=True)["games"]
        st.keys = [np.concatenate([st.keys[p], k]) for p, k in zip(parent, keys, strict=True)]
        st.stage += 1

    def _end_stage(self, t0: float, w0: float) -> None:
        st = self.state
        st.cpu_seconds += time.process_time() - t0
        st.history.append((st.updates, st.best_time_s, st.farthest_m))
        st.wall.append((st.wall[-1] if st.wall else 0.0) + time.monotonic() - w0)
        st.cpu.append(st.cpu_seconds)

    def save(self, path: Path) -> None:
        """Write the state atomically (numpy arrays and JSON in one .npz; the beam as keys)."""
        st = self.state
        st.rng = self.rng.bit_generator.state
        meta = {
            "version": STATE_VERSION,
            "config": asdict(st.config),
            "rng": st.rng,
            "stage": st.stage,
            "best_time_s": st.best_time_s if st.best_keys is not None else None,
            "farthest_m": st.farthest_m,
            "updates": st.updates,
            "cpu_seconds": st.cpu_seconds,
            "restarts": st.restarts,
        }
        arrays = {
            "meta": np.array(json.dumps(meta)),
            "beam_keys": np.stack(st.keys) if st.keys else np.zeros((0, 0), dtype=np.int8),
            "history": np.array(st.history, dtype=np.float64).reshape(-1, 3),
            "wall": np.array(st.wall, dtype=np.float64),
            "cpu": np.array(st.cpu, dtype=np.float64),
        }
        if st.best_keys is not None:
            arrays["best_keys"] = st.best_keys
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        os.replace(tmp, path)


def load_state(path: str | Path) -> SearchState:
    """A saved search (see ``Planner.save``); one-line errors for a missing or unreadable file."""
    p = Path(path)
    try:
        with np.load(p, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if meta.get("version") != STATE_VERSION:
                raise ValueError(f"state version {meta.get('version')}, this planner reads {STATE_VERSION}")
            st = SearchState(config=PlannerConfig(**meta["config"]))
            st.config.check()  # a state edited by hand (horizon 0 would never end a stage)
            st.keys = [row.astype(np.int8) for row in z["beam_keys"]]
            st.history = [(int(u), float(b), float(f)) for u, b, f in z["history"]]
            st.wall = [float(w) for w in z["wall"]]
            st.cpu = [float(c) for c in z["cpu"]] if "cpu" in z else []  # states saved before it was kept
            if "best_keys" in z:
                st.best_keys = z["best_keys"].astype(np.int8)
    except FileNotFoundError:
        raise UserInputError(f"resume file not found: {p}") from None
    except Exception as exc:
        raise UserInputError(f"cannot resume from {p}: {exc}; start a new search without --resume") from None
    st.rng, st.stage, st.farthest_m = meta["rng"], meta["stage"], meta["farthest_m"]
    st.updates, st.cpu_seconds, st.restarts = meta["updates"], meta["cpu_seconds"], meta["restarts"]
    if st.best_keys is not None:
        out = sim_env.replay(st.best_keys, sincos=st.config.sincos)
        # The saved best run must be what the file says it is: a finish in best_time_s.
        finished = bool(sim_env.finished_100m(out["game_ended"][-1], out["jump_landed"][-1], out["score"][-1]))
        if not finished or float(out["score_time"][-1]) != float(meta["best_time_s"]):
            raise UserInputError(
                f"cannot resume from {p}: its best run does not replay to a finish in {meta['best_time_s']} s; "
                "start a new search without --resume"
            )
        st.best_time_s = meta["best_time_s"]
        st.best_x = out["state"][:, TORSO, 0] / UNITS_PER_METRE
    return st


def describe(state: SearchState) -> dict[str, Any]:
    return {
        "best_time_s": None if state.best_keys is None else state.best_time_s,
        "farthest_m": state.farthest_m,
        "updates": state.updates,
        "cpu_seconds": state.cpu_seconds,
        "stages": len(state.history),
        "restarts": state.restarts,
        "config": asdict(state.config),
    }


__all__ = ["LocalExpander", "Planner", "PlannerConfig", "SearchState", "describe", "load_state", "seed_best_run"]


def new_state(config: PlannerConfig) -> SearchState:
    config.check()
    if config.guide:
        from dataclasses import replace

        from agents.training.model_files import check_model_file

        path = check_model_file(config.guide).resolve()
        config = replace(config, guide=str(path), guide_sha256=_sha256(path))
        load_guide(config)  # a model the guide cannot read fails here, in one line
    return SearchState(config=config)


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_guide(config: PlannerConfig) -> GuidePolicy:
    """The guide of a guided search; the model file must be the one the search started with."""
    from agents.training.model_files import check_model_file

    path = check_model_file(config.guide)
    if config.guide_sha256 and _sha256(path) != config.guide_sha256:
        raise UserInputError(
            f"{path} has changed since this search started (its guide); restore that model or start a new search"
        )
    return guide_from_model(str(path))


def seed_best_run(state: SearchState, keys: np.ndarray) -> float:
    """Start a new search with a known run (for example a trained agent's, or another
    search's) as its best: pace pruning and refinement restarts work from it at once.
    Returns its finish time; a run that does not finish 100 m is refused."""
    run = sim_env.replay(np.asarray(keys, dtype=np.int8), sincos=state.config.sincos)
    done = sim_env.finished_100m(run["game_ended"].astype(bool), run["jump_landed"].astype(bool), run["score"])
    if not done.any():
        raise UserInputError("the given run does not finish 100 m in the simulator; give a finished run")
    end = int(np.argmax(done)) + 1
    state.best_keys = np.asarray(keys[:end], dtype=np.int8)
    state.best_time_s = float(run["score_time"][end - 1])
    state.best_x = run["state"][:end, TORSO, 0] / UNITS_PER_METRE
    return state.best_time_s


def run_search(
    state: SearchState,
    expander: Expander,
    budget_updates: int | None,
    minutes: float = 0.0,
    state_path: Path | None = None,
    progress: bool = True,
) -> SearchState:
    """Search until ``budget_updates`` game updates have been simulated in all (a resumed
    search counts what it already did) and/or ``minutes`` of wall time (if > 0) have passed;
    saves its state every ``SAVE_EVERY_S`` (after the stage then running) and when it stops."""
    if budget_updates is None and not minutes > 0:
        raise UserInputError("give a budget: a number of updates or of minutes")
    if budget_updates is not None and budget_updates < 1:
        raise UserInputError(f"the budget must be at least 1 update, got {budget_updates}")
    from tqdm import tqdm

    planner = Planner(state, expander)
    start = last_save = time.monotonic()
    done0 = state.updates
    by_updates = budget_updates is not None
    bar = tqdm(
        total=budget_updates if by_updates else round(minutes * 60),
        initial=min(state.updates, budget_updates) if by_updates else 0,
        unit=" updates" if by_updates else " s",
        unit_scale=by_updates,
        desc="search",
        disable=not progress,
        dynamic_ncols=True,
    )
    whole = True  # the state is between stages, as it is saved (a second Ctrl-C may break one off)
    try:
        with StopRequest() as stop:
            while budget_updates is None or state.updates < budget_updates:
                if minutes > 0 and time.monotonic() - start > minutes * 60:
                    break
                if stop.requested:  # Ctrl-C or SIGTERM: stop between stages, so a resume goes on exactly
                    state.stopped_by = stop.signal_name
                    break
                before = state.updates
                whole = False
                planner.step()
                whole = True
                if state_path is not None and time.monotonic() - last_save >= SAVE_EVERY_S:
                    planner.save(state_path)
                    last_save = time.monotonic()
                if by_updates:
                    bar.update(min(state.updates, budget_updates) - min(before, budget_updates))
                else:
                    bar.update(min(round(time.monotonic() - start), bar.total) - bar.n)
                rate = (state.updates - done0) / max(1e-9, time.monotonic() - start)
                best = f"{state.best_time_s:.2f} s" if state.best_keys is not None else "none yet"
                bar.set_postfix_str(
                    f"best {best}, farthest {state.farthest_m:.1f} m, {rate:,.0f} updates/s", refresh=False
                )
    finally:
        bar.close()
        if state_path is not None and whole:  # a stage broken off keeps the last save, made between stages
            planner.save(state_path)
    return state


def best_run_meta(state: SearchState, command: str) -> dict[str, Any]:
    """What a saved best run says about how it was found."""
    return {
        "planner": (
            f"beam search guided by {Path(state.config.guide).name}'s rollouts (agents/search/planner.py)"
            if state.config.guide
            else "beam search with diversity (agents/search/planner.py)"
        ),
        "finish_time_s": state.best_time_s,
        "farthest_m": state.farthest_m,
        "command": command,
        "seed": state.config.seed,
        "updates": state.updates,
        "cpu_seconds": round(state.cpu_seconds, 1),
        "config": asdict(state.config),
    }
