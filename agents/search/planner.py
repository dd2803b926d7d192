"""``qwop search``: a planner over the exact simulator that looks for the fastest 100 m.

Two ways to grow the beam. Guided (``--guide MODEL``, ``PlannerConfig.guide``): every stage
is one decision of a trained policy; each kept game is tried with every action, each try is
followed by the policy's greedy rollout of ``lookahead`` decisions, and the next beam keeps
the tries whose rollouts got farthest (a finished rollout first, by its time; a fall last),
at most ``per_parent`` of one game's tries, so that several games' lines go on: a one-step
policy improvement inside a beam (``agents/search/guided_rollouts.py``). When its lines die
or fall behind the best run, new lines start after a few random-key updates or from the best
run at a random update; once a run has finished, the beam keeps ``refine_beam`` games, and
once the best run has stood ``fine_after`` updates, every try is held ``fine_try_updates``
updates rather than one decision of the guide. Unguided (the default):
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
``PlannerConfig.lines`` grows several lines of search side by side in one batch per stage,
each with its own beam and restarts, sharing the best run (more work per call, for more
workers).

The search is deterministic for a seed and a budget in updates, whatever the worker count;
its state (the beam as key sequences, the RNG, the best run) is saved every few seconds and
when the search stops (``agents/search/run.py``, which runs a search to a budget), and a
stopped search resumes from it without losing work. The best run is saved in the demo
format (``qwop replay FILE --browser`` replays it in the original).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

import sim_env
from agents.search.beam_moves import best_per_parent, cells, segments, select_diverse
from agents.search.guided_rollouts import (
    FELL_RANK,
    FINISHED,
    GuidePolicy,
    finished_100m,
    game_after,
    policy_rollouts,
    rollout_rank,
)
from agents.search.state import (
    HEAD,
    TORSO,
    SearchState,
    best_found_at,
    load_guide,
    save_state,
    stalled_for,
    stood,
)
from sim_env.actions import action_masks
from sim_env.spec import UNITS_PER_METRE
from sim_env.starts import replay_keys


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


def _no_games(sincos: str) -> sim_env.GameSet:
    return sim_env.GameSet(sincos).select(np.zeros(0, dtype=np.int32))


class Planner:
    """What both searches share: the beam's games, restarts, the best run, pace pruning and
    the bookkeeping of a stage. A subclass grows the beam (:meth:`step`)."""

    def __init__(self, state: SearchState, expander: Expander) -> None:
        self.state = state
        self.cfg = state.config
        self.expander = expander
        self.masks = self._masks()
        self.rng = np.random.default_rng(self.cfg.seed)
        # the best finish in the history, and the updates done at the end of the stage that found it
        self.best_seen, self.best_at = best_found_at(state.history)
        if state.rng:
            self.rng.bit_generator.state = state.rng
        if state.keys:
            if len(state.line) != len(state.keys):  # saved before lines: one line
                state.line = [0] * len(state.keys)
            self.games = self._replayed(state.keys)
        else:
            self.games = _no_games(self.cfg.sincos)
            for line in range(self.cfg.lines):
                self._restart(line)

    def _masks(self) -> np.ndarray:
        return action_masks(self.cfg.action_set).astype(np.int8)

    def _fresh_prefix(self) -> np.ndarray:
        """The keys a new line of search from the start begins with."""
        return np.zeros(0, dtype=np.int8)

    def save(self, path: Path) -> None:
        """Write the search's state (with the RNG where it is now), atomically."""
        self.state.rng = self.rng.bit_generator.state
        save_state(self.state, path)

    def _replayed(self, keys: list[np.ndarray]) -> sim_env.GameSet:
        """The beam's games rebuilt from their key sequences, so a saved search does not
        depend on the snapshot format (a line's games are of one length: it is
        time-synchronous; lines started at different times differ)."""
        if len({len(k) for k in keys}) > 1:
            games = _no_games(self.cfg.sincos)
            for k in keys:
                games.add(game_after(k, self.cfg.sincos, self.cfg.click_update).snapshot(0))
            return games
        rows = np.stack(keys) if len(keys[0]) else np.zeros((len(keys), 0), dtype=np.int8)
        start = game_after(np.zeros(0, dtype=np.int8), self.cfg.sincos, self.cfg.click_update)
        if rows.shape[1] == 0:
            return start.select(np.zeros(len(keys), dtype=np.int32))
        threads = getattr(self.expander, "threads", 1)
        return start.expand(np.zeros(len(keys), dtype=np.int32), rows, threads=threads, keep=True)["games"]

    def _restart(self, line: int) -> None:
        """A new start for a line of search (its one game joins the beam): from the start,
        or (refining) from the best run's game at a random update, to look for a faster way
        on from there."""
        st = self.state
        if st.best_keys is not None and self.rng.random() < self.cfg.refine:
            prefix = st.best_keys[: int(self.rng.integers(0, max(1, len(st.best_keys) - self.cfg.horizon)))]
        else:
            prefix = self._fresh_prefix()
        self.games.add(game_after(prefix, self.cfg.sincos, self.cfg.click_update).snapshot(0))
        st.keys.append(prefix)
        st.line.append(line)

    def _new_best(self, keys: np.ndarray, time_s: float) -> None:
        st = self.state
        st.best_time_s, st.best_keys = time_s, keys
        st.best_x = replay_keys(keys, self.cfg.sincos, self.cfg.click_update)["state"][:, TORSO, 0] / UNITS_PER_METRE

    def step(self) -> None:
        """One stage: grow the beam, record finishes, keep the next beam."""
        raise NotImplementedError

    def _too_slow(self, out: dict[str, Any], x: np.ndarray, parent: np.ndarray) -> np.ndarray:
        """Children that cannot beat the best run any more: past its time (or the time
        limit), or more than ``pace_margin_m`` behind where it was at the same update."""
        st = self.state
        too_slow = out["score_time"] >= min(self.cfg.time_limit, st.best_time_s)
        if st.best_x is not None:
            done = np.array([len(k) for k in st.keys], dtype=np.int64)[parent]
            at = np.minimum(done + out["updates"], len(st.best_x)) - 1
            too_slow |= x < st.best_x[at] - self.cfg.pace_margin_m
        return too_slow

    def _next_stage(
        self, parent: np.ndarray, keys: np.ndarray, keep: np.ndarray, choose: Callable[[np.ndarray], np.ndarray]
    ) -> None:
        """Each line keeps the children ``choose`` picks among its rows that ``keep`` allows;
        a line with none left restarts (lines in order, so the search does not depend on
        where they ran)."""
        st = self.state
        line_of = np.asarray(st.line, dtype=np.int64)[parent]
        chosen, dead = [], []
        for line in range(self.cfg.lines):
            idx = np.flatnonzero(keep & (line_of == line))
            if len(idx):
                chosen.append(choose(idx))
            else:
                dead.append(line)
        rows = np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)
        self._next_beam(parent[rows], keys[rows])
        for line in dead:
            st.restarts += 1
            self._restart(line)
        st.stage += 1

    def _next_beam(self, parent: np.ndarray, keys: np.ndarray) -> None:
        """The chosen children become the beam: run again, kept this time (re-running them
        costs a small share of the stage), with their key sequences."""
        st = self.state
        if len(parent) == 0:
            self.games, st.keys, st.line = _no_games(self.cfg.sincos), [], []
            return
        threads = getattr(self.expander, "threads", 1)
        self.games = self.games.expand(parent, keys, threads=threads, keep=True)["games"]
        st.keys = [np.concatenate([st.keys[p], k]) for p, k in zip(parent, keys, strict=True)]
        st.line = [st.line[p] for p in parent]

    def _end_stage(self, t0: float, w0: float) -> None:
        st = self.state
        if st.best_time_s < self.best_seen:
            self.best_seen, self.best_at = st.best_time_s, st.updates
        st.cpu_seconds += time.process_time() - t0
        st.history.append((st.updates, st.best_time_s, st.farthest_m))
        st.wall.append((st.wall[-1] if st.wall else 0.0) + time.monotonic() - w0)
        st.cpu.append(st.cpu_seconds)


