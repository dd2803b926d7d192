"""Ctrl-C and SIGTERM lose nothing: a search stops after a whole stage and its resume is the
uninterrupted search; training saves its model and replay buffer and the command it suggests
continues it; an opening being planned keeps its decisions so far; the other commands take
SIGTERM as Ctrl-C (and save what they have)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.clitools import qwop
from tests.support import REPO

ROOT = REPO
SEARCH = ["--beam", "32", "--children", "8", "--seed", "3", "--threads", "1"]


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "agents.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
        stdin=subprocess.DEVNULL,
    )


def _wait_for(log: Path, pattern: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if re.search(pattern, log.read_text()):
            return
        assert proc.poll() is None, log.read_text()[-2000:]
        time.sleep(0.1)
    raise AssertionError(f"no {pattern!r} in {log.read_text()[-2000:]}")


def _search_state(path: Path) -> dict:
    with np.load(path) as z:
        meta = json.loads(str(z["meta"]))
        return {
            "meta": {k: meta[k] for k in ("stage", "best_time_s", "farthest_m", "updates", "restarts", "rng")},
            "beam": z["beam_keys_flat"].tobytes() + z["beam_key_lengths"].tobytes() + z["beam_line"].tobytes(),
            "history": z["history"].tobytes(),
            "best": z["best_keys"].tobytes() if "best_keys" in z else b"",
        }


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_search_resumes_into_the_uninterrupted_one(tmp_path: Path, sig: signal.Signals) -> None:
    budget = "1500000"
    whole = tmp_path / "whole" / "state.npz"
    whole.parent.mkdir()
    p = qwop("search", "--updates", budget, *SEARCH, "--state", str(whole), cwd=str(ROOT))
    assert p.returncode == 0, p.stderr[-2000:]

    cut = tmp_path / "cut" / "state.npz"
    cut.parent.mkdir()
    log = tmp_path / "search.log"
    proc = _start(["search", "--updates", budget, *SEARCH, "--state", str(cut)], log)
    _wait_for(log, r"updates/s", proc)  # searching, past the start
    time.sleep(0.5)
    proc.send_signal(sig)
    proc.communicate(timeout=120)
    err = log.read_text()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    again = re.search(r"continue with: (qwop search --resume \S+ --updates \d+)", err)
    assert again, err[-2000:]
    assert _search_state(cut)["meta"]["updates"] < int(budget)  # it was stopped part way
    args = shlex.split(again.group(1))[1:]
    p = qwop(*args, "--threads", "1", cwd=str(ROOT))
    assert p.returncode == 0, p.stderr[-2000:]
    assert _search_state(cut) == _search_state(whole)


@pytest.mark.slow
def test_interrupted_training_saves_the_model_and_its_resume_command_works(tmp_path: Path) -> None:
    pytest.importorskip("stable_baselines3")
    runs = tmp_path / "runs"
    log = tmp_path / "train.log"
    small = ["algo.buffer_size=20000", "run.best_every=0", "run.checkpoint_every=0", "run.eval_episodes=2"]
    args = ["train", "--algo", "dqn", "--steps", "100000000", "--name", "cut", "--set", f'run.out_dir="{runs}"']
    proc = _start(args + [x for s in small for x in ("--set", s)], log)
    end = time.monotonic() + 180
    while not (runs / "cut" / "config.toml").is_file():  # written once training has begun to set up
        assert proc.poll() is None and time.monotonic() < end, log.read_text()[-2000:]
        time.sleep(0.1)
    time.sleep(6)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=180)
    err = log.read_text()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    run = runs / "cut"
    assert (run / "interrupted.zip").is_file() and (run / "interrupted.qwop.json").is_file()
    assert (run / "interrupted_replay_buffer.npz").is_file()  # dqn learns off-policy: its buffer goes on
    steps = json.loads((run / "interrupted.json").read_text())["timesteps"]
    assert steps > 0
    command = re.search(r"continue with: (qwop train .*)$", err.strip().splitlines()[-1])
    assert command, err[-2000:]
    args = shlex.split(command.group(1))[1:]
    p = qwop(*args, "--steps", "256", cwd=str(ROOT), timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"resumed from {run / 'interrupted.zip'} at {steps} steps" in p.stdout + p.stderr
    assert (runs / "cut-continued" / "final.zip").is_file()


def test_an_interrupted_opening_keeps_the_decisions_made_so_far(tmp_path: Path) -> None:
    from agents.realtime.opening import load_opening

    out, log = tmp_path / "o.npz", tmp_path / "opening.log"
    proc = _start(["opening", "--beam", "8", "--out", str(out)], log)
    _wait_for(log, r"opening:\s+\d+%.*\d+\.\d game s", proc)  # deciding (the first beam grown)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    err = log.read_text()
    assert proc.returncode == 130 and "Traceback" not in err, err[-2000:]
    kept = re.search(r"interrupted \(SIGINT\): the (\d+) decisions made so far saved in (\S+)", err)
    assert kept and Path(kept.group(2)) == out, err[-2000:]
    opening = load_opening(out)
    assert len(opening.keys) == 4 * int(kept.group(1)) > 0 and opening.meta["stopped_by"] == "SIGINT"
    assert not opening.outcome()["finished"]


def test_sigterm_is_ctrl_c_for_the_other_commands(tmp_path: Path) -> None:
    code = (
        "import time\n"
        "from sim_env.interrupts import TerminateAsInterrupt\n"
        "with TerminateAsInterrupt():\n"
        "    try:\n"
        "        print('ready', flush=True); time.sleep(60)\n"
        "    except KeyboardInterrupt:\n"
        "        print('saved what it had', flush=True)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    os.kill(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert "saved what it had" in out and proc.returncode == 0


@pytest.mark.slow
def test_ctrl_c_with_a_busy_judge_of_models_saves_everything_and_leaves_no_process(tmp_path: Path) -> None:
    """run.best_async: Ctrl-C while the judge process judges; the run waits for its verdict on
    the models looked at, saves the learner's model, and every process of the run ends."""
    psutil = pytest.importorskip("psutil")
    runs = tmp_path / "runs"
    log = tmp_path / "train.log"
    sets = [f'run.out_dir="{runs}"', 'run.then=""', "run.best_every=64", "run.best_min_success=0.0"]
    sets += ["run.best_confirm_episodes=128", "run.checkpoint_every=0", "run.eval_episodes=2", "run.best_async=true"]
    base = REPO / "agents" / "models" / "qwop_pddqn_base.zip"
    args = ["train", "--config", str(REPO / "agents" / "recipes" / "record.toml"), "--resume", str(base)]
    proc = subprocess.Popen(  # its lines ("kept ...") and its progress in one file
        [sys.executable, "-m", "agents.cli", *args, "--name", "cut", *[x for s in sets for x in ("--set", s)]],
        cwd=ROOT,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    _wait_for(log, r"kept start_", proc, timeout=240)  # the judge has given a verdict and goes on judging
    family = psutil.Process(proc.pid).children(recursive=True)
    assert len(family) >= 2  # the actor and the judge (and multiprocessing's resource tracker)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=240)
    err = log.read_text()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    run = runs / "cut"
    assert (run / "interrupted.zip").is_file() and (run / "interrupted_replay_buffer.npz").is_file()
    rows = json.loads((run / "best" / "best.json").read_text())
    kept = [r for r in rows if r["kept"]]
    assert kept and Path(kept[-1]["model"]).is_file() and (run / "best" / "best.zip").is_file()
    assert not list((run / "best").glob("*.part"))
    gone_by = time.monotonic() + 30
    while any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in family) and time.monotonic() < gone_by:
        time.sleep(0.2)
    assert not [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
