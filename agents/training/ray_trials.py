"""Training trials on Ray: ``qwop train --ray ADDRESS|local --seeds N``.

N seeds of a configuration, or of every point of a small grid, each a Ray task (one trial) that
runs ``qwop train``'s whole chain of stages in a run folder of its own:
``runs/NAME/TRIAL/`` (``seed0``, ``seed1``, ... or ``learning_rate=0.0001-seed0``, ...). A
``--set`` whose value is a list, for a parameter that is not a list, is an axis of the grid:
``--set algo.learning_rate=[1e-4,3e-4] --seeds 2`` runs four trials (for a list parameter,
give a list of lists: ``--set policy.net_arch=[[256,128],[128,128]]``).

The record recipe's outcome varies a lot from seed to seed; on a cluster, this is how a user
finds a record model in the time one run takes. Each trial takes the CPUs its run uses (two
with ``batch.async_actor``). As trials end, each gets a row in ``runs/NAME/trials.json`` and
on the console: its steps and speed, the fastest model it kept (``run.best_every``) with its
share of noisy starts finished, and its final evaluation. A trial that fails is reported with
its error and the others go on. At the end the best model of all (the fastest kept from the
standard start; without one, the best final evaluation) is copied to ``runs/NAME/best.zip``
from the trial's own result, so it is kept even when the trials ran on other machines.

Ctrl-C stops every trial as ``qwop train`` stops: each saves its model and replay buffer in
its own folder.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agents.training.config import TrainConfig, from_dict, parse_override
from agents.training.model_files import model_sidecar
from agents.training.train import summarize, train
from sim_env.errors import UserInputError, one_line
from sim_env.files import write_json, write_text, write_whole
from sim_env.interrupts import StopRequest

_STOP_WAIT_S = 180.0  # how long stopped trials get to save their models


@dataclass(frozen=True)
class Trial:
    name: str  # its run folder under runs/NAME
    overrides: dict[str, dict[str, Any]]  # section -> key -> value, over the base configuration


def plan(sets: list[str], seeds: int, first_seed: int) -> tuple[list[str], list[Trial]]:
    """Splits ``--set`` items into single values and grid axes; returns the single ones and
    the trials (every grid point with every seed)."""
    if seeds < 1:
        raise UserInputError(f"--seeds must be at least 1, got {seeds}")
    defaults = TrainConfig().to_dict()
    fixed: list[str] = []
    axes: list[tuple[str, str, list[Any]]] = []
    for item in sets:
        section, key, value = parse_override(item)
        default = defaults.get(section, {}).get(key)
        list_param = isinstance(default, list)
        if isinstance(value, list) and (not list_param or (value and all(isinstance(v, list) for v in value))):
            if not value:
                raise UserInputError(f"--set {item}: a grid axis needs at least one value")
            axes.append((section, key, value))
        else:
            fixed.append(item)
    trials = []
    for point in itertools.product(*[[(s, k, v) for v in values] for s, k, values in axes]):
        label = "-".join(f"{k}={_label(v)}" for _, k, v in point)
        for seed in range(first_seed, first_seed + seeds):
            overrides: dict[str, dict[str, Any]] = {"run": {"seed": seed}}
            for s, k, v in point:
                overrides.setdefault(s, {})[k] = v
            trials.append(Trial(f"{label}-seed{seed}" if label else f"seed{seed}", overrides))
    if len({t.name for t in trials}) < len(trials):  # values alike once shortened: number the points
        per = seeds
        trials = [replace(t, name=f"p{i // per}-{t.name}") for i, t in enumerate(trials)]
    return fixed, trials


def _label(value: Any) -> str:
    """A value as part of a folder name: lists joined by x, paths by their file's stem."""
    if isinstance(value, list):
        return "x".join(_label(v) for v in value)
    text = Path(value).stem if isinstance(value, str) and "/" in value else str(value)
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", text)[:40]


def trial_config(base: TrainConfig, trial: Trial, group: Path) -> TrainConfig:
    """The trial's configuration: the base with its grid point and seed, in ``group/NAME``."""
    data: dict[str, dict[str, Any]] = {}
    for section, values in trial.overrides.items():
        data[section] = dict(values)
    data.setdefault("run", {}).update(out_dir=str(group), name=trial.name, progress_bar=False)
    cfg = from_dict(data, base)
    if base.run.then:  # a chain's next stage keeps its absolute path
        cfg.run.then = base.run.then
    cfg.validate()
    return cfg


def _run_trial(cfg: TrainConfig) -> dict[str, Any]:
    """One trial, on a Ray worker: ``qwop train``'s chain; returns its outcome and best model."""
    log_path = Path(cfg.run.out_dir) / f"{cfg.run.name}.log"

    def log(line: str) -> None:
        log_path.parent.mkdir(parents=True, exist_ok=True)  # on another machine of the cluster too
        with log_path.open("a") as f:
            f.write(line + "\n")

    log(f"trial {cfg.run.name}: seed {cfg.run.seed}, {cfg.run.out_dir}/{cfg.run.name}")
    summary = train(cfg, log=log)
    log(summarize(summary))
    run_dir = Path(summary["run_dir"])
    kept_rows = []
    with contextlib.suppress(OSError, ValueError):
        kept_rows = [r for r in json.loads((run_dir / "best" / "best.json").read_text()) if r.get("kept")]
    fastest = min(kept_rows, key=lambda r: r["start_run_time_s"]) if kept_rows else None
    model = Path(fastest["model"]) if fastest else Path(summary["model"])
    report = summary.get("eval") or {}
    return {
        "status": "interrupted" if summary.get("interrupted") else "done",
        "run_dir": str(run_dir),
        "timesteps": summary["timesteps"],
        "steps_per_second": summary["steps_per_second"],
        "kept_start_run_time_s": fastest["start_run_time_s"] if fastest else None,
        "kept_success_rate": fastest["judged_success_rate"] if fastest else None,
        "eval_success_rate": report.get("success_rate"),
        "eval_median_finish_time_s": report.get("median_finish_time_s"),
        "model": str(model),
        "model_bytes": model.read_bytes(),
        "sidecar": model_sidecar(model).read_text(),
    }


