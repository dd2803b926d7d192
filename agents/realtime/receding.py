"""Planning in the loop: the guided planner's beam, run ahead of a real-time game.

The lookahead (``agents.realtime.lookahead``) starts from scratch at every decision. This
controller keeps a search between decisions instead: the beam of ``qwop search --guide``
(every kept game tries every action, each try judged by the guide's greedy rollout after it,
the best tries kept, at most ``per_parent`` of one game), grown from the state the next decision
is for and kept up to ``lead`` decisions ahead of the game. Each decision:

1. is the first action of the best line in the beam (a finished line by its time, then the
   farthest rollout); the lines that began otherwise are dropped;
2. the first decision's beam is grown to ``lead`` on the intro screen, before the click
   (:meth:`prepare`), from the state the first decision will have if the click lands when sent;
3. once its keys are out, while the page runs the updates before the next decision, the beam
   grows from the state the next decision will have if they land on time (:meth:`think`): by
   ``stages`` decisions, ``catch_up`` while it is less than ``lead`` ahead, fewer when the next
   keys would be due before another stage ended; a stage still running when they are due is cut
   there and its work dropped, so planning never makes keys late.

With an opening (``agents.realtime.opening``, planned offline), a decision whose exact state
the opening passes through is the opening's (its keys, held as long as the opening holds them:
``hold``), and the beam is not grown meanwhile; the first decision off it (keys that landed
late, the opening's end) starts the beam from the true state.

The beam only holds if the game goes where it assumed: when a decision's keys land late, the
state of the next decision is not the one the beam grew from, and the beam starts again from the
true state. A decision is a function of the states the controller was given and of the stages
it ran for each one (``last_depth``, kept in the trace), not of wall time: replayed with the same
states and stage counts (``decide(..., depth=)``), the decisions come out the same.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import sim_env
from agents.realtime.lookahead import FROM_OPENING, PLAIN_FROM_SNAPSHOT, PLAIN_FROM_STATE
from agents.realtime.opening import Opening
from agents.search.beam_moves import best_per_parent
from agents.search.guided_rollouts import RUNNING, GuidePolicy, finished_100m, rollout_rank

DEFAULT_BEAM = 16  # games kept: 16 went 0.7 s faster than 8 in the simulator (docs/history/realtime.md)
DEFAULT_LOOKAHEAD = 15  # guide decisions after each try (the guided search's)
DEFAULT_LEAD = 30  # decisions the beam runs ahead of the game (4 s at frame skip 4)
DEFAULT_STAGES = 1  # stages per decision once the beam is ``lead`` ahead
DEFAULT_CATCH_UP = 2  # stages per decision while it is less
STAGE_MARGIN = 1.25  # a stage is started only if this many times its expected wall time is left
STAGE_MEMORY = 0.3  # weight of the latest stage in the expected wall time (a moving average)
STAGE_FORGET = 0.7  # the expectation shrinks by this each time a stage is skipped, so one slow
# stage (the page's frame, another process) cannot stop the planning for good


@dataclass
class _Line:
    """A line of the beam: its actions (indices) from the next decision, and its rank."""

    actions: list[int]
    rank: float


@dataclass
class BeamController:
    """Chooses each decision's key mask from a beam kept ahead of the game (module docstring)."""

    guide: GuidePolicy
    beam: int = DEFAULT_BEAM
    per_parent: int = 2
    lookahead: int = DEFAULT_LOOKAHEAD
    lead: int = DEFAULT_LEAD
    stages: int = DEFAULT_STAGES
    catch_up: int = DEFAULT_CATCH_UP
    sincos: str = "fma"
    threads: int = 1
    opening: Opening | None = None

    def __post_init__(self) -> None:
        for name in ("beam", "lookahead", "stages", "catch_up"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.lead < 1:
            raise ValueError(f"lead must be at least 1 decision, got {self.lead}")
        self._masks = self.guide.masks
        self.updates_simulated = 0
        self.short_of_time = 0  # decisions made without a stage because the keys were almost due
        self.restarts = 0  # times the beam started again (the first decision, late keys)
        self.last_depth = PLAIN_FROM_SNAPSHOT  # stages run for the last decision, or PLAIN_*
        self.stage_s = 0.0  # a stage's expected wall time (moving average)
        self.stage_times: list[float] = []  # every stage's wall time, for the report
        self.stages_cut = 0  # stages cut short by the deadline (their work lost)
        self.from_opening = 0  # decisions the opening made
        self.hold = self.frame_skip  # updates the last decision's keys are held (the opening's own)
        self._clear()

    @property
    def frame_skip(self) -> int:
        return self.guide.frame_skip

    @property
    def click_update(self) -> int | None:
        """The page update the click is meant for: the opening's (None: when the page is ready)."""
        return None if self.opening is None else self.opening.click_update

    def _clear(self) -> None:
        self._games: sim_env.GameSet | None = None
        self._lines: list[_Line] = []
        self._finish: _Line | None = None  # the fastest line that ended the game at 100 m
        self._expected: bytes | None = None  # the state the next decision should be for
        self._thought = 0  # stages think() grew since the last decision

    def _opening_decision(self, snapshot: bytes | None) -> tuple[int, int] | None:
        return None if self.opening is None else self.opening.decision(snapshot)

    def act_state(self, state: np.ndarray) -> int:
        """The plain policy's key mask for a (12, 6) body state."""
        return self.guide.act_mask(state)

    @property
    def ahead(self) -> int:
        """Decisions the beam has grown past the next decision's state."""
        return len(self._lines[0].actions) if self._lines else (len(self._finish.actions) if self._finish else 0)

    # ------------------------------------------------------------------ the beam
    def _restart(self, snapshot: bytes) -> None:
        self._clear()
        self.restarts += 1
        games = sim_env.GameSet(self.sincos).select(np.zeros(0, dtype=np.int32))
        games.add(snapshot)
        self._games = games
        self._lines = [_Line([], 0.0)]

    def _stage(self, deadline: float | None = None) -> bool:
        """Every kept game tries every action; the best tries become the beam. A stage that
        would end after ``deadline`` (``time.monotonic()``) is cut there and leaves the beam as
        it was: returns whether it was grown."""
        games = self._games
        if games is None or len(games) == 0:
            return True
        fs, n_actions = self.frame_skip, len(self._masks)
        parent = np.repeat(np.arange(len(games), dtype=np.int32), n_actions)
        keys = np.repeat(np.tile(self._masks, len(games))[:, None], fs, axis=1)
        seconds = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
        out = games.rollouts(parent, keys, self.guide.native, self.lookahead, threads=self.threads, seconds=seconds)
        self.updates_simulated += int(out["total_updates"])
        if int(out["rollout_depth"]) < self.lookahead and bool(np.any(out["rollout_end"] == RUNNING)):
            return False  # cut short: its rollouts are not comparable with a whole stage's
        rank = rollout_rank(out)
        for c in np.flatnonzero(finished_100m(out)):
            line = _Line([*self._lines[parent[c]].actions, int(c % n_actions)], float(rank[c]))
            if self._finish is None or line.rank > self._finish.rank:
                self._finish = line
        alive = np.flatnonzero(~out["ended"])
        chosen = best_per_parent(alive, rank, parent, self.beam, self.per_parent)
        if len(chosen) == 0:
            self._games, self._lines = None, []
            return True
        self._games = games.expand(parent[chosen], keys[chosen], threads=self.threads, keep=True)["games"]
        self._lines = [_Line([*self._lines[parent[c]].actions, int(c % n_actions)], float(rank[c])) for c in chosen]
        return True

    def _commit(self) -> int | None:
        """The first action of the best line; drops the lines that begin otherwise."""
        best = max([*self._lines, *([self._finish] if self._finish else [])], key=lambda line: line.rank, default=None)
        if best is None or not best.actions:
            return None
        a = best.actions[0]
        keep = [i for i, line in enumerate(self._lines) if line.actions and line.actions[0] == a]
        if self._games is not None and keep:
            self._games = self._games.select(np.asarray(keep, dtype=np.int32))
        else:
            self._games = None
        self._lines = [_Line(self._lines[i].actions[1:], self._lines[i].rank) for i in keep]
        if self._finish is not None:
            f = self._finish
            self._finish = _Line(f.actions[1:], f.rank) if f.actions[0] == a and len(f.actions) > 1 else None
        return a

    # ------------------------------------------------------------------ deciding
    def _budget(self) -> int:
        """Stages for this decision: ``stages`` once the beam is ``lead`` ahead, else ``catch_up``."""
        return self.stages if self.ahead >= self.lead else self.catch_up

    def _grow(self, planned: int, deadline: float | None) -> int:
        """Up to ``planned`` stages, none started unless its expected wall time fits before
        ``deadline`` and none kept that would end after it; returns how many were grown."""
        ran = 0
        for _ in range(planned):
            if deadline is not None and deadline - time.monotonic() < STAGE_MARGIN * self.stage_s:
                self.stage_s *= STAGE_FORGET
                break
            t0 = time.monotonic()
            grown = self._stage(deadline)
            took = time.monotonic() - t0
            self.stage_times.append(took)
            self.stage_s = (
                took if len(self.stage_times) == 1 else (1 - STAGE_MEMORY) * self.stage_s + STAGE_MEMORY * took
            )
            if not grown:
                self.stages_cut += 1
                break
            ran += 1
        return ran

    def prepare(self, snapshot: bytes, deadline: float | None = None) -> None:
        """Grow the beam to ``lead`` from the first decision's state ``snapshot`` before the game
        starts (on the intro screen, before the click), none that would end after
        ``deadline``. If the first decision's state is another (the click landed an update
        late), :meth:`decide` starts again and this work is lost. A state the opening passes
        through needs no beam."""
        if self._opening_decision(snapshot) is not None:
            self._clear()
            return
        self._restart(snapshot)
        self._expected = snapshot
        self._thought = self._grow(self.lead, deadline)

    def think(self, deadline: float | None = None) -> None:
        """Grow the beam for the next decision while the game runs on (called once this
        decision's keys are out): ``stages``, or ``catch_up`` while it is less than ``lead``
        ahead, none that would end after ``deadline``. It grows from the state the next decision
        should have; if the keys land late, :meth:`decide` starts again and this work is lost."""
        if self._expected is not None and self._games is not None:
            self._thought += self._grow(self._budget(), deadline)

    def decide(
        self,
        snapshot: bytes | None,
        held: int,
        state: np.ndarray | None = None,
        deadline: float | None = None,
        depth: int | None = None,
    ) -> int:
        """The key mask for the decision whose state ``snapshot`` is (``held``: the keys held
        until then; without a snapshot, the plain policy on ``state``). The beam grown by
        :meth:`think` decides; a beam started afresh (the first decision, or keys that landed
        late) first grows ``catch_up`` stages, none that would end after ``deadline``
        (``time.monotonic()``, when the keys are due), and without any the plain policy decides.
        ``last_depth`` is the stages the deciding beam grew since the last decision. ``depth``:
        grow that many here instead, as a decision recorded with that ``last_depth`` was (no
        deadline), to make a recorded run's decisions again."""
        self.hold = self.frame_skip
        if snapshot is None:
            if state is None:
                raise ValueError("decide() needs a snapshot or a state")
            self._clear()
            self.last_depth = PLAIN_FROM_STATE
            return self.act_state(state)
        book = self._opening_decision(snapshot) if depth is None or depth == FROM_OPENING else None
        if book is not None:
            self._clear()  # no beam while the opening leads: the next decision off it starts one
            self.from_opening += 1
            self.last_depth = FROM_OPENING
            mask, self.hold = book
            return mask
        if snapshot != self._expected or (self._games is None and self._finish is None):
            self._restart(snapshot)
        if depth is not None:
            ran = self._grow(max(depth, 0), None)
        else:
            ran = self._thought + (self._grow(self.catch_up, deadline) if self.ahead == 0 else 0)
            self.short_of_time += int(self.ahead == 0)
        self._thought = 0
        a = self._commit() if (depth is None or depth >= 0) else None
        sim = sim_env.QwopSim(sincos=self.sincos)
        sim.restore(snapshot)
        if a is None:
            mask = self.act_state(sim.body_state())
            self.last_depth = PLAIN_FROM_SNAPSHOT
            self._clear()
        else:
            mask = int(self._masks[a])
            self.last_depth = ran
        sim.advance(np.full(self.frame_skip, mask, dtype=np.int8))
        self._expected = sim.snapshot()
        return mask


__all__ = ["BeamController"]
