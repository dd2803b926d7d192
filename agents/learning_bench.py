"""Benchmark of learning: distance reached after fixed CPU budgets on this machine class.

    python -m agents.learning_bench --minutes 10 60 [--config FILE] [--out runs/learning]

One training run (the default configuration unless --config) is evaluated and saved at
each wall-clock budget; the script prints a table of budget, env steps, and the mean and
best distance of the evaluation (32 episodes with random starts, 120 s each).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from stable_baselines3.common.callbacks import BaseCallback

from agents.config import load_config
from agents.evaluate import evaluate_sim, format_report
from agents.model_files import save_model
from agents.train import build_model


class Marks(BaseCallback):
    def __init__(self, minutes: list[float], out: Path, cfg, log) -> None:
        super().__init__()
        self.marks = sorted(minutes)
        self.out = out
        self.cfg = cfg
        self.log = log
        self.t0 = time.monotonic()
        self.rows: list[dict] = []

    def _on_step(self) -> bool:
        elapsed = (time.monotonic() - self.t0) / 60.0
        while self.marks and elapsed >= self.marks[0]:
            m = self.marks.pop(0)
            path = save_model(self.model, self.out / f"after_{m:g}min.zip", self.cfg)
            report = evaluate_sim(path, episodes=32, num_threads=1)
            row = {
                "minutes": m,
                "timesteps": int(self.num_timesteps),
                **{k: v for k, v in report.items() if k != "best_keys"},
            }
            self.rows.append(row)
            (self.out / "learning.json").write_text(json.dumps(self.rows, indent=2))
            self.log(f"after {m:g} min ({self.num_timesteps:,} steps): {format_report(report)}")
        return bool(self.marks)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.learning_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, nargs="+", default=[10.0, 60.0])
    ap.add_argument("--config")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--out", default="runs/learning")
    args = ap.parse_args(argv)
    import torch

    from sim_env.sb3 import make_sb3_vec

    cfg = load_config(args.config, args.set)
    torch.set_num_threads(cfg.run.torch_threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = make_sb3_vec(cfg.batch.num_envs, cfg.batch.num_threads, **cfg.env_options())
    env.seed(cfg.run.seed)
    model = build_model(cfg, env, None)
    marks = Marks(args.minutes, out, cfg, lambda s: print(s, flush=True))
    model.learn(total_timesteps=10**12, callback=marks)
    print("\n| CPU budget | env steps | mean distance | best distance | success |")
    print("| --- | --- | --- | --- | --- |")
    for r in marks.rows:
        print(
            f"| {r['minutes']:g} min | {r['timesteps']:,} | {r['mean_distance_m']:.1f} m "
            f"| {r['best_distance_m']:.1f} m | {r['success_rate']:.0%} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
