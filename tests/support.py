"""What several test files share: the repository's paths, a small training configuration and a
built-in demo, the scripted player of a recording, and comparing a search on Ray with one on
local threads. Test files import from here (and ``clitools``, ``oracle``), never from each other."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
MODELS = REPO / "agents" / "models"
RECORDS = REPO / "agents" / "records"
RECIPES = REPO / "agents" / "recipes"

NEEDS_RAY = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="needs the ray package (bash scripts/test.sh installs it)"
)


def small_config(tmp_path: Path, *extra: str) -> Any:
    """A training configuration small enough for a test: 4 envs, 3,000 steps, 32-32 networks."""
    from agents.training.config import load_config

    names = [e.split("=", 1)[1].strip('"') for e in extra if e.startswith("algo.name=")]
    small = {  # each algorithm's own sizes (its [algo] options)
        "ppo": ["algo.n_steps=64", "algo.batch_size=64"],
        "a2c": ["algo.n_steps=64"],
    }.get(names[-1] if names else "ppo", ["algo.batch_size=64", "algo.learning_starts=500"])
    return load_config(
        None,
        [
            f'run.out_dir="{tmp_path}"',
            "run.progress_bar=false",
            "run.eval_episodes=4",
            "batch.num_envs=4",
            "run.total_timesteps=3000",
            *small,
            "policy.net_arch=[32, 32]",
            "env.time_limit=10.0",
            *extra,
        ],
    )


def gait_demo(tmp_path: Path) -> Path:
    """The built-in gait's first 30 s, saved as a demo file."""
    from demos.simulate import save_keys_as_demo
    from sim_env.gaits import SHUFFLE, gait_keys

    return save_keys_as_demo(gait_keys(SHUFFLE, 900), tmp_path / "gait.npz", {"player": "built-in gait"})


def play_script(rec: Any, script: list[tuple[str, int, float]]) -> None:
    """Press keys through the browser's input pipeline while the recorder polls: each step is
    (action, key mask, seconds to keep polling after it): "keys" holds the mask, "tap" taps
    R, "click" clicks the canvas, "wait" does nothing."""
    held = 0
    for action, arg, seconds in script:
        if action == "keys":
            held = rec.game.press(arg, held)
        elif action == "tap":
            rec.game.tap("r")
        elif action == "click":
            rec.game.click_canvas()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            rec.poll()
            time.sleep(0.02)


def assert_ray_equals_local(cfg: Any, budget: int) -> None:
    """The same search on a local Ray cluster (2 workers) and on 2 local threads."""
    from agents.search.planner import LocalExpander
    from agents.search.ray_expander import RayExpander
    from agents.search.run import run_search
    from agents.search.state import new_state

    ray_exp = RayExpander("local", workers=2)
    try:
        on_ray = run_search(new_state(cfg), ray_exp, budget, progress=False)
    finally:
        ray_exp.close()
    local = run_search(new_state(cfg), LocalExpander(2), budget, progress=False)
    assert on_ray.history == local.history and on_ray.updates == local.updates
    assert all(np.array_equal(x, y) for x, y in zip(on_ray.keys, local.keys, strict=True))


def portable_and_fast(code: str) -> dict[str, str]:
    """What Python ``code`` prints with the engine's CPU extensions on (key "0") and off
    (key "1": ``QWOP_SIM_PORTABLE=1``, what a CPU without FMA and AVX2 runs), each in a
    fresh interpreter (the switch is read as the library loads)."""
    return {
        portable: subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "QWOP_SIM_PORTABLE": portable},
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for portable in ("0", "1")
    }
