"""Running a planner's stages on Ray: ``qwop search --ray ADDRESS`` (a cluster) or
``--ray local`` (one started on loopback on this machine).

Each stage ships the beam's games as snapshots once (``ray.put``), splits the children into
one block per worker, and each worker expands its block with the embedded engine. The
engine is deterministic, so the result is the same as on local threads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import sim_env
from agents.ray_cluster import connect


def _games(snapshots: list[bytes], sincos: str) -> sim_env.GameSet:
    games = sim_env.GameSet(sincos).select(np.zeros(0, dtype=np.int32))
    for s in snapshots:
        games.add(s)
    return games


def _expand_block(snapshots: list[bytes], sincos: str, parent: np.ndarray, keys: np.ndarray) -> dict[str, Any]:
    out = _games(snapshots, sincos).expand(parent, keys, threads=1)
    out.pop("games", None)
    return out


def _rollout_block(
    snapshots: list[bytes], sincos: str, parent: np.ndarray, keys: np.ndarray, policy: Any, lookahead: int
) -> dict[str, Any]:
    from agents.search.guided_rollouts import policy_rollouts

    return policy_rollouts(_games(snapshots, sincos), parent, keys, policy, lookahead, threads=1)


class RayExpander:
    """Expands stages on Ray workers (one task per worker and stage)."""

    def __init__(self, address: str, workers: int | None = None, connect_timeout_s: float = 30.0) -> None:
        self.ray = ray = connect(address, workers, connect_timeout_s)
        self.workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._remote = ray.remote(num_cpus=1)(_expand_block)
        self._remote_rollouts = ray.remote(num_cpus=1)(_rollout_block)

    def expand(self, games: sim_env.GameSet, parent: np.ndarray, keys: np.ndarray) -> dict[str, Any]:
        parts = self._run(self._remote, games, parent, keys)
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    def rollouts(
        self, games: sim_env.GameSet, parent: np.ndarray, keys: np.ndarray, policy: Any, lookahead: int
    ) -> dict[str, Any]:
        """The guided search's tries and rollouts, one block of tries per worker."""
        parts = self._run(self._remote_rollouts, games, parent, keys, self.ray.put(policy), lookahead)
        scalars = ("total_updates", "rollout_depth")
        out = {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k not in scalars}
        out["total_updates"] = sum(int(p["total_updates"]) for p in parts)
        out["rollout_depth"] = min(int(p["rollout_depth"]) for p in parts)
        return out

    def _run(self, remote: Any, games: sim_env.GameSet, parent: np.ndarray, keys: np.ndarray, *extra: Any) -> list:
        """Ship the parents' snapshots once and run one block of children per worker."""
        used = np.unique(parent)
        snaps = self.ray.put([games.snapshot(int(i)) for i in used])
        local_parent = np.searchsorted(used, parent).astype(np.int32)
        blocks = np.array_split(np.arange(len(parent)), self.workers)
        sincos = games_sincos(games)
        futures = [remote.remote(snaps, sincos, local_parent[b], keys[b], *extra) for b in blocks if len(b)]
        return self.ray.get(futures)

    def close(self) -> None:
        self.ray.shutdown()


def games_sincos(games: sim_env.GameSet) -> str:
    """The sin/cos variant of a set's games (they share one)."""
    sim = sim_env.QwopSim()
    sim.restore(games.snapshot(0))
    return sim.sincos
