"""The time-to-record benchmark: wall-clock marks across a recipe's stages, and the first kept
model under the target whose confirming noisy starts finish."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("stable_baselines3")

_STAGE = """
[algo]
name = "pddqn"
learning_starts = 200
[batch]
num_envs = 4
async_actor = true
[run]
total_timesteps = 1000
eval_episodes = 1
progress_bar = false
checkpoint_every = 0
"""


def _chain(tmp_path: Path, second_steps: int) -> Path:
    """A chain of two stages: 800 steps, then ``second_steps``; returns the first's config."""
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    (recipes / "first.toml").write_text(_STAGE + 'steps = 800\nthen = "second.toml"\n')
    (recipes / "second.toml").write_text(_STAGE + f"steps = {second_steps}\n")
    return recipes / "first.toml"


def test_marks_span_the_stages_of_the_chain(tmp_path: Path) -> None:
    from agents.bench.learning import main

    config = _chain(tmp_path, 1_000_000_000)
    out = tmp_path / "bench"
    args = ["--to-record", "--minutes", "0.3", "0.5", "--config", str(config), "--out", str(out)]
    assert main(args) == 0
    result = json.loads((out / "time_to_record.json").read_text())
    first, second = result["rows"]
    assert [first["wall_min"], second["wall_min"]] == [0.3, 0.5]
    assert second["stage"] == 2 and second["env_steps"] > first["env_steps"] >= 0
    assert second["env_steps"] > 800  # the first stage's steps and the second's
    assert 0 < first["cpu_min"] <= second["cpu_min"]
    assert result["record"] is None and result["target_s"] == 47.34
    assert result["yardstick_ms"] > 0  # the machine's yardstick, for figures of different days
    assert (out / "run" / "final.zip").is_file()  # the first stage ended; the second was cut by the budget


def test_the_yardstick_times_the_configs_own_network() -> None:
    from agents.bench.time_to_record import yardstick_ms
    from agents.training.config import load_config

    small = yardstick_ms(load_config(None, ["policy.net_arch=[8]", "algo.batch_size=64"]), repeats=5)
    # about 2,000 times the arithmetic: far slower on any machine
    large = yardstick_ms(load_config(None, ["policy.net_arch=[512, 512]", "algo.batch_size=1024"]), repeats=5)
    assert 0 < small < large


def test_a_chain_that_ends_before_the_last_mark_gets_a_last_row(tmp_path: Path) -> None:
    from agents.bench.learning import main

    config = _chain(tmp_path, 800)
    out = tmp_path / "bench"
    assert main(["--to-record", "--minutes", "30", "--config", str(config), "--out", str(out)]) == 0
    (row,) = json.loads((out / "time_to_record.json").read_text())["rows"]
    assert row["end"] and row["stage"] == 2 and 0 < row["wall_min"] < 30
    assert row["env_steps"] >= 1600 and row["cpu_min"] > 0


def _kept(folder: Path, rows: list[dict]) -> None:
    (folder / "best").mkdir(parents=True)
    (folder / "best" / "best.json").write_text(json.dumps(rows))


def test_the_record_is_the_first_confirmed_model_under_the_target(tmp_path: Path) -> None:
    from agents.bench.time_to_record import WallMarks

    marks = WallMarks([60.0], target_s=47.34, min_success=0.9, log=lambda s: None)
    marks.clock0, marks.cpu0 = 1000.0, 10.0
    row = {"kept": True, "success_rate": 0.95, "judged_success_rate": 0.93, "process_cpu_s": 70.0}
    _kept(
        tmp_path / "one",
        [
            {**row, "start_run_time_s": 48.0, "clock": 1060.0, "steps": 100},  # too slow
            {**row, "start_run_time_s": 47.0, "clock": 1120.0, "steps": 200, "confirm_success_rate": 0.89},
            {**row, "start_run_time_s": 46.0, "clock": 1180.0, "steps": 300, "kept": False},  # not kept
        ],
    )
    _kept(
        tmp_path / "two",
        # looked at after 5 minutes; the judge process's verdict came 6 s later
        [
            {
                **row,
                "start_run_time_s": 47.2,
                "clock": 1300.0,
                "judged_clock": 1306.0,
                "steps": 50,
                "confirm_success_rate": 0.9,
            }
        ],
    )
    marks.stages = [(tmp_path / "one", 0), (tmp_path / "two", 1000)]
    marks._check_record()
    assert marks.record is not None
    assert marks.record["start_run_time_s"] == 47.2 and marks.record["env_steps"] == 1050
    assert marks.record["wall_min"] == pytest.approx(5.1) and marks.record["cpu_min"] == pytest.approx(1.0)