class BeamSearch(Planner):
    """The unguided search: random held key masks, a beam kept diverse by cells of distance,
    torso angle and thigh spread (the module's docstring)."""

    def step(self) -> None:
        """One stage: expand, record finishes, keep the next beam."""
        cfg, st = self.cfg, self.state
        t0, w0 = time.process_time(), time.monotonic()
        n_parents = len(self.games)
        parent = np.repeat(np.arange(n_parents, dtype=np.int32), cfg.children)
        keys = segments(self.rng, self.masks, len(parent), cfg.horizon, cfg.min_hold, cfg.max_hold)
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
        vx = out["state"][:, TORSO, 3] / UNITS_PER_METRE
        head_height = (sim_env.TRACK_TOP_Y - out["state"][:, HEAD, 1]) / UNITS_PER_METRE
        score = x + cfg.speed_weight * vx + cfg.height_weight * head_height

        def choose(idx: np.ndarray) -> np.ndarray:
            return idx[select_diverse(score[idx], cells(out["state"][idx], cfg.cell_m), cfg.beam, cfg.per_cell)]

        self._next_stage(parent, keys, alive & ~self._too_slow(out, x, parent), choose)
        self._end_stage(t0, w0)


class GuidedSearch(Planner):
    """The search guided by a trained policy: every stage is one decision, every kept game
    tries every action, and each try is judged by the policy's greedy rollout after it."""

    def __init__(self, state: SearchState, expander: Expander) -> None:
        self.policy = load_guide(state.config)
        # (body states, best action) of every kept game whose tries did not all fall, per stage,
        # when a list: what the search chose, for a guide to learn from (agents/search/guide_tuning.py)
        self.labels: list[tuple[np.ndarray, np.ndarray]] | None = None
        super().__init__(state, expander)
        self.fine = stalled_for(state.history, self.cfg.fine_after)  # tries held fine_try_updates

    def _masks(self) -> np.ndarray:
        return self.policy.masks

    def _fresh_prefix(self) -> np.ndarray:
        # a guided line is deterministic from its start: a new one starts after random keys
        n = int(self.rng.integers(0, self.cfg.start_noise + 1))
        return np.asarray(action_masks("full")[self.rng.integers(0, 16, n)], dtype=np.int8)

    def step(self) -> None:
        """One decision: every kept game tries every action, each try is judged by the
        policy's greedy rollout after it, and the best tries make the next beam."""
        cfg, st, policy = self.cfg, self.state, self.policy
        t0, w0 = time.process_time(), time.monotonic()
        if stood(self.best_seen, self.best_at, st.updates, cfg.fine_after):
            self.fine = True  # for the rest of the search: it has stalled at the coarser tries
        hold = cfg.try_updates or policy.frame_skip
        if self.fine and cfg.fine_try_updates:
            hold = cfg.fine_try_updates
        n_actions = len(self.masks)
        parent = np.repeat(np.arange(len(self.games), dtype=np.int32), n_actions)
        keys = np.repeat(np.tile(self.masks, len(self.games))[:, None], hold, axis=1)
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
        if self.labels is not None:
            by_game = score.reshape(len(self.games), n_actions)
            some = by_game.max(axis=1) > FELL_RANK / 2  # a fall ranks near FELL_RANK
            self.labels.append((self.games.body_states()[some], np.argmax(by_game[some], axis=1)))
        x = out["state"][:, TORSO, 0] / UNITS_PER_METRE

        beam = cfg.refine_beam if cfg.refine_beam and st.best_keys is not None else cfg.beam

        def choose(idx: np.ndarray) -> np.ndarray:
            return best_per_parent(idx, score, parent, beam, cfg.per_parent)

        self._next_stage(parent, keys, ~out["ended"] & ~self._too_slow(out, x, parent), choose)
        self._end_stage(t0, w0)


__all__ = [
    "BeamSearch",
    "Expander",
    "GuidedSearch",
    "LocalExpander",
    "Planner",
]
