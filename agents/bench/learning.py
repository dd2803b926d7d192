"""Benchmark of learning: what a training run reaches after fixed CPU budgets on this machine.

    python -m agents.bench.learning --minutes 10 60 120 [--config FILE] [--set k=v] [--out DIR]

One training run (the default configuration unless --config) is evaluated and saved at
each budget of CPU-minutes (the process's CPU time spent training, all threads, evaluation
excluded; ``--clock wall`` counts wall-clock minutes instead). The table gives the env steps
and the env steps per second the learner consumed, and the evaluation's (32 episodes with
random starts, 120 s each) success rate, median and best finish time, and mean distance, and
the run from the standard start without noise (the one the original replays closed loop),
and, when the configuration keeps the best model (``run.best_every``, as the record recipe
does), the fastest kept so far (its run from the start and its share of noisy starts
finished; the looks count as training time).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from stable_baselines3.common.callbacks import BaseCallback

from agents.training.config import load_config
from agents.training.evaluate import evaluate_sim, evaluate_start_run, format_report
from agents.training.model_files import save_model
from agents.training.resumed import resume_base
from agents.training.train import train
from agents.usage import OneLineParser, minutes_float
from sim_env.files import write_json


class Marks(BaseCallback):
    def __init__(self, minutes: list[float], out: Path, cfg, log, clock: str = "cpu") -> None:
        super().__init__()
        self.marks = sorted(minutes)
        self.out = out
        self.cfg = cfg
        self.log = log
        self.clock = time.process_time if clock == "cpu" else time.monotonic
        self.t0 = self.clock()
        self.paused = 0.0  # evaluation time, not counted
        self.rows: list[dict] = []
        self.steps0 = 0  # a resumed model's steps before this run

    def _on_training_start(self) -> None:
        self.steps0 = int(self.model.num_timesteps)

    def _on_step(self) -> bool:
        elapsed = (self.clock() - self.t0 - self.paused) / 60.0
        while self.marks and elapsed >= self.marks[0]:
            m = self.marks.pop(0)
            e0 = self.clock()
            path = save_model(self.model, self.out / f"after_{m:g}min.zip", self.cfg)
            report = evaluate_sim(path, episodes=32, num_threads=1)
            start = evaluate_start_run(self.model, self.cfg.env_options())
            self.paused += self.clock() - e0
            row = {
                "minutes": m,
                "clock": "CPU" if self.clock is time.process_time else "wall",
                "timesteps": int(self.num_timesteps) - self.steps0,
                "steps_per_s": round((self.num_timesteps - self.steps0) / max(1e-9, elapsed * 60.0)),
                **{k: v for k, v in report.items() if k != "best_keys"},
                "start_run_finished": start["best_run_finished"],
                "start_run_time_s": start["best_run_time_s"],
                "start_run_distance_m": start["best_run_distance_m"],
                **_kept_so_far(self.out / "run" / "best" / "best.json"),
            }
            self.rows.append(row)
            write_json(self.out / "learning.json", self.rows)
            self.log(f"after {m:g} min ({self.num_timesteps - self.steps0:,} steps): {format_report(report)}")
        return bool(self.marks)


def _kept_so_far(path: Path) -> dict:
    """The fastest model the run kept so far (``run.best_every``), if it keeps any."""
    try:
        kept = [r for r in json.loads(path.read_text()) if r["kept"]]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    if not kept:
        return {}
    k = kept[-1]
    return {"kept_start_run_time_s": k["start_run_time_s"], "kept_success_rate": k["success_rate"]}


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m agents.bench.learning", description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=minutes_float, nargs="+", default=[10.0, 60.0])
    ap.add_argument("--config")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--out", default="runs/learning")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="budgets in CPU-minutes or wall minutes")
    ap.add_argument("--resume", metavar="CHECKPOINT", help="go on training this model (budgets count from here)")
    ap.add_argument(
        "--to-record",
        action="store_true",
        help="time to record: the config's whole chain on the wall clock (agents/bench/time_to_record.py)",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)

    # a resumed model's own [algo] options, under what the config and --set give
    cfg = load_config(args.config, args.set, base=resume_base(args.resume) if args.resume else None)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.to_record:
        from agents.bench.time_to_record import run as time_to_record

        time_to_record(cfg, args.minutes, out, log=lambda s: print(s, flush=True))
        return 0
    marks = Marks(args.minutes, out, cfg, lambda s: print(s, flush=True), clock=args.clock)
    # `qwop train` itself (behaviour cloning, demo injection, RND as configured), stopped by
    # the last budget (marks); its schedules run over run.total_timesteps
    run = replace(
        cfg.run,
        minutes=1e9,
        steps=0,
        then="",  # the marks measure this config alone, not the stages after it
        checkpoint_every=0,
        out_dir=str(out),
        name="run",
        progress_bar=False,
        eval_episodes=32,
    )
    train(replace(cfg, run=run), resume=args.resume, log=lambda s: print(s, flush=True), callbacks=[marks])
    print(format_table(marks.rows))
    return 0


def _t(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f} s"


def _start(r: dict) -> str:
    if "start_run_time_s" not in r:
        return "-"
    if r["start_run_finished"]:
        return f"{r['start_run_time_s']:.2f} s"
    return f"{r['start_run_distance_m']:.1f} m, no finish"


def format_table(rows: list[dict]) -> str:
    lines = [
        "| budget | env steps | steps/s | success | median finish | best finish | mean distance | from the start "
        "| kept so far |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        kept = "-"
        if "kept_start_run_time_s" in r:
            kept = f"{r['kept_start_run_time_s']:.2f} s ({r['kept_success_rate']:.0%})"
        lines.append(
            f"| {r['minutes']:g} {r.get('clock', 'wall')}-min | {r['timesteps']:,} | {r.get('steps_per_s', 0):,} "
            f"| {r['success_rate']:.0%} | {_t(r.get('median_finish_time_s'))} | {_t(r.get('best_finish_time_s'))} "
            f"| {r['mean_distance_m']:.1f} m | {_start(r)} | {kept} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    from agents.exits import user_errors_in_one_line

    raise SystemExit(user_errors_in_one_line(main, safe_point_stops=True))
