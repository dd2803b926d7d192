"""Lookahead control: each decision tries every action in the exact simulator and keeps the best.

From the exact state before the update a decision is for (a page's mirror, or a simulated
game), every action is taken for one decision and then the guide policy acts greedily for
``horizon`` more decisions (``agents.search.guided_rollouts.policy_rollouts``, the planner's
rollouts); the action whose rollout goes best (a finish first, the faster the better, then the
farthest, a fall last) is the decision. With ``late`` > 0 the rollouts also account for a press
that lands an update late: each action is tried both ways and its two outcomes are weighed by
that chance. ``horizon=0`` is the plain policy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import sim_env
from agents.search.guided_rollouts import GuidePolicy, policy_rollouts, rollout_rank

DEFAULT_HORIZON = 30  # decisions; against the plain policy (0), docs/history/realtime.md
MIN_LOOKAHEAD_S = 0.004  # below this before the keys are due, no rollout: the plain policy decides
PLAIN_FROM_SNAPSHOT = -1  # last_depth of a plain policy's decision on the decision's exact state
PLAIN_FROM_STATE = -2  # ... on the page's body state (the mirror had differed: no snapshot)
FROM_OPENING = -3  # last_depth of a decision the opening made (agents.realtime.opening)


@dataclass
class LookaheadController:
    """Chooses each decision's key mask from the exact state (see the module's docstring)."""

    guide: GuidePolicy
    horizon: int = DEFAULT_HORIZON  # decisions of the guide after the tried action (0: the plain policy)
    late: float = 0.0  # the chance a press lands an update late, which the rollouts weigh in
    sincos: str = "fma"  # the sin/cos of the game being played (the page's)
    click_update: int | None = None  # the page update the click is meant for (None: when the page is ready)

    def __post_init__(self) -> None:
        if self.horizon < 0:
            raise ValueError(f"horizon must be 0 or more decisions, got {self.horizon}")
        if not 0.0 <= self.late <= 1.0:
            raise ValueError(f"late must be a probability in [0, 1], got {self.late}")
        self._masks = self.guide.masks
        fs = self.guide.frame_skip
        self._keys = np.repeat(self._masks[:, None], fs, axis=1)
        self.updates_simulated = 0
        self.short_of_time = 0  # decisions the plain policy made because the keys were almost due
        # How the last decision was made: the rollouts' depth in decisions (fewer than horizon
        # when the keys were due first or every rollout had ended), PLAIN_FROM_SNAPSHOT or
        # PLAIN_FROM_STATE. With the decision's state it fixes the decision:
        # decide(..., depth=last_depth) repeats it.
        self.last_depth = PLAIN_FROM_SNAPSHOT

    @property
    def frame_skip(self) -> int:
        return self.guide.frame_skip

    def act_state(self, state: np.ndarray) -> int:
        """The plain policy's key mask for a (12, 6) body state."""
        return self.guide.act_mask(state)

    def decide(
        self,
        snapshot: bytes | None,
        held: int,
        state: np.ndarray | None = None,
        deadline: float | None = None,
        depth: int | None = None,
    ) -> int:
        """The key mask for the decision whose state ``snapshot`` is (a ``QwopSim.snapshot``;
        ``held``: the keys held until then). Without a snapshot, the plain policy on ``state``.
        ``deadline`` (``time.monotonic()``): when the keys are due; the rollouts stop there
        (shallower), and with less than ``MIN_LOOKAHEAD_S`` left the plain policy decides.
        ``depth``: make the decision as one made with that ``last_depth`` was (no deadline), to
        check a recorded run offline."""
        if depth is not None:
            if depth >= 0 and snapshot is None:
                raise ValueError("a decision made by rollouts needs its snapshot")
            horizon, deadline = max(depth, 0), None
            plain = depth < 0
        else:
            horizon = self.horizon
            short = deadline is not None and deadline - time.monotonic() < MIN_LOOKAHEAD_S
            self.short_of_time += int(short and self.horizon > 0)
            plain = snapshot is None or self.horizon == 0 or short
        if plain:
            if state is None or snapshot is not None:
                if snapshot is None:
                    raise ValueError("decide() needs a snapshot or a state")
                sim = sim_env.QwopSim(sincos=self.sincos)
                sim.restore(snapshot)
                state = sim.body_state()
            self.last_depth = PLAIN_FROM_SNAPSHOT if snapshot is not None else PLAIN_FROM_STATE
            return self.act_state(state)
        games = sim_env.GameSet(self.sincos).select(np.zeros(0, dtype=np.int32))  # empty (GameSet() holds a fresh game)
        games.add(snapshot)
        n = len(self._masks)
        parent = np.zeros(n, dtype=np.int32)
        first_deadline = deadline
        if deadline is not None and self.late > 0.0:  # leave time for the late rollouts too
            first_deadline = time.monotonic() + (deadline - time.monotonic()) / 2
        out = policy_rollouts(games, parent, self._keys, self.guide, horizon, deadline=first_deadline)
        rank = rollout_rank(out).astype(np.float64)
        self.updates_simulated += int(out["total_updates"])
        self.last_depth = int(out["rollout_depth"])
        if self.late > 0.0:
            # The same actions reaching the game one update late: the held keys run once more.
            late_keys = np.concatenate([np.full((n, 1), held, dtype=np.int8), self._keys], axis=1)
            late_out = policy_rollouts(games, parent, late_keys, self.guide, out["rollout_depth"])
            self.updates_simulated += int(late_out["total_updates"])
            rank = (1.0 - self.late) * rank + self.late * rollout_rank(late_out)
        return int(self._masks[int(np.argmax(rank))])


__all__ = ["DEFAULT_HORIZON", "PLAIN_FROM_SNAPSHOT", "PLAIN_FROM_STATE", "LookaheadController"]
