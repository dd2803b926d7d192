"""Keeping the best model of a run: the one whose run from the standard start is fastest.

A DQN-family agent's policy changes with every gradient step, and its run from the standard
start without noise (the one the original replays closed loop, state for state) changes a
lot from one checkpoint to the next (48-77 s across one run's marks). ``KeepBest`` looks at
that run every ``run.best_every`` env steps (one episode: a fraction of a second) and keeps
the models that beat the fastest kept so far, judged together with their reliability over
noisy starts: a model is kept only if at least ``run.best_min_success`` of
``run.best_episodes`` episodes with start noise finish (seed 1), and then again of
``run.best_confirm_episodes`` other ones (seed 2). The screen alone is a biased judge: a run
looks at hundreds of models, and the fastest that pass a fixed sample are those the sample
happens to favour (a model at 94% of the screen's 128 finished 80-86% elsewhere); the
confirmation is a fresh, larger sample. Evaluations (``qwop eval``, the learning benchmark)
use seed 0, neither of these.

With a target time (``run.best_target_s``, the record in the record recipe), once a kept
model runs from the start under it, speed is enough: from then on a model is kept when it
also runs under the target and finishes more of the judged starts than the model kept last.
This is model selection in the simulator (no browser), as
SB3's ``EvalCallback`` keeps ``best_model.zip``.

The run folder gets ``best/``: every kept model as ``best/start_<time>s_<steps>.zip`` (with
its sidecar), ``best/best.zip`` (a copy of the latest kept), and ``best/best.json`` (one row
per model looked at more closely: start run and noisy evaluation).
"""

from __future__ import annotations

import json
import resource
import shutil
import time
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from agents.training.config import TrainConfig
from agents.training.evaluate import evaluate_policy_sim, evaluate_start_run
from agents.training.model_files import model_sidecar, save_model


def process_cpu_s() -> float:
    """CPU seconds of this process so far and of its child processes that ended."""
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ended.ru_utime + ended.ru_stime


def training_cpu_s(model: Any) -> float:
    """``process_cpu_s`` and the running actor process's (as of its latest chunk), if any."""
    return process_cpu_s() + float(getattr(model.get_env(), "actor_cpu_s", 0.0))


SELECTION_SEED = 1  # the screen's noisy starts; evaluations use seed 0
CONFIRM_SEED = 2


class KeepBest(BaseCallback):
    """Saves the models whose standard-start run is the fastest finish so far among those
    finishing at least ``min_success`` of ``episodes`` noisy starts (and of
    ``confirm_episodes`` more); under ``target`` seconds, the most reliable (see the module)."""

    def __init__(
        self,
        cfg: TrainConfig,
        folder: Path,
        every: int,
        min_success: float,
        episodes: int,
        confirm_episodes: int = 0,
        log: Any = print,
        target: float = 0.0,
    ) -> None:
        super().__init__()
        self.cfg = cfg
        self.folder = folder
        self.every = every
        self.min_success = min_success
        self.episodes = episodes
        self.confirm_episodes = confirm_episodes
        self.log = log
        self.target = target
        self.best_time: float | None = None
        self.best_rate: float | None = None  # the latest kept model's share of judged starts finished
        self.rows: list[dict[str, Any]] = []
        self._next = 0
        self._wall0, self._cpu0, self._steps0 = time.monotonic(), process_cpu_s(), 0

    def _on_training_start(self) -> None:
        self._next = int(self.model.num_timesteps) + self.every
        self._wall0, self._cpu0 = time.monotonic(), training_cpu_s(self.model)
        self._steps0 = int(self.model.num_timesteps)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next = int(self.num_timesteps) + self.every
            self.look()
        return True

    def _phase_two(self) -> bool:
        """A kept model already runs under the target: from now on reliability counts."""
        return self.target > 0 and self.best_time is not None and self.best_time < self.target

    def look(self) -> dict[str, Any] | None:
        """Judges the model as it is now; returns its row if it was looked at closely."""
        opts = self.cfg.env_options()
        start = evaluate_start_run(self.model, opts)
        if not start["best_run_finished"]:
            return None
        t = float(start["best_run_time_s"])
        bar = self.min_success
        if self._phase_two():
            if t >= self.target:
                return None
            bar = max(bar, self.best_rate or 0.0)
        elif self.best_time is not None and t >= self.best_time:
            return None
        # Stopped as soon as the bar is out of reach: the same verdict, a fraction of the work.
        noisy = evaluate_policy_sim(self.model, opts, episodes=self.episodes, seed=SELECTION_SEED, min_success=bar)
        row = {
            "timesteps": int(self.num_timesteps),
            # since this run (or stage, or resume) began to train; clock: the epoch, for spans across stages
            "steps": int(self.num_timesteps) - self._steps0,
            "wall_s": round(time.monotonic() - self._wall0, 1),
            "cpu_s": round(training_cpu_s(self.model) - self._cpu0, 1),
            "clock": time.time(),
            "process_cpu_s": training_cpu_s(self.model),
            "start_run_time_s": t,
            "success_rate": noisy["success_rate"],
            "median_finish_time_s": noisy["median_finish_time_s"],
            "best_finish_time_s": noisy["best_finish_time_s"],
            "kept": noisy["success_rate"] >= bar,
        }
        if noisy.get("below"):
            row["screen_episodes"] = noisy["episodes"]  # stopped once the bar was out of reach
        n, rate = self.episodes, noisy["success_rate"]
        if row["kept"] and self.confirm_episodes > 0:
            again = evaluate_policy_sim(
                self.model, opts, episodes=self.confirm_episodes, seed=CONFIRM_SEED, min_success=self.min_success
            )
            row["confirm_success_rate"] = again["success_rate"]
            row["confirm_median_finish_time_s"] = again["median_finish_time_s"]
            row["kept"] = again["success_rate"] >= self.min_success
            n += self.confirm_episodes
            rate = (noisy["success_rate"] * self.episodes + again["success_rate"] * self.confirm_episodes) / n
        if row["kept"] and self._phase_two():
            row["kept"] = rate > (self.best_rate or 0.0)
        row["judged_success_rate"] = rate
        self.folder.mkdir(parents=True, exist_ok=True)
        if row["kept"]:
            self.best_time, self.best_rate = t, rate
            path = save_model(self.model, self.folder / f"start_{t:.2f}s_{self.num_timesteps}.zip", self.cfg)
            shutil.copyfile(path, self.folder / "best.zip")
            shutil.copyfile(model_sidecar(path), model_sidecar(self.folder / "best.zip"))
            row["model"] = str(path)
            self.log(
                f"kept {path.name}: {t:.2f} s from the start; {rate:.1%} of {n} noisy starts finish"
                + (f", median {median:.1f} s" if (median := row["median_finish_time_s"]) is not None else "")
            )
        self.rows.append(row)
        (self.folder / "best.json").write_text(json.dumps(self.rows, indent=2))
        return row


__all__ = ["CONFIRM_SEED", "SELECTION_SEED", "KeepBest", "process_cpu_s", "training_cpu_s"]
