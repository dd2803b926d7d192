"""Draw the results page's plots (docs/img/*.png) from measured data and the shipped runs.

    python tools/plot_results.py [--out docs/img]

- learning.png: median finish time against training CPU-minutes, the record recipe against
  plain PPO (docs/data/learning.csv, from ``python -m agents.bench.learning``).
- search.png: the planner's best finish against CPU-minutes, guided and unguided
  (docs/data/search.csv, from ``python -m agents.bench.search``).
- realtime.png: the finish time of every real-time run in the original (the opening then the
  planner in the loop, the planner alone, the lookahead), the machine idle and with one core
  busy (docs/data/realtime.csv, from ``python -m agents.bench.realtime``).
- splits.png: split times per 10 m of the best runs: the planner's records
  (agents/records/) and the shipped agent's run from the standard start, replayed in the
  simulator here.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "data"
HUMAN_RECORD_S = 45.53  # kurodo1916, real time, keyboard (speedrun.com)


def _rows(name: str) -> list[dict[str, str]]:
    with open(DATA / name, newline="") as f:
        return list(csv.DictReader(f))


def learning(out: Path) -> Path:
    rows = _rows("learning.csv")
    fig, ax = plt.subplots(figsize=(7, 4))
    series = {
        "record recipe (prioritised double DQN, speed reward)": [r for r in rows if r["agent"] == "recipe, fourth run"],
        "plain PPO (progress reward)": [r for r in rows if r["agent"].startswith("plain PPO")],
    }
    for label, rs in series.items():
        by_cpu = {int(r["cpu_minutes"]): r for r in rs if r["median_finish_s"]}  # later rows win
        x = sorted(by_cpu)
        ax.plot(x, [float(by_cpu[c]["median_finish_s"]) for c in x], "o-", label=f"{label}, median")
        ax.plot(x, [float(by_cpu[c]["best_finish_s"]) for c in x], ".--", alpha=0.6, label=f"{label}, best")
    ax.axhline(HUMAN_RECORD_S, color="grey", lw=0.8, ls=":", label="human world record (45.53 s)")
    ax.set(xlabel="training CPU-minutes", ylabel="finish time over 32 noisy starts (s)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return _save(fig, out / "learning.png")


def search(out: Path) -> Path:
    rows = _rows("search.csv")
    fig, ax = plt.subplots(figsize=(7, 6))
    for name in dict.fromkeys(r["search"] for r in rows):
        rs = [r for r in rows if r["search"] == name and r["best_finish_s"]]
        ax.plot([float(r["cpu_minutes"]) for r in rs], [float(r["best_finish_s"]) for r in rs], "o-", label=name)
    ax.axhline(HUMAN_RECORD_S, color="grey", lw=0.8, ls=":", label="human world record (45.53 s)")
    ax.set(xscale="log", xlabel="search CPU-minutes", ylabel="best finish (s)")
    # below the axes: the series are many and their lines close together
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    ax.grid(alpha=0.3, which="both")
    return _save(fig, out / "search.png")


def splits(out: Path) -> Path:
    import sim_env
    from agents.shipped import PRETRAINED, RECORDS
    from agents.training.evaluate import evaluate_sim
    from demos.format import load_demo
    from sim_env.traces import split_times

    runs = {}
    for path in sorted(RECORDS.glob("*.npz")):
        demo = load_demo(path)
        runs[f"planner record {path.stem.split('_')[-1]}"] = sim_env.replay(demo.events[1:].astype(np.int8))
    agent = evaluate_sim(PRETRAINED, episodes=1, start_noise_updates=0)
    runs["shipped agent, closed loop"] = sim_env.replay(np.array(agent["best_keys"], dtype=np.int8))
    fig, ax = plt.subplots(figsize=(7, 4))
    metres = np.arange(10, 101, 10)
    for name, run in sorted(runs.items(), key=lambda kv: -kv[1]["score_time"][-1]):
        t = np.array(split_times(run))
        ax.plot(metres, np.diff(np.concatenate([[0.0], t])), "o-", label=f"{name} ({t[-1]:.2f} s)")
    ax.set(xlabel="10 m split ending at (m)", ylabel="time for the 10 m (s)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return _save(fig, out / "splits.png")


def _latest_measurement(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows of the last benchmark run among ``rows`` (in file order): each run's rows
    start at run 0."""
    starts = [i for i, r in enumerate(rows) if r["run"] == "0"]
    return rows[starts[-1] :] if starts else []


def realtime(out: Path) -> Path:
    rows = _rows("realtime.csv")
    fig, ax = plt.subplots(figsize=(7, 4))
    last = max(r["date"] for r in rows)
    shown = (
        ("plan+opening", "opening, then the planner", "full"),
        ("plan", "planner in the loop", "left"),
        ("lookahead", "lookahead", "none"),
    )
    for controller, what, fill in shown:
        for name, marker in (("idle", "o"), ("busy", "s")):
            rs = _latest_measurement([r for r in rows if r["condition"] == name and r["controller"] == controller])
            label = f"{what}, {'idle' if name == 'idle' else 'one core kept busy'}"
            fin = [r for r in rs if r["finished"] == "1"]
            if fin:
                ax.plot(
                    [int(r["run"]) + 1 for r in fin],
                    [float(r["time_s"]) for r in fin],
                    marker,
                    fillstyle=fill,
                    label=label,
                )
            fell = [r for r in rs if r["finished"] != "1"]
            if fell:
                ax.plot(
                    [int(r["run"]) + 1 for r in fell], [HUMAN_RECORD_S + 8] * len(fell), "x", label=f"{label}, fell"
                )
    ax.axhline(HUMAN_RECORD_S, color="grey", lw=0.8, ls=":", label="human world record (45.53 s)")
    ax.axhline(40.0, color="grey", lw=0.6, ls="--")
    ax.set(xlabel=f"run (each from a fresh page, {last})", ylabel="100 m in the original, real time (s)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return _save(fig, out / "realtime.png")


def _save(fig: plt.Figure, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "img"), help="folder for the PNGs (default docs/img)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for draw in (learning, search, splits, realtime):
        print(f"wrote {draw(out)}")  # every plot's data is in the repository (docs/data/, agents/records/)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
