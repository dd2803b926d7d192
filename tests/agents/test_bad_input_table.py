"""The bad inputs users met, each a one-line error with exit code 2 (no traceback), before any
work: outputs that cannot be written, models of another env, damaged search states, values a
config file or --set gives, and a reader that goes away (qwop ... | head)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.clitools import one_line_error, qwop
from tests.support import MODELS, REPO

UNWRITABLE = "/proc/qwop-test/out"  # no file can be made there, not even by root


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["eval", "--episodes", "1", "--gif", f"{UNWRITABLE}.gif"], "/proc/qwop-test"),
        (["eval", "--episodes", "1", "--trace", f"{UNWRITABLE}.npz"], "/proc/qwop-test"),
        (["search", "--updates", "100", "--out", f"{UNWRITABLE}.npz"], "/proc/qwop-test"),
        (["train", "--steps", "100", "--gif", f"{UNWRITABLE}.gif"], "/proc/qwop-test"),
        (["record", "--out", "/proc/x.npz"], "cannot write"),
        (["record", "--player", "../../x"], "--player must be a plain name"),
        (["eval", "--episodes", "1", "--gif", "."], "is a folder"),
        (["train", "--name", "../../x", "--steps", "100"], "run.name must be a plain name"),
        (["train", "--set", 'run.name="a/b"', "--steps", "100"], "run.name must be a plain name"),
        (["train", "--set", "policy.net_arch=[-1]", "--steps", "100"], "policy.net_arch"),
        (["train", "--set", "algo.clip_range=-0.2", "--steps", "100"], "algo.clip_range"),
        (["train", "--set", 'run.device="cuda:7"', "--steps", "100"], "CUDA device"),
        (["train", "--set", "algo.learning_rate=nan", "--steps", "100"], "algo.learning_rate"),
        (["train", "--set", "env.time_limit=inf", "--steps", "100"], "time_limit"),
        (["train", "--set", "run.seed=-1", "--steps", "100"], "run.seed"),
        (["train", "--set", "run.judge_nice=20", "--steps", "100"], "run.judge_nice"),
        (["search", "--updates", "100", "--speed-weight", "nan"], "--speed-weight"),
        (["diverge", "x.npz", "--tolerance", "-1"], "--tolerance"),
        (["play", "--sim", "--time-limit", "1e30"], "--time-limit"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    one_line_error(qwop(*args, cwd=str(tmp_path)), says)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("*.zip")), "no work was done"


def test_a_model_of_another_env_is_refused(tmp_path: Path) -> None:
    """A CartPole model given the shipped model's sidecar: its spaces and weights are not QWOP's."""
    import gymnasium
    from stable_baselines3 import DQN

    model = DQN("MlpPolicy", gymnasium.make("CartPole-v1"), learning_starts=0, buffer_size=100)
    model.save(tmp_path / "cartpole.zip")
    shutil.copy(MODELS / "qwop_pddqn.qwop.json", tmp_path / "cartpole.qwop.json")
    (tmp_path / "cartpole.qwop.json").write_text(
        json.dumps({**json.loads((MODELS / "qwop_pddqn.qwop.json").read_text()), "algo": "dqn"})
    )
    one_line_error(qwop("eval", str(tmp_path / "cartpole.zip"), "--episodes", "1"), "cartpole.zip")


def _saved_state(tmp_path: Path) -> Path:
    p = qwop("search", "--updates", "20000", "--state", str(tmp_path / "state.npz"), cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-1500:]
    return tmp_path / "state.npz"


def test_damaged_search_states_are_refused(tmp_path: Path) -> None:
    state = _saved_state(tmp_path)
    with np.load(state, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    cases = {
        "no_rng": {**arrays, "meta": np.array(json.dumps({k: v for k, v in meta.items() if k != "rng"}))},
        "float_keys": {**arrays, "beam_keys_flat": arrays["beam_keys_flat"].astype(np.float64) + 0.5},
        "negative_lengths": {**arrays, "beam_key_lengths": -arrays["beam_key_lengths"]},
        "keys_out_of_range": {**arrays, "beam_keys_flat": arrays["beam_keys_flat"].astype(np.int64) + 16},
        "updates_negative": {**arrays, "meta": np.array(json.dumps({**meta, "updates": -5}))},
    }
    for name, bad in cases.items():
        path = tmp_path / f"{name}.npz"
        np.savez(path, **bad)
        one_line_error(qwop("search", "--resume", str(path), "--updates", "40000", cwd=str(tmp_path)), "cannot resume")


def test_print_config_into_a_closed_pipe_is_quiet() -> None:
    shell = f"{sys.executable} -m agents.cli train --print-config | head -1"
    p = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120, cwd=str(REPO))
    assert "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr, p.stderr[-1500:]
    assert len(p.stdout.splitlines()) == 1
