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
``run.best_click = U`` judges from a real-time page's start (the click in intro update U)
instead, and with ``run.best_both`` from both starts: a model's time is then the slower of its
two runs, and each half of its noisy starts (after either start) must pass the bar.

This is model selection in the simulator (no browser), as
SB3's ``EvalCallback`` keeps ``best_model.zip``.

The run folder gets ``best/``: every kept model as ``best/start_<time>s_<steps>.zip`` (with
its sidecar), ``best/best.zip`` (a copy of the latest kept), and ``best/best.json`` (one row
per model looked at more closely: start run and noisy evaluation), and ``best/looks.csv``: every
look, its env steps and its time from the standard start (empty for a run that did not finish),
so the spread a run's models have from the start is on record, not only the ones kept.
"""

from __future__ import annotations

import multiprocessing
import resource
import time
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from agents.training.config import TrainConfig
from agents.training.evaluate import evaluate_policy_sim, evaluate_start_run
from agents.training.model_files import model_sidecar, save_model
from sim_env.files import copy_whole, write_json


def process_cpu_s() -> float:
    """CPU seconds of this process so far and of its child processes that ended."""
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ended.ru_utime + ended.ru_stime


def training_cpu_s() -> float:
    """``process_cpu_s`` and that of the child processes still running (a run's actor and judge)."""
    import psutil

    total = process_cpu_s()
    for child in multiprocessing.active_children():
        try:
            used = psutil.Process(child.pid).cpu_times()
        except psutil.Error:  # it ended meanwhile (then counted by process_cpu_s from its join on)
            continue
        total += used.user + used.system
    return total


SELECTION_SEED = 1  # the screen's noisy starts; evaluations use seed 0
CONFIRM_SEED = 2


class ModelJudge:
    """The verdicts on the models a run looks at: the fastest from the standard start among
    those finishing at least ``min_success`` of ``episodes`` noisy starts (and of
    ``confirm_episodes`` more); under ``target`` seconds, the most reliable (see the module).
    Kept models are saved in ``folder``, every verdict is a row of ``folder/best.json``."""

    def __init__(
        self,
        cfg: TrainConfig,
        folder: Path,
        min_success: float,
        episodes: int,
        confirm_episodes: int = 0,
        target: float = 0.0,
    ) -> None:
        self.cfg = cfg
        self.folder = folder
        self.min_success = min_success
        self.episodes = episodes
        self.confirm_episodes = confirm_episodes
        self.target = target
        self.best_time: float | None = None
        self.best_rate: float | None = None  # the latest kept model's share of judged starts finished
        self.rows: list[dict[str, Any]] = []
        self.looks = 0  # models looked at (their run from the start)
        self.fastest_look: float | None = None  # the fastest of those runs, kept or not

    def _phase_two(self) -> bool:
        """A kept model already runs under the target: from now on reliability counts."""
        return self.target > 0 and self.best_time is not None and self.best_time < self.target

    def starts(self) -> list[tuple[int, ...]]:
        """Where a model's runs begin: the traces' start ``()``, or after the click in update U
        ``(U, U)`` (``run.best_click``), or both (``run.best_both``)."""
        click = self.cfg.run.best_click
        if not click:
            return [()]
        return [(), (click, click)] if self.cfg.run.best_both else [(click, click)]

    def _noisy(self, model: Any, options: dict[str, Any], episodes: int, seed: int, bar: float) -> dict[str, Any]:
        """Noisy starts after each of :meth:`starts`, ``episodes`` shared among them; each share
        must finish ``bar`` of its episodes (stopped once it cannot)."""
        starts = self.starts()
        share = max(1, episodes // len(starts))
        reports = []
        for s in starts:
            r = evaluate_policy_sim(model, options, episodes=share, seed=seed, min_success=bar, start_click=s)
            reports.append(r)
            if r.get("below"):
                break
        medians = [r["median_finish_time_s"] for r in reports]
        bests = [r["best_finish_time_s"] for r in reports if r["best_finish_time_s"] is not None]
        out = {
            "success_rate": min(r["success_rate"] for r in reports),
            "median_finish_time_s": None if None in medians else max(medians),
            "best_finish_time_s": min(bests) if bests else None,
            "episodes": sum(r["episodes"] for r in reports),
        }
        if any(r.get("below") for r in reports):
            out["below"] = True
        return out

    def _looked(self, meta: dict[str, Any], t: float | None) -> None:
        """Counts a look and appends it to ``looks.csv`` (a line each: one write, nothing rewritten)."""
        self.looks += 1
        if t is not None and (self.fastest_look is None or t < self.fastest_look):
            self.fastest_look = t
        self.folder.mkdir(parents=True, exist_ok=True)
        log = self.folder / "looks.csv"
        line = f"{int(meta['timesteps'])},{'' if t is None else f'{t:.2f}'}\n"
        with log.open("a", encoding="utf-8") as f:
            f.write(("timesteps,start_run_time_s\n" if f.tell() == 0 else "") + line)

    def status(self) -> str:
        """What the judge has seen, for the progress line."""
        if not self.looks:
            return ""
        fastest = f", fastest {self.fastest_look:.2f} s" if self.fastest_look is not None else ""
        kept = f", kept {self.best_time:.2f} s" if self.best_time is not None else ""
        return f"best/: {self.looks:,} looks{fastest}{kept}"

    def judge(self, model: Any, meta: dict[str, Any]) -> dict[str, Any] | None:
        """Judges ``model`` (made at ``meta["timesteps"]``); returns its row (``meta`` and the
        verdict) if it was looked at closely, None if its start run already ruled it out."""
        times = []
        options = self.cfg.env_options()
        for s in self.starts():
            start = evaluate_start_run(model, options, s)
            if not start["best_run_finished"]:
                self._looked(meta, None)
                return None
            times.append(float(start["best_run_time_s"]))
        t = max(times)  # with two starts, the slower run is the model's
        self._looked(meta, t)
        bar = self.min_success
        if self._phase_two():
            if t >= self.target:
                return None
            bar = max(bar, self.best_rate or 0.0)
        elif self.best_time is not None and t >= self.best_time:
            return None
        # Stopped as soon as the bar is out of reach: the same verdict, a fraction of the work.
        noisy = self._noisy(model, options, self.episodes, SELECTION_SEED, bar)
        click = self.cfg.run.best_click
        row = {
            **meta,
            "start_run_time_s": t,
            **({"click_update": click} if click else {}),
            **({"start_run_times_s": times} if len(times) > 1 else {}),
            "success_rate": noisy["success_rate"],
            "median_finish_time_s": noisy["median_finish_time_s"],
            "best_finish_time_s": noisy["best_finish_time_s"],
            "kept": noisy["success_rate"] >= bar,
        }
        if noisy.get("below"):
            row["screen_episodes"] = noisy["episodes"]  # stopped once the bar was out of reach
        n, rate = self.episodes, noisy["success_rate"]
        if row["kept"] and self.confirm_episodes > 0:
            again = self._noisy(model, options, self.confirm_episodes, CONFIRM_SEED, self.min_success)
            row["confirm_success_rate"] = again["success_rate"]
            row["confirm_median_finish_time_s"] = again["median_finish_time_s"]
            row["kept"] = again["success_rate"] >= self.min_success
            n += self.confirm_episodes
            rate = (noisy["success_rate"] * self.episodes + again["success_rate"] * self.confirm_episodes) / n
        if row["kept"] and self._phase_two():
            row["kept"] = rate > (self.best_rate or 0.0)
        row["judged_success_rate"] = rate
        row["judged_episodes"] = n
        self.folder.mkdir(parents=True, exist_ok=True)
        if row["kept"]:
            self.best_time, self.best_rate = t, rate
            path = save_model(model, self.folder / f"start_{t:.2f}s_{int(meta['timesteps'])}.zip", self.cfg)
            # best.zip is replaced whole: a run stopped at any moment leaves a model that loads
            best = self.folder / "best.zip"
            for src, dst in ((path, best), (model_sidecar(path), model_sidecar(best))):
                copy_whole(src, dst)
            row["model"] = str(path)
        row["judged_clock"] = time.time()
        self.rows.append(row)
        write_json(self.folder / "best.json", self.rows)
        return row


def kept_line(row: dict[str, Any]) -> str:
    """The log line for a kept model's row."""
    median = row["median_finish_time_s"]
    start = f"a click in update {row['click_update']}" if row.get("click_update") else "the start"
    if "start_run_times_s" in row:  # judged from both starts
        start = f"the start and {row['start_run_times_s'][1]:.2f} s from {start}"
        run_time = row["start_run_times_s"][0]
    else:
        run_time = row["start_run_time_s"]
    return (
        f"kept {Path(row['model']).name}: {run_time:.2f} s from {start}; "
        f"{row['judged_success_rate']:.1%} of {row['judged_episodes']} noisy starts finish"
        + (f", median {median:.1f} s" if median is not None else "")
    )


class KeepBest(BaseCallback):
    """Looks at the run every ``every`` env steps and has a :class:`ModelJudge` keep the best
    models in ``folder``: in this process, the learner waiting, or with ``in_process=False``
    in a judge process beside it (agents/training/judge.py), the learner going on."""

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
        in_process: bool = True,
    ) -> None:
        super().__init__()
        self.judge = ModelJudge(cfg, folder, min_success, episodes, confirm_episodes, target)
        self.every = every
        self.log = log
        self.in_process = in_process
        self.process: Any = None  # the judge process (agents.training.judge.JudgeProcess)
        self._next = 0
        self._wall0, self._cpu0, self._steps0 = time.monotonic(), process_cpu_s(), 0

    def _on_training_start(self) -> None:
        self._next = int(self.model.num_timesteps) + self.every
        self._wall0, self._cpu0 = time.monotonic(), training_cpu_s()
        self._steps0 = int(self.model.num_timesteps)
        if not self.in_process:
            from agents.training.judge import JudgeProcess

            self.process = JudgeProcess(self.judge, self.model)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next = int(self.num_timesteps) + self.every
            self.look()
        elif self.process is not None:
            self._take(self.process.poll())
        return True

    def _on_training_end(self) -> None:
        if self.process is not None:
            process, self.process = self.process, None
            self._take(process.finish(self.log))
            if process.failure:
                self.log(f"{process.failure}; the last models looked at were not judged")

    def close(self) -> None:
        """Stops a judge process at once (the run failed), dropping what it had not judged."""
        if self.process is not None:
            self.process.close()
            self.process = None

    def _meta(self) -> dict[str, Any]:
        cpu = training_cpu_s()
        return {
            "timesteps": int(self.num_timesteps),
            # since this run (or stage, or resume) began to train; clock: the epoch, for spans across stages
            "steps": int(self.num_timesteps) - self._steps0,
            "wall_s": round(time.monotonic() - self._wall0, 1),
            "cpu_s": round(cpu - self._cpu0, 1),
            "clock": time.time(),
            "process_cpu_s": cpu,
        }

    def _take(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            if row.get("kept"):
                self.log(kept_line(row))
        if self.process is not None and not self.process.alive:
            self.log(f"{self.process.failure}; judging in the learner from now on")
            self.process.close()
            self.process = None

    def look(self) -> dict[str, Any] | None:
        """Judges the model as it is now: returns its row if it was looked at closely (in a
        judge process: hands the model over and returns None; its row comes back later)."""
        if self.process is not None:
            self.process.submit(self.model, self._meta())
            self._take(self.process.poll())
            return None
        row = self.judge.judge(self.model, self._meta())
        if row is not None:
            self._take([row])
        return row


__all__ = ["CONFIRM_SEED", "SELECTION_SEED", "KeepBest", "ModelJudge", "kept_line", "process_cpu_s", "training_cpu_s"]
