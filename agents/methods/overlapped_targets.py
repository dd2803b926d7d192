"""Targets of the next batch computed in a second thread while this batch trains.

A DQN gradient step runs the networks five times over the batch: the online and target
networks over the next observations (the targets, no gradient) and the online network over the
observations, forward and backward. On 2 cores the learner is the bottleneck of a run with
``batch.async_actor`` (its process at 100% of one core while the actor's waits), so the two
no-gradient passes, about a third of the step, run in a worker thread over the batch the next
step will use, beside this step's forward and backward (PyTorch releases the GIL inside its
operators).

The batch is sampled in the learner's thread, so the replay buffer is never read and written at
once; the worker computes with copies of both networks taken when it is handed the batch, so the
learner's optimizer never changes weights under it. What changes against the serial step: each
batch is sampled one gradient step early, before the previous batch's priorities are updated and
without the transitions collected in between, and the online network choosing the next action
(double Q) is one gradient step older. Runs repeat with the same seed as before.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import torch

TargetFn = Callable[[Any, torch.nn.Module, torch.nn.Module], torch.Tensor]


class OverlappedTargets:
    """Hands out (batch, targets) pairs, the next pair's targets computed in a worker thread."""

    def __init__(self, online: torch.nn.Module, target: torch.nn.Module, targets: TargetFn) -> None:
        self.online, self.target, self.targets = online, target, targets
        self.online_copy, self.target_copy = copy.deepcopy(online), copy.deepcopy(target)
        for net in (self.online_copy, self.target_copy):
            net.requires_grad_(False)
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dqn-targets")
        self.pending: tuple[Any, Any, Future[torch.Tensor]] | None = None

    def _submit(self, source: Any, sample: Callable[[], Any]) -> tuple[Any, Any, Future[torch.Tensor]]:
        batch = sample()
        with torch.no_grad():
            for copy_net, net in ((self.online_copy, self.online), (self.target_copy, self.target)):
                for mine, theirs in zip(copy_net.parameters(), net.parameters(), strict=True):
                    mine.copy_(theirs)
        return source, batch, self.pool.submit(self.targets, batch, self.online_copy, self.target_copy)

    def next(self, source: Any, sample: Callable[[], Any]) -> tuple[Any, torch.Tensor]:
        """This step's batch and its targets; the next batch is sampled (from ``source``, the
        replay buffer) and its targets started before this returns. A pending batch of another
        buffer (one loaded since) is dropped."""
        if self.pending is None or self.pending[0] is not source:
            self.pending = self._submit(source, sample)
        _, batch, future = self.pending
        targets = future.result()  # the worker is done with the copies before they change again
        self.pending = self._submit(source, sample)
        return batch, targets

    def close(self) -> None:
        self.pending = None
        self.pool.shutdown(wait=True)


__all__ = ["OverlappedTargets"]
