"""The package as a user installs it without a clone: an sdist and a wheel built by the package's
own build (the wheel from the sdist, so the sdist is complete), installed into a fresh venv and
used from a folder outside the repository: the core install (numpy and gymnasium) runs the
simulator's env, qwop search and qwop replay of a shipped record; with [train], qwop eval of the
shipped model and qwop play --sim with the shipped opening."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO

pytestmark = pytest.mark.slow


def _run(args: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert p.returncode == 0, f"{' '.join(args)}\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"
    return p


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)], cwd=root)
    assert len(list(dist.glob("*.tar.gz"))) == 1
    wheel = next(dist.glob("*.whl"))
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=root)
    _run([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", str(wheel)], cwd=root)
    work = root / "elsewhere"
    work.mkdir()
    return venv, work


def test_core_install_from_another_folder(installed: tuple[Path, Path]) -> None:
    venv, work = installed
    py, qwop = str(venv / "bin" / "python"), str(venv / "bin" / "qwop")
    frozen = _run([py, "-m", "pip", "freeze"], cwd=work).stdout.lower()
    assert "torch" not in frozen and "playwright" not in frozen, "the core install is numpy and gymnasium"
    code = (
        "import gymnasium, sim_env; env = gymnasium.make('QwopSim-v0'); env.reset(seed=0); "
        "print(env.step(env.action_space.sample())[1]); print(sim_env.__file__)"
    )
    out = _run([py, "-c", code], cwd=work).stdout
    assert "site-packages" in out, out
    _run([qwop, "--help"], cwd=work)
    _run([qwop, "search", "--updates", "20000", "--out", "run.npz"], cwd=work)
    replay = _run([qwop, "replay", "guided_seed0_37.87s.npz"], cwd=work).stdout
    assert "finished 100 m in 37.87 s; identical to the recording" in replay, replay
    p = subprocess.run([qwop, "eval"], cwd=work, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "needs the train extra" in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_train_extra_evaluates_the_packaged_model(installed: tuple[Path, Path]) -> None:
    venv, work = installed
    wheel = next((venv.parent / "dist").glob("*.whl"))
    torch = f"torch=={os.environ.get('QWOP_TORCH_VERSION', '2.13.0')}"  # the CPU build, as scripts/install.sh
    _run([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", torch, f"{wheel}[train]"], work)
    out = _run([str(venv / "bin" / "qwop"), "eval", "--episodes", "2"], cwd=work).stdout
    assert "finished 100 m" in out, out
    # the shipped opening is in the wheel: qwop play follows it (all keys on time: the whole run)
    out = _run([str(venv / "bin" / "qwop"), "play", "--sim"], cwd=work).stdout
    from agents.realtime.opening import load_opening
    from agents.shipped import OPENING

    planned = load_opening(OPENING).outcome()["time_s"]
    assert "after the opening" in out and f"finished 100 m in {planned:.2f} s" in out, out