def _rank(row: dict[str, Any]) -> tuple[float, float]:
    if row.get("kept_start_run_time_s") is not None:
        return (0.0, row["kept_start_run_time_s"])
    return (1.0, -(row.get("eval_success_rate") or 0.0))


def format_row(row: dict[str, Any]) -> str:
    if row["status"] == "failed":
        return f"| {row['trial']} | failed: {row['error']} | - | - | - | - |"
    kept = "-"
    if row.get("kept_start_run_time_s") is not None:
        kept = f"{row['kept_start_run_time_s']:.2f} s ({row['kept_success_rate']:.1%})"
    final = "-"
    if row.get("eval_success_rate") is not None:
        median = row.get("eval_median_finish_time_s")
        final = f"{row['eval_success_rate']:.0%}" + (f", median {median:.1f} s" if median is not None else "")
    return (
        f"| {row['trial']} | {row['status']} | {row['timesteps']:,} | {row['steps_per_second']:,} | {kept} | {final} |"
    )


HEADER = (
    "| trial | status | env steps | steps/s | fastest kept from the start (noisy starts finished) "
    "| final evaluation |\n| --- | --- | --- | --- | --- | --- |"
)


def run_trials(base: TrainConfig, trials: list[Trial], address: str, log: Any = print) -> dict[str, Any]:
    """Runs the trials on Ray; returns every trial's row and the best (also in ``runs/NAME``)."""
    from agents.ray_cluster import connect

    name = base.run.name or f"{base.algo.name}-ray-{time.strftime('%Y%m%d-%H%M%S')}"
    group = Path(base.run.out_dir) / name
    if group.exists() and any(group.iterdir()):
        raise UserInputError(f"{group} already exists and holds runs; choose another --name")
    configs = [trial_config(base, t, group) for t in trials]
    cpus = 2 if base.batch.async_actor else 1
    ray = connect(address)
    try:
        have = float(ray.cluster_resources().get("CPU", 0))
        if have < cpus:
            raise UserInputError(f"each trial needs {cpus} CPUs and the Ray cluster has {have:g}")
        group.mkdir(parents=True, exist_ok=True)
        log(f"{len(trials)} trials on Ray ({have:g} CPUs, {cpus} per trial) in {group}")
        remote = ray.remote(num_cpus=cpus, max_retries=0)(_run_trial)
        refs = {remote.remote(cfg): t for cfg, t in zip(configs, trials, strict=True)}
        interrupted: list[bool] = []
        rows = _collect(ray, refs, group, log, interrupted)
    finally:
        ray.shutdown()
    return {**_finish(rows, group, log), "interrupted": bool(interrupted)}


def _collect(ray: Any, refs: dict[Any, Trial], group: Path, log: Any, interrupted: list[bool]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    pending = list(refs)

    def take(ready: list[Any]) -> None:
        for ref in ready:
            trial = refs[ref]
            try:
                row = {"trial": trial.name, **ray.get(ref)}
            except Exception as exc:  # the trial's error (or its worker's death), in one line
                row = {"trial": trial.name, "status": "failed", "error": one_line(_cause(exc))}
            rows.append(row)
            log(format_row(row))
            public = [{k: v for k, v in r.items() if k != "model_bytes"} for r in rows]
            write_json(group / "trials.json", public)

    log(HEADER)
    # Ctrl-C and SIGTERM as a stop request (a handler of our own: a job started in the
    # background inherits SIGINT ignored, and Python then never raises KeyboardInterrupt)
    with StopRequest() as stop:
        while pending and not stop.requested:  # short waits: a stop request is seen between them
            ready, pending = ray.wait(pending, num_returns=1, timeout=1.0)
            take(ready)
        if stop.requested:
            interrupted.append(True)
        if pending:
            log(f"stopping {len(pending)} trials; each saves its model in its folder")
            for ref in pending:
                ray.cancel(ref)
            ready, pending = ray.wait(pending, num_returns=len(pending), timeout=_STOP_WAIT_S)
            take(ready)
            if pending:
                log(f"{len(pending)} trials did not stop in time: see their folders in {group}")
    return rows


def _cause(exc: Exception) -> BaseException:
    """A Ray task error's own cause (what the trial raised), else the error itself."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


def _finish(rows: list[dict[str, Any]], group: Path, log: Any) -> dict[str, Any]:
    ok = [r for r in rows if r["status"] != "failed" and r.get("model_bytes")]
    best = min(ok, key=_rank) if ok else None
    if best is not None:
        path = group / "best.zip"
        write_whole(path, lambda f: f.write(best["model_bytes"]))
        write_text(model_sidecar(path), best["sidecar"])
        log(f"best of {len(rows)} trials: {best['trial']} ({best['model']}), copied to {path}")
    public = [{k: v for k, v in r.items() if k != "model_bytes"} for r in rows]
    result = {"trials": public, "best": None if best is None else best["trial"], "folder": str(group)}
    write_json(group / "trials.json", public)
    return result


__all__ = ["HEADER", "Trial", "format_row", "plan", "run_trials", "trial_config"]
