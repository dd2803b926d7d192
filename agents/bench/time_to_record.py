"""Time to record: how long a recipe takes, from scratch, to a model faster than the record.

    python -m agents.bench.learning --to-record --minutes 15 30 45 60 [--config FILE] [--set k=v]

Runs the configuration's whole chain of stages (``agents/recipes/record.toml``: from scratch,
then ``robust.toml`` from the model it kept) on the wall clock, and stops at the last mark.
Nothing is paused: the model screens of ``run.best_every`` count, as they do for a user.

At each mark: wall and CPU minutes (the training process and its actor process), the env
steps of all stages, and the fastest model kept so far (``run.best_every``): its run from the
standard start and its share of the judged noisy starts. At the end: the wall and CPU minutes
to the first kept model under the target (``run.best_target_s``) that finishes at least
``run.best_min_success`` of the ``run.best_confirm_episodes`` (512) noisy starts it was
confirmed on.

Before the run, a yardstick of the machine: one forward and backward pass of the config's
network over a batch of its size on one thread (median of 40). The same code has run this
benchmark's first minutes 1.7 times as fast on one day as on another, on the same machine;
the yardstick says which kind of day a figure comes from.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from agents.training.best_model import process_cpu_s, training_cpu_s
from agents.training.config import TrainConfig
from agents.training.train import train
from sim_env.files import write_json

_CHECK_S = 5.0  # how often the kept models are read back between marks


class BudgetSpentError(Exception):
    """The last wall-clock mark is reached: the chain of stages stops here."""


class WallMarks(BaseCallback):
    """Rows at wall-clock marks, over every stage of a chain (one instance runs in each)."""

    def __init__(self, minutes: list[float], target_s: float, min_success: float, log: Any) -> None:
        super().__init__()
        self.marks = sorted(minutes)
        self.target_s, self.min_success, self.log = target_s, min_success, log
        self.wall0, self.clock0 = time.monotonic(), time.time()
        self.cpu0 = process_cpu_s()
        self.stages: list[tuple[Path, int]] = []  # each stage's folder and the steps before it
        self.steps_before = 0
        self.rows: list[dict[str, Any]] = []
        self.record: dict[str, Any] | None = None
        self._checked = 0.0
        self._last_cpu = self.cpu0

    def _on_training_start(self) -> None:
        self.steps0 = int(self.model.num_timesteps)
        self.stages.append((Path(self.model.tensorboard_log).parent, self.steps_before))

    def steps(self) -> int:
        return self.steps_before + int(self.num_timesteps) - self.steps0

    def kept(self) -> list[dict[str, Any]]:
        """Every model kept so far, in every stage, with the env steps of the chain at it."""
        out = []
        for folder, before in self.stages:
            try:
                rows = json.loads((folder / "best" / "best.json").read_text())
            except (OSError, ValueError):
                continue
            out += [{**r, "chain_steps": before + r.get("steps", 0)} for r in rows if r.get("kept")]
        return sorted(out, key=lambda r: r.get("clock", 0.0))

    def _check_record(self) -> None:
        if self.record is not None:
            return
        for r in self.kept():
            confirmed = r.get("confirm_success_rate", r["success_rate"])
            if r["start_run_time_s"] < self.target_s and confirmed >= self.min_success:
                self.record = {
                    # when its verdict came (a judge process gives it some seconds after the look)
                    "wall_min": (r.get("judged_clock", r["clock"]) - self.clock0) / 60.0,
                    "cpu_min": (r["process_cpu_s"] - self.cpu0) / 60.0,
                    "env_steps": r["chain_steps"],
                    "start_run_time_s": r["start_run_time_s"],
                    "confirm_success_rate": confirmed,
                    "model": r.get("model"),
                }
                self.log(
                    f"record: {r['start_run_time_s']:.2f} s from the start, {confirmed:.1%} of noisy starts, "
                    f"after {self.record['wall_min']:.1f} wall-min ({self.record['cpu_min']:.1f} CPU-min)"
                )
                return

    def _on_step(self) -> bool:
        now = time.monotonic()
        if now - self._checked >= _CHECK_S:
            self._checked = now
            self._check_record()
        while self.marks and (now - self.wall0) / 60.0 >= self.marks[0]:
            self._check_record()
            self.add_row(self.marks.pop(0), training_cpu_s(), self.steps())
        if not self.marks:
            raise BudgetSpentError
        return True

    def _on_training_end(self) -> None:
        self.steps_before += int(self.model.num_timesteps) - self.steps0
        self._last_cpu = training_cpu_s()

    def add_row(self, minutes: float, cpu_s: float, steps: int, end: bool = False) -> None:
        kept = self.kept()
        fastest = min(kept, key=lambda r: r["start_run_time_s"]) if kept else None
        row = {
            "wall_min": round(minutes, 1),
            "cpu_min": round((cpu_s - self.cpu0) / 60.0, 1),
            "env_steps": steps,
            "stage": len(self.stages),
            "kept_start_run_time_s": fastest["start_run_time_s"] if fastest else None,
            "kept_success_rate": fastest["judged_success_rate"] if fastest else None,
        }
        if end:
            row["end"] = True  # the chain ended before the last mark
        self.rows.append(row)
        self.log(f"{'at the end, ' if end else 'after '}{row['wall_min']:g} wall-min: {format_row(row)}")

    def chain_ended(self) -> None:
        """The last row when every stage ended before the last mark."""
        if self.marks and self.stages:
            self._check_record()
            self.add_row((time.monotonic() - self.wall0) / 60.0, self._last_cpu, self.steps_before, end=True)


def format_row(r: dict[str, Any]) -> str:
    kept = "-"
    if r["kept_start_run_time_s"] is not None:
        kept = f"{r['kept_start_run_time_s']:.2f} s ({r['kept_success_rate']:.1%})"
    return f"{r['cpu_min']:.1f} CPU-min, {r['env_steps']:,} env steps, stage {r['stage']}, kept {kept}"


def format_table(rows: list[dict[str, Any]], record: dict[str, Any] | None, target_s: float) -> str:
    lines = [
        "| wall-min | CPU-min | env steps | stage | fastest kept: from the start (noisy starts finished) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        kept = "-"
        if r["kept_start_run_time_s"] is not None:
            kept = f"{r['kept_start_run_time_s']:.2f} s ({r['kept_success_rate']:.1%})"
        when = f"{r['wall_min']:g} (end)" if r.get("end") else f"{r['wall_min']:g}"
        lines.append(f"| {when} | {r['cpu_min']:.1f} | {r['env_steps']:,} | {r['stage']} | {kept} |")
    if record is None:
        lines.append(f"\nno model under {target_s:.2f} s with the noisy starts finished yet")
    else:
        lines.append(
            f"\nfirst model under {target_s:.2f} s: {record['start_run_time_s']:.2f} s from the start, "
            f"{record['confirm_success_rate']:.1%} of the confirming noisy starts, after {record['wall_min']:.1f} "
            f"wall-min ({record['cpu_min']:.1f} CPU-min, {record['env_steps']:,} env steps): {record['model']}"
        )
    return "\n".join(lines)


def yardstick_ms(cfg: TrainConfig, repeats: int = 40) -> float:
    """Milliseconds of one forward and backward pass of ``cfg``'s network over a batch of its
    size, one thread (median of ``repeats`` after 5 unmeasured)."""
    import torch

    from agents.training.safe_loading import spaces_of

    obs_space, action_space = spaces_of(cfg.env_options())
    from stable_baselines3.common.torch_layers import create_mlp

    act = torch.nn.ReLU if cfg.policy.activation == "relu" else torch.nn.Tanh
    n_in = int(obs_space.shape[0])
    net = torch.nn.Sequential(*create_mlp(n_in, int(action_space.n), list(cfg.policy.net_arch), act))
    x = torch.randn(int(getattr(cfg.algo, "batch_size", 1024)), n_in, generator=torch.Generator().manual_seed(0))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        times = []
        for i in range(repeats + 5):
            t0 = time.perf_counter()
            net(x).sum().backward()
            if i >= 5:
                times.append(time.perf_counter() - t0)
    finally:
        torch.set_num_threads(threads)
    return 1000.0 * statistics.median(times)


def run(cfg: TrainConfig, minutes: list[float], out: Path, log: Any = print) -> dict[str, Any]:
    """Trains ``cfg``'s chain into ``out/run`` until the last wall-clock mark; returns the rows
    and the record (also written to ``out/time_to_record.json``)."""
    target = cfg.run.best_target_s or 47.34
    yardstick = yardstick_ms(cfg)
    log(f"yardstick: the network's forward and backward over a batch, one thread: {yardstick:.2f} ms")
    marks = WallMarks(minutes, target, cfg.run.best_min_success, log)
    run_cfg = replace(cfg, run=replace(cfg.run, minutes=0.0, out_dir=str(out), name="run"))
    try:
        train(run_cfg, log=log, callbacks=[marks])
        marks.chain_ended()
    except BudgetSpentError:
        pass
    marks._check_record()
    result = {
        "rows": marks.rows,
        "record": marks.record,
        "target_s": target,
        "marks": minutes,
        "yardstick_ms": round(yardstick, 3),
    }
    write_json(out / "time_to_record.json", result)
    log(format_table(marks.rows, marks.record, target))
    return result


__all__ = ["BudgetSpentError", "WallMarks", "format_table", "run", "yardstick_ms"]
