"""Prioritised experience replay (Schaul et al. 2016, proportional variant) on SB3's buffer.

:class:`SumTree` holds one priority per stored transition and samples in proportion to them;
:class:`PrioritizedReplayBuffer` is the demonstration-aware replay buffer
(:class:`agents.methods.imitation.DemoReplayBuffer`) with priorities: new transitions enter at the
largest priority seen so far, the learner sets ``(|TD error| + eps) ** alpha`` after each
update, demonstrations get ``demo_bonus`` on top (DQfD's constant, so that a few expert
transitions keep being replayed among many of the agent's own), and samples carry the
importance-sampling weights ``(N P(i)) ** -beta``, normalised by the batch's largest.

With ``n_steps`` > 1 a sampled transition carries its n-step return (Sutton 1988; one of
Rainbow's parts, Hessel et al. 2018): the rewards of up to ``n_steps`` transitions of the same
env, discounted, and the observation, end and discount ``gamma ** k`` of the last of them. The
chain ends early at an episode's end (a fall, a finish or the time limit), at the newest stored
step (what follows is not stored yet) and before an injected demonstration; a demonstration is a
chain of one, since demonstrations are injected in shuffled order. So a return never mixes episodes.
Priorities stay one per transition, set from the n-step TD error.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np
import torch

from agents.methods import _sum_tree  # built by pip install (CMakeLists.txt)
from agents.methods.imitation import DemoReplayBuffer


class SumTree:
    """Priorities of ``capacity`` slots in a binary tree of partial sums (a numpy array; its
    updates and searches in C++, ``agents/methods/cpp/sum_tree.cpp``)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.leaves = 1 << max(0, (capacity - 1).bit_length())
        self.tree = np.zeros(2 * self.leaves, dtype=np.float64)

    @property
    def total(self) -> float:
        return float(self.tree[1])

    def get(self, index: np.ndarray) -> np.ndarray:
        return self.tree[np.asarray(index) + self.leaves]

    def set(self, index: np.ndarray, priority: np.ndarray) -> None:
        """Priorities of slots (the last of repeated slots wins) and the sums above them."""
        index = np.asarray(index, dtype=np.int64).ravel()
        priority = np.broadcast_to(np.asarray(priority, dtype=np.float64), index.shape)
        _sum_tree.set(self.tree, self.capacity, index, priority)

    def find(self, mass: np.ndarray) -> np.ndarray:
        """For each value in [0, total), the slot whose cumulative-priority interval holds it."""
        index = _sum_tree.find(self.tree, np.asarray(mass, dtype=np.float64).ravel())
        # Rounding can step past the last slot with weight; fall back to the nearest one with some.
        bad = (index >= self.capacity) | (self.tree[index + self.leaves] <= 0)
        if np.any(bad):
            nonzero = np.flatnonzero(self.tree[self.leaves : self.leaves + self.capacity] > 0)
            pick = np.searchsorted(nonzero, index[bad]).clip(0, len(nonzero) - 1)
            index[bad] = nonzero[pick]
        return index

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` slots drawn in proportion to priority (one per equal stratum of the total)."""
        if not self.total > 0:
            raise ValueError("cannot sample: every priority is zero")
        edges = np.arange(n, dtype=np.float64) / n * self.total
        return self.find(edges + rng.random(n) * (self.total / n))


class PrioritizedSamples(NamedTuple):
    observations: torch.Tensor
    actions: torch.Tensor
    next_observations: torch.Tensor
    dones: torch.Tensor
    rewards: torch.Tensor
    discounts: torch.Tensor | None
    weights: torch.Tensor  # importance-sampling weights, (batch, 1)
    indices: np.ndarray  # flat slots (pos * n_envs + env), for update_priorities
    terms: torch.Tensor | None  # reward terms (batch, terms), when the buffer keeps them
    demo: torch.Tensor | None = None  # 1.0 for a demonstration's transition, else 0.0, (batch, 1)
    returns: torch.Tensor | None = None  # the return to the episode's end (-inf: unknown), (batch, 1)


class PrioritizedReplayBuffer(DemoReplayBuffer):
    """SB3 replay buffer (with demonstration flags) that samples by priority."""

    # How the buffer samples, given when it is made: a buffer file restores the contents, not
    # these, so a resumed run samples as its own config says (agents.training.safe_loading)
    SETTINGS: ClassVar[tuple[str, ...]] = ("alpha", "eps", "demo_bonus", "n_steps", "gamma")

    def __init__(
        self,
        *args: Any,
        alpha: float = 0.6,
        beta: float = 0.4,
        eps: float = 1e-6,
        demo_bonus: float = 1.0,
        n_terms: int = 0,
        seed: int | None = None,
        n_steps: int = 1,
        gamma: float = 0.99,
        episode_returns: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if not (isinstance(n_steps, int) and n_steps >= 1) or not 0.0 <= gamma <= 1.0:
            raise ValueError("need a whole n_steps >= 1 and 0 <= gamma <= 1")
        self.n_steps, self.gamma = n_steps, gamma
        # reward terms per transition (info["reward_terms"]), for one Q head per term
        self.terms = np.zeros((self.buffer_size, self.n_envs, n_terms), dtype=np.float32) if n_terms else None
        if self.optimize_memory_usage:
            raise ValueError("prioritised replay does not support optimize_memory_usage")
        if not alpha >= 0 or not 0 <= beta <= 1 or not eps > 0 or not demo_bonus >= 0:
            raise ValueError("need alpha >= 0, 0 <= beta <= 1, eps > 0, demo_bonus >= 0")
        self.alpha, self.beta, self.eps, self.demo_bonus = alpha, beta, eps, demo_bonus
        self.tree = SumTree(self.buffer_size * self.n_envs)
        self.max_priority = 1.0
        self.rng = np.random.default_rng(seed)
        # each transition's discounted return to its episode's end, once that end is stored
        # (-inf until then, and for ends by the time limit and demonstrations): a lower bound
        # of Q in a deterministic game (lower_bound_targets)
        self.returns = np.full((self.buffer_size, self.n_envs), -np.inf, dtype=np.float32) if episode_returns else None
        self._episode_rows: list[list[int]] = [[] for _ in range(self.n_envs)]  # not saved: see add

    def add(self, obs, next_obs, action, reward, done, infos) -> None:  # type: ignore[override]
        pos = self.pos
        demo = self.next_is_demo
        super().add(obs, next_obs, action, reward, done, infos)
        if self.terms is not None:
            if any("reward_terms" not in i for i in infos):
                raise ValueError("reward heads need info['reward_terms'] on every transition (demos have none)")
            self.terms[pos] = np.stack([np.asarray(i["reward_terms"], dtype=np.float32) for i in infos])
        slots = pos * self.n_envs + np.arange(self.n_envs)
        self.tree.set(slots, self.max_priority + (self.demo_bonus if demo else 0.0))
        if self.returns is not None:
            self.returns[pos] = -np.inf  # the row's old returns, if the buffer wrapped
            if not demo:
                self._returns_of_ended(pos)

    def _returns_of_ended(self, pos: int) -> None:
        """Notes row ``pos`` in each env's episode and, for the episodes it ends, writes every
        stored transition's discounted return. A buffer loaded from a file knows no episode
        under way: those get returns from where this process first stored them (still exact)."""
        for env in range(self.n_envs):
            rows = self._episode_rows[env]
            rows.append(pos)
            if not self.dones[pos, env]:
                if len(rows) > self.buffer_size:  # longer than the buffer: its first rows are gone
                    del rows[0]
                continue
            self._episode_rows[env] = []
            if self.timeouts[pos, env]:
                continue  # cut by the time limit: what it would have gained after is unknown
            at = np.asarray(rows)
            discount = self.gamma ** np.arange(len(at), dtype=np.float64)
            weighted = self.rewards[at, env].astype(np.float64) * discount
            self.returns[at, env] = (np.cumsum(weighted[::-1])[::-1] / discount).astype(np.float32)

    def _stored(self) -> int:
        return (self.buffer_size if self.full else self.pos) * self.n_envs

    def sample(self, batch_size: int, env: Any = None) -> PrioritizedSamples:  # type: ignore[override]
        slots = self.tree.sample(batch_size, self.rng)
        probs = self.tree.get(slots) / self.tree.total
        weights = (self._stored() * probs) ** (-self.beta)
        weights = weights / weights.max()
        rows = self._rows
        if self.n_steps == 1:
            last, discounts = slots, None
            rewards = self._normalize_reward(rows(self.rewards, slots).reshape(-1, 1), env)
            terms = None if self.terms is None else self.to_torch(rows(self.terms, slots))
        else:
            last, discount, taken, length = self._chains(slots)
            step_rewards = self._normalize_reward(rows(self.rewards, taken), env)
            rewards = (step_rewards * discount).sum(axis=1, keepdims=True, dtype=np.float32)
            discounts = self.to_torch((self.gamma ** length.reshape(-1, 1)).astype(np.float32))
            terms = None
            if self.terms is not None:  # (batch, n, terms) summed over the chain
                terms = self.to_torch((rows(self.terms, taken) * discount[..., None]).sum(axis=1, dtype=np.float32))
        data = (
            self._normalize_obs(rows(self.observations, slots), env),
            rows(self.actions, slots),
            self._normalize_obs(rows(self.next_observations, last), env),
            (rows(self.dones, last) * (1 - rows(self.timeouts, last))).reshape(-1, 1),
            rewards,
        )
        tensors = tuple(map(self.to_torch, data))
        w = self.to_torch(weights.reshape(-1, 1).astype(np.float32))
        demo = self.to_torch((rows(self.is_demo, slots) != 0).astype(np.float32).reshape(-1, 1))
        bounds = None if self.returns is None else self.to_torch(rows(self.returns, slots).reshape(-1, 1))
        return PrioritizedSamples(*tensors, discounts, w, slots, terms, demo, bounds)

    def _rows(self, a: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """The rows of a (pos, env, ...) array at flat slots (pos * n_envs + env), in the slots'
        shape: one take of the array seen flat, several times faster than indexing by (pos, env)."""
        return a.reshape(self.buffer_size * self.n_envs, *a.shape[2:]).take(slots, axis=0)

    def _chains(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For each sampled slot, its n-step chain: the slot of its last transition, each
        step's discount (``gamma ** k`` while the chain goes on, 0 after), the flat slots of
        the ``n_steps`` transitions it may take, (batch, n_steps), and its length."""
        n, size, envs = self.n_steps, self.buffer_size, self.n_envs
        pos, env = np.divmod(np.asarray(slots, dtype=np.int64), envs)
        at = (pos[:, None] + np.arange(n)) % size
        taken = at * envs + env[:, None]
        stop = (self._rows(self.dones, taken) != 0) | (self._rows(self.timeouts, taken) != 0)
        stop |= at == (self.pos - 1) % size  # the newest stored step: its successor is not stored yet
        # Demonstrations are injected a row at a time in shuffled order, so the row after a demo
        # is not its next step: a demo is a chain of one, and an agent's chain stops before one.
        agent = self._rows(self.is_demo, taken) == 0
        goes_on = ~stop[:, :-1] & agent[:, 1:] & agent[:, :1]
        joins = np.ones((len(slots), n), dtype=bool)
        joins[:, 1:] = np.logical_and.accumulate(goes_on, axis=1)
        length = joins.sum(axis=1)
        last = taken[np.arange(len(slots)), length - 1]
        discount = np.where(joins, self.gamma ** np.arange(n, dtype=np.float64), 0.0).astype(np.float32)
        return last, discount, taken, length

    def update_priorities(self, slots: np.ndarray, td_errors: np.ndarray) -> None:
        """After a learning step: priority = (|TD error| + eps) ** alpha (+ demo_bonus)."""
        base = (np.abs(np.asarray(td_errors, dtype=np.float64)).ravel() + self.eps) ** self.alpha
        bonus = np.where(self.is_demo.reshape(-1)[np.asarray(slots)] != 0, self.demo_bonus, 0.0)
        self.tree.set(slots, base + bonus)
        self.max_priority = max(self.max_priority, float(base.max(initial=0.0)))
