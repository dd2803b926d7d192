"""Real time in the original: N runs of ``qwop play``, each from a fresh page, with the machine
idle and with one core kept busy by another process; finished, best, median and the share of
decisions on time, per condition.

    python -m agents.bench.realtime --runs 10 [--busy] [--controller lookahead] [--csv docs/data/realtime.csv]
    python -m agents.bench.realtime --quick     # a smoke run: one run each, in the simulator's page

The busy core is a plain busy loop in a process of its own (as a training run or a search on
the other core would be). Each condition runs ``qwop play --episodes N --out DIR``; its
report.json gives the figures. ``--csv`` appends one row per run (date, condition, run, time,
finished, decisions on time, controller) for the results page's plot (``python tools/plot_results.py``).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agents.exits import user_errors_in_one_line
from agents.realtime.controllers import KINDS
from agents.shipped import OPENING
from agents.usage import OneLineParser, positive_int
from sim_env.errors import UserInputError
from sim_env.files import check_out_folders, write_text

BUSY_LOOP = "while True: pass"
CSV_HEADER = "date,condition,run,time_s,finished,on_time_share,controller"


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m agents.bench.realtime", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=positive_int, default=10, help="runs per condition, each from a fresh page")
    ap.add_argument("--busy", action="store_true", help="also with one core kept busy by another process")
    ap.add_argument("--model", help="the model qwop play uses (default: the shipped one)")
    ap.add_argument(
        "--controller",
        choices=KINDS,
        default="plan",
        help="qwop play's planner in the loop (the default) or its lookahead (--no-plan)",
    )
    ap.add_argument(
        "--no-opening", action="store_true", help="the planner without the shipped opening (qwop play --no-opening)"
    )
    ap.add_argument("--game", help="folder with your copy of the original (default: the default game folder)")
    ap.add_argument("--csv", help="append one row per run to this CSV file")
    ap.add_argument("--quick", action="store_true", help="a smoke run: one run per condition, in the simulator")
    return ap


def play(runs: int, out: Path, model: str | None, game: str | None, quick: bool, controller: str) -> dict[str, Any]:
    """``qwop play`` for ``runs`` episodes into ``out``; its report."""
    cmd = [sys.executable, "-m", "agents.cli", "play", "--episodes", str(runs), "--out", str(out)]
    cmd += (
        ["--no-plan"] if controller == "lookahead" else ["--plan"] + (["--no-opening"] if controller == "plan" else [])
    )
    cmd += [model] if model else []
    cmd += ["--sim", "--late", "0.02"] if quick else (["--game", game] if game else [])
    done = subprocess.run(cmd, stdin=subprocess.DEVNULL)
    if done.returncode != 0 or not (out / "report.json").is_file():
        raise UserInputError(f"qwop play ended with exit code {done.returncode}; see its message above")
    return json.loads((out / "report.json").read_text())


def condition(
    name: str, runs: int, out: Path, model: str | None, game: str | None, quick: bool, controller: str
) -> dict[str, Any]:
    busy = subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) if name == "busy" else None
    try:
        time.sleep(1.0 if busy else 0.0)  # the loop has its core before the first page opens
        return play(runs, out / name, model, game, quick, controller)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()


def row(name: str, r: dict[str, Any]) -> str:
    best = f"{r['best_finish_time_s']:.2f} s" if r.get("best_finish_time_s") else "-"
    median = f"{r['median_finish_time_s']:.2f} s" if r.get("median_finish_time_s") else "-"
    finished = sum(bool(f) for f in r["finished"])
    on_time = f"{r['on_time_decisions']:,} of {r['decisions']:,} ({r['on_time_share']:.1%})"
    return f"| {name} | {finished} of {len(r['finished'])} | {best} | {median} | {on_time} |"


def check_csv(path: Path) -> None:
    """A CSV to append to has this benchmark's columns (or does not exist yet)."""
    if path.exists() and path.read_text().split("\n", 1)[0] != CSV_HEADER:
        raise UserInputError(f"--csv {path} has other columns than {CSV_HEADER}; choose a new file")


def append_rows(path: Path, reports: dict[str, dict[str, Any]], controller: str) -> Path:
    """One row per run appended to the CSV ``path`` (made with its header if new), the file
    written whole (sim_env.files)."""
    check_csv(path)
    old = path.read_text() if path.exists() else CSV_HEADER + "\n"
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    for c, r in reports.items():
        for i, (t, fin) in enumerate(zip(r["times_s"], r["finished"], strict=True)):
            w.writerow([time.strftime("%Y-%m-%d"), c, i, f"{t:.2f}", int(bool(fin)), r["on_time_share"], controller])
    return write_text(path, old + out.getvalue())


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    runs = 1 if args.quick else args.runs
    if args.no_opening and args.controller != "plan":
        ap.error("--no-opening is the planner's (--controller plan)")
    # the CSV's controller column: the planner is "plan+opening" when it follows the shipped opening
    if args.controller == "plan" and not args.no_opening and OPENING.is_file():
        args.controller = "plan+opening"
    conditions = ["idle", "busy"] if args.busy or args.quick else ["idle"]

    def body() -> int:
        check_out_folders(args.csv)  # before the runs, not after them
        if args.csv:
            check_csv(Path(args.csv))
        with tempfile.TemporaryDirectory(prefix="qwop-realtime-") as tmp:
            reports = {
                c: condition(c, runs, Path(tmp), args.model, args.game, args.quick, args.controller) for c in conditions
            }
        print("| machine | finished | best | median (a fall as slowest) | decisions on time |")
        print("| --- | --- | --- | --- | --- |")
        for c, r in reports.items():
            print(row("idle" if c == "idle" else "one core kept busy by another process", r))
        if args.csv:
            print(f"rows appended to {append_rows(Path(args.csv), reports, args.controller)}")
        return 0

    return user_errors_in_one_line(body)


if __name__ == "__main__":
    sys.exit(main())
