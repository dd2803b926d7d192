"""The callbacks a training run uses: schedules over a budget, stopping by time or on request,
progress with the latest episodes, and checkpoints with their sidecars."""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback

from agents.training.config import TrainConfig
from agents.training.model_files import save_model
from agents.training.safe_loading import save_buffer
from sim_env.interrupts import StopRequest


class ScheduleHorizon(BaseCallback):
    """Schedules (exploration, learning rate, PER's beta) run over ``steps`` env steps even when
    training is stopped by time: a run given minutes is started with a budget of steps it
    will not reach, and without this its schedules would stay at their start (a DQN would
    explore at random throughout)."""

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.steps = steps

    def _on_training_start(self) -> None:
        self.model._total_timesteps = self.steps

    def _on_step(self) -> bool:
        return True


class StopAfterMinutes(BaseCallback):
    """Stops training after a wall-clock budget."""

    def __init__(self, minutes: float) -> None:
        super().__init__()
        self.seconds = minutes * 60.0
        self.deadline = time.monotonic() + self.seconds

    def _on_step(self) -> bool:
        return time.monotonic() < self.deadline


class TrainingProgress(BaseCallback):
    """A progress bar over the run's budget (steps, or seconds for a time budget) that also
    shows how the latest episodes went: the share that finished, the median distance and the
    best finish time of the last ``window`` episodes."""

    def __init__(self, steps: int, seconds: float = 0.0, window: int = 100, status: Any = None) -> None:
        super().__init__()
        self.steps, self.seconds = steps, seconds
        self.status = status  # () -> str: more for the line (best/'s looks), "" for nothing
        self.distances: deque[float] = deque(maxlen=window)
        self.finishes: deque[float] = deque(maxlen=window)  # finish time, or inf for an episode that did not
        self._bar: Any = None
        self._start = self._shown = 0.0
        self._steps0 = 0

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        self._start = self._shown = time.monotonic()
        self._steps0 = self.num_timesteps
        by_time = self.seconds > 0
        self._bar = tqdm(
            total=round(self.seconds) if by_time else self.steps,
            desc="training",
            unit=" s" if by_time else " steps",
            unit_scale=not by_time,
            dynamic_ncols=True,
        )

    def _on_step(self) -> bool:
        for info, done in zip(self.locals.get("infos", ()), self.locals.get("dones", ()), strict=False):
            if done and "final_score" in info:
                self.distances.append(info["final_score"])
                self.finishes.append(info["final_time"] if info.get("finished") else float("inf"))
        now = time.monotonic()
        if self._bar is not None and now - self._shown >= 1.0:
            self._shown = now
            done = now - self._start if self.seconds > 0 else self.num_timesteps - self._steps0
            self._bar.update(min(round(done), self._bar.total) - self._bar.n)
            self._bar.set_postfix_str(self.summary(), refresh=False)
        return True

    def summary(self) -> str:
        more = self.status() if self.status is not None else ""
        more = f"; {more}" if more else ""
        if not self.distances:
            return f"{self.num_timesteps:,} steps, no episode ended yet{more}"
        fin = np.array(self.finishes)
        best = f", best {fin.min():.2f} s" if np.isfinite(fin).any() else ""
        return (
            f"{self.num_timesteps:,} steps; last {len(fin)} episodes: finished {np.isfinite(fin).mean():.0%}, "
            f"median {np.median(self.distances):.1f} m{best}{more}"
        )

    def _on_training_end(self) -> None:
        self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(self.summary(), refresh=False)
            self._bar.close()
            self._bar = None


class StopOnRequest(BaseCallback):
    """Ends training at the next step once Ctrl-C or SIGTERM asked for it (the model is then
    saved with its replay buffer, see ``_train_in``)."""

    def __init__(self, stop: StopRequest) -> None:
        super().__init__()
        self.stop = stop

    def _on_step(self) -> bool:
        return not self.stop.requested


class SidecarCheckpoint(CheckpointCallback):
    """Checkpoints written whole (sim_env.files), each with its sidecar of env options and, for
    off-policy algorithms, its replay buffer as ``.npz`` (agents.training.safe_loading). Of the
    buffers only the newest stays: each is the size of the whole buffer (330 MB for the record
    recipe's), and a run of 30 M steps would otherwise leave 60 of them."""

    def __init__(self, cfg: TrainConfig, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cfg = cfg
        self._buffer: Path | None = None

    def _on_step(self) -> bool:
        if self.n_calls % self.save_freq != 0:
            return True
        save_model(self.model, Path(self._checkpoint_path(extension="zip")), self.cfg)
        if self.save_replay_buffer and getattr(self.model, "replay_buffer", None) is not None:
            buffer = Path(self._checkpoint_path("replay_buffer_", extension="npz"))
            save_buffer(self.model.replay_buffer, buffer)
            if self._buffer is not None and self._buffer != buffer:
                self._buffer.unlink(missing_ok=True)  # only once the newer one is written
            self._buffer = buffer
        return True


__all__ = ["ScheduleHorizon", "SidecarCheckpoint", "StopAfterMinutes", "StopOnRequest", "TrainingProgress"]
