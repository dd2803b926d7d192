"""Every everyday mistake gets one line saying what was wrong and what to do, exit code 2, no
traceback, and nothing written or lost (the newcomer's list of bad inputs)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.clitools import one_line_error, qwop
from tests.support import REPO

pytest.importorskip("stable_baselines3")

PRETRAINED = REPO / "agents" / "models" / "qwop_ppo.zip"


def test_missing_and_damaged_models(tmp_path: Path) -> None:
    one_line_error(qwop("eval", str(tmp_path / "missing.zip")), "model not found", "missing.zip")
    one_line_error(qwop("sample", str(tmp_path / "missing.zip")), "model not found")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"this is not a model")
    (tmp_path / "bad.qwop.json").write_text('{"algo": "ppo", "env": {}}')
    one_line_error(qwop("eval", str(bad)), "not a model saved by qwop train")
    # A damaged zip that is still a zip: reported as damaged, not as a missing sidecar.
    import zipfile

    with zipfile.ZipFile(tmp_path / "odd.zip", "w") as z:
        z.writestr("data", "not json")
    (tmp_path / "odd.qwop.json").write_text('{"algo": "ppo", "env": {}}')
    one_line_error(qwop("eval", str(tmp_path / "odd.zip")), "is not a model saved by qwop train", "damaged")


def test_train_inputs(tmp_path: Path) -> None:
    out = f'run.out_dir="{tmp_path / "runs"}"'
    p = qwop("train", "--pretrain", str(tmp_path / "missing.npz"), "--name", "x", "--set", out)
    one_line_error(p, "--pretrain demo file not found", "missing.npz")
    p = qwop("train", "--resume", str(tmp_path / "missing.zip"), "--name", "y", "--set", out)
    line = one_line_error(p, "model not found", "missing.zip")
    assert "missing.zip.zip" not in line
    assert not (tmp_path / "runs").exists()  # a failed start leaves no run folder behind
    one_line_error(qwop("train", "--steps", "-5"), "--steps", "at least 1", "got -5")
    one_line_error(qwop("train", "--minutes", "0"), "--minutes", "greater than 0")
    one_line_error(qwop("train", "--steps", "10", "--minutes", "1"), "not both")
    one_line_error(qwop("train", "--set", "run.eval_episodes=0"), "run.eval_episodes must be at least 1")
    one_line_error(qwop("train", "--config", str(tmp_path / "nope.toml")), "config file not found")


def test_existing_run_folder_is_never_overwritten(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "mine"
    run.mkdir(parents=True)
    (run / "notes.txt").write_text("keep me")
    p = qwop("train", "--steps", "100", "--name", "mine", "--set", f'run.out_dir="{tmp_path / "runs"}"')
    one_line_error(p, "already exists", "--name")
    assert (run / "notes.txt").read_text() == "keep me" and sorted(os.listdir(run)) == ["notes.txt"]


def test_steps_replace_the_config_time_budget(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("[run]\nminutes = 3.0\n")
    p = qwop("train", "--config", str(cfg), "--steps", "20000", "--print-config")
    assert p.returncode == 0, p.stderr
    assert "total_timesteps = 20000" in p.stdout and "minutes = 0.0" in p.stdout


def test_impossible_episode_counts() -> None:
    one_line_error(qwop("eval", "--episodes", "0"), "--episodes", "at least 1")
    one_line_error(qwop("eval", "--episodes", "-3"), "--episodes")
    one_line_error(qwop("search", "--episodes", "0"), "--episodes")
    one_line_error(qwop("eval", "--start-noise", "-1"), "--start-noise", "at least 0")
    one_line_error(qwop("fly"), "invalid choice")


def test_diverge_on_a_file_that_is_not_a_trace(tmp_path: Path) -> None:
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"\x80\x04 pickled stuff")
    one_line_error(qwop("diverge", str(junk)), "is not a trace", "not a .npz archive")
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    one_line_error(qwop("diverge", str(tmp_path / "other.npz")), "neither 'keys' nor 'events'")


def test_demo_files_are_ordinary_files_and_videos_need_no_system_ffmpeg(tmp_path: Path) -> None:
    from demos.simulate import save_keys_as_demo

    path = save_keys_as_demo(np.full(40, 9, dtype=np.int8), tmp_path / "run.npz", {"test": True})
    mode = stat.S_IMODE(path.stat().st_mode)
    assert mode == 0o666 & ~_umask(), oct(mode)
    # MP4 through the ffmpeg that imageio-ffmpeg ships, with no ffmpeg on PATH.
    env = {"PATH": str(Path(sys.executable).parent)}
    p = qwop("replay", str(path), "--video", str(tmp_path / "run.mp4"), env=env)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "run.mp4").stat().st_size > 1000
    one_line_error(qwop("replay", str(path), "--video", str(tmp_path / "run.avi")), "must end in .gif or .mp4")
    one_line_error(qwop("replay", str(tmp_path / "none.npz")), "demo file not found")


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def test_gifs_play_at_the_game_pace() -> None:
    from sim_env.render import gif_durations

    d = gif_durations(151, 15)
    assert all(x % 10 == 0 for x in d) and set(d) == {60, 70}
    assert abs(sum(d) - 151 * 1000 / 15) <= 10  # 151 frames at 15 fps play in 10.07 s, not 9.06


def test_help_explains_the_options() -> None:
    # the three ways to search are three commands, each with its own help
    text = {c: " ".join(qwop(c, "--help").stdout.split()) for c in ("search", "sample", "improve")}  # unwrapped
    assert "same best run" in text["search"] and "--resume" in text["search"] and "--episodes" not in text["search"]
    assert "how many runs to sample" in text["sample"] and "--resume" not in text["sample"]
    assert "a folder for the finished runs" in text["improve"] and "--lookahead" in text["improve"]
    p = qwop("browser-bench", "--help")
    assert p.returncode == 0 and "--quick" in p.stdout and "--game" in p.stdout


def test_resuming_a_search_state_with_impossible_settings(tmp_path: Path) -> None:
    import json

    state, out = tmp_path / "s.npz", tmp_path / "o.npz"
    p = qwop("search", "--updates", "3000", "--beam", "4", "--children", "2", "--state", str(state), "--out", str(out))
    assert p.returncode == 0, p.stderr[-2000:]
    for change, needle in (
        ({"horizon": 0}, "horizon must be at least 1"),
        ({"beam": 0}, "beam must be at least 1"),
        ({"min_hold": 9, "max_hold": 3}, "max_hold (3) must be at least min_hold (9)"),
    ):
        with np.load(state, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        meta = json.loads(str(arrays["meta"]))
        meta["config"].update(change)
        arrays["meta"] = np.array(json.dumps(meta))
        bad = tmp_path / f"bad_{next(iter(change))}.npz"
        np.savez(bad, **arrays)
        one_line_error(qwop("search", "--resume", str(bad), "--updates", "100"), needle)
    # a best run that is not what the state says it is
    from demos.format import load_demo

    record = REPO / "agents" / "records" / "guided_seed0_41.10s.npz"
    keys = load_demo(record).arrays["keys"]
    with np.load(state, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["best_time_s"] = 1.0
    forged = tmp_path / "forged.npz"
    np.savez(forged, **{**arrays, "meta": np.array(json.dumps(meta)), "best_keys": keys[keys >= 0].astype(np.int8)})
    one_line_error(qwop("search", "--resume", str(forged), "--updates", "100"), "does not replay to a finish in 1.0 s")
    one_line_error(qwop("search", "--resume", str(state), "--seed", "3", "--updates", "100"), "--seed", "keeps")
    one_line_error(
        qwop("search", "--resume", str(state), "--beam", "9", "--guide", "--updates", "9"), "--beam, --guide"
    )


def test_demos_with_a_list_for_meta_or_an_impossible_key(tmp_path: Path) -> None:
    import json

    from demos.format import load_demo

    good = tmp_path / "good.npz"
    p = qwop("eval", "--episodes", "1", "--no-noise", "--trace", str(good))
    assert p.returncode == 0, p.stderr[-2000:]
    arrays = dict(load_demo(good).arrays)
    cases = {
        "list_meta": ({"meta": np.array(json.dumps([1, 2]))}, "must be a JSON object"),
        "key_77": (
            {"keys": np.where(np.arange(len(arrays["keys"])) == 5, 77, arrays["keys"]).astype(np.int8)},
            "keys[5] = 77",
        ),
    }
    for name, (change, needle) in cases.items():
        bad = tmp_path / f"{name}.npz"
        np.savez(bad, **{**arrays, **change})
        for action in ("info", "list"):
            one_line_error(qwop("demos", action, str(bad)), needle)
        p = qwop("demos", "validate", str(bad))
        assert p.returncode == 1 and needle in p.stdout and "Traceback" not in p.stderr
    one_line_error(qwop("demos", "info", str(tmp_path / "missing.npz")), "missing.npz")


def test_damaged_model_sidecars(tmp_path: Path) -> None:
    import json
    import shutil

    for name, side in (
        ("unknown", {"algo": "ppo", "env": {"frame_skipp": 4}}),
        ("wrongtype", {"algo": "ppo", "env": {"frame_skip": "four"}}),
        ("null", {"algo": "ppo", "env": {"frame_skip": None}}),
        ("notatable", {"algo": "ppo", "env": [4]}),
        ("noalgo", {"env": {}}),
    ):
        model = tmp_path / f"{name}.zip"
        shutil.copy(PRETRAINED, model)
        (tmp_path / f"{name}.qwop.json").write_text(json.dumps(side))
        one_line_error(qwop("eval", str(model), "--episodes", "1"), f"{name}.qwop.json is damaged")
    (tmp_path / "latin.qwop.json").write_bytes(b'{"algo": "ppo", "env": {"reward": "\xe9"}}')
    shutil.copy(PRETRAINED, tmp_path / "latin.zip")
    one_line_error(qwop("eval", str(tmp_path / "latin.zip"), "--episodes", "1"), "latin.qwop.json is damaged")


def test_resume_takes_the_algorithm_from_the_model() -> None:
    pddqn = PRETRAINED.with_name("qwop_pddqn.zip")
    p = qwop("train", "--resume", str(pddqn), "--print-config")
    assert p.returncode == 0, p.stderr[-2000:]
    assert 'name = "pddqn"' in p.stdout
    one_line_error(
        qwop("train", "--resume", str(pddqn), "--algo", "ppo", "--print-config"), "trained with --algo pddqn"
    )


def test_a_search_writes_into_a_run_folder_not_the_current_one(tmp_path: Path) -> None:
    args = ("search", "--updates", "3000", "--beam", "4", "--children", "2", "--threads", "1")
    for _ in range(2):  # a second search in the same folder starts too
        p = qwop(*args, cwd=str(tmp_path))
        assert p.returncode == 0, p.stderr[-2000:]
    assert sorted(os.listdir(tmp_path)) == ["runs"]
    runs = sorted((tmp_path / "runs").iterdir())
    assert len(runs) == 2 and all(r.name.startswith("search-") and (r / "state.npz").is_file() for r in runs)


def test_impossible_training_values_are_one_line_before_training(tmp_path: Path) -> None:
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'[run]\nname = "\xe9"\n')
    one_line_error(qwop("train", "--config", str(latin), "--print-config"), "not valid TOML (UTF-8)")
    for setting, needle in (
        ("algo.batch_size=0", "algo.batch_size must be at least 2"),
        ("algo.gamma=5", "algo.gamma must be a discount"),
        ("algo.learning_rate=nan", "algo.learning_rate must be a finite number"),
        ("algo.learning_rate=-1.0", "algo.learning_rate must be a positive number"),
        ("batch.num_envs=1e8", "batch.num_envs must be at most"),
    ):
        one_line_error(qwop("train", "--set", setting, "--print-config"), needle)
    blocked = tmp_path / "file"
    blocked.write_text("a file where a folder should be")
    p = qwop("train", "--steps", "100", "--set", f'run.out_dir="{blocked}"', "--name", "x")
    one_line_error(p, "cannot create the run folder", "run.out_dir")


def test_the_benchmarks_report_bad_input_in_one_line(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.toml")
    p = qwop("--to-record", "--config", missing, "--out", str(tmp_path / "b"), module="agents.bench.learning")
    one_line_error(p, "config file not found", "nope.toml")
    p = qwop("--guide", str(tmp_path / "missing.zip"), "--quick", module="agents.bench.search")
    one_line_error(p, "missing.zip")
