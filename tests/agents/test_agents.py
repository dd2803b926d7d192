"""Agents: config, training end to end (every algorithm, single and vector envs), resume,
evaluation reports, imitation (behaviour cloning, replay-buffer injection), search."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import sim_env
from agents.cli import main as qwop
from agents.search.policy_sampling import search
from agents.shipped import PRETRAINED
from agents.training.config import TrainConfig, load_config, to_toml
from agents.training.evaluate import evaluate_policy_sim, evaluate_sim, format_report, load_model
from agents.training.train import train
from demos.format import load_demo
from demos.replay import replay_sim
from demos.simulate import save_keys_as_demo
from sim_env.actions import action_masks
from tests.support import REPO, gait_demo, small_config


def test_printed_config_lists_every_parameter_with_its_meaning() -> None:
    text = to_toml(TrainConfig())
    assert tomllib.loads(text) == TrainConfig().to_dict()
    assert tomllib.loads(to_toml(TrainConfig(), comments=False)) == TrainConfig().to_dict()
    assert "frame_skip = 4  # game updates per action" in text
    weighted = load_config(None, ["env.reward_weights={ time = -0.5, fall = 2 }"])
    assert tomllib.loads(to_toml(weighted)) == weighted.to_dict()
    assert 'name = "ppo"  # the algorithm: ppo | a2c | dqn | qrdqn' in text
    # The env section is the env's own options: training changes only the frame skip.
    from dataclasses import asdict

    from sim_env.env_config import EnvConfig

    assert TrainConfig().to_dict()["env"] == {**asdict(EnvConfig()), "frame_skip": 4}
    assert TrainConfig().policy.net_arch == [256, 128] and TrainConfig().policy.activation == "relu"


def test_config_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[algo]\nnmae = 'ppo'\n")
    with pytest.raises(ValueError, match="unknown parameter 'nmae'"):
        load_config(bad)
    bad.write_text("[envs]\n")
    with pytest.raises(ValueError, match=r"unknown config section \[envs\]"):
        load_config(bad)
    with pytest.raises(ValueError, match=r"batch\.num_envs: Input should be a valid integer"):
        load_config(None, ["batch.num_envs=1.5"])
    with pytest.raises(ValueError, match=r"env\.frame_skip must be an integer, got True"):
        load_config(None, ["env.frame_skip=true"])
    with pytest.raises(ValueError, match=r"unknown parameter 'num_envs' \(num_envs is in \[batch\] now\)"):
        load_config(None, ["env.num_envs=4"])
    with pytest.raises(ValueError, match=r"\[env\]: frame_skip must be an int >= 1"):
        load_config(None, ["env.frame_skip=0"])
    with pytest.raises(ValueError, match=r"batch\.num_threads must be at least 1"):
        load_config(None, ["batch.num_threads=0"])
    assert load_config(None, ["env.time_limit=30"]).env.time_limit == 30.0
    with pytest.raises(ValueError, match="unknown algorithm"):
        load_config(None, ['algo.name="sac"'])
    with pytest.raises(ValueError, match="needs dqn, qrdqn or pddqn"):
        load_config(None, ['imitation.inject=["x.npz"]'])
    with pytest.raises(ValueError, match=r"algo\.rnd_weight must be at least 0"):
        load_config(None, ["algo.rnd_weight=-1"])
    with pytest.raises(ValueError, match="rnd_decay must be none, linear or exponential"):
        load_config(None, ['algo.rnd_decay="cosine"'])
    with pytest.raises(ValueError, match="config file not found"):
        load_config(tmp_path / "missing.toml")
    cfg = load_config(None, ["env.frame_skip=2", 'algo.name="dqn"'])
    assert cfg.env.frame_skip == 2 and cfg.algo.name == "dqn"


@pytest.mark.parametrize(
    ("algo", "vectorized"),
    [("ppo", True), ("ppo", False), ("a2c", True), ("dqn", True), ("qrdqn", True), ("pddqn", True)],
)
@pytest.mark.slow
def test_training_runs_end_to_end(tmp_path: Path, algo: str, vectorized: bool) -> None:
    cfg = small_config(
        tmp_path,
        f'algo.name="{algo}"',
        f"batch.vectorized={str(vectorized).lower()}",
        "run.checkpoint_every=1000",
        f'run.name="{algo}"',
    )
    summary = train(cfg, log=lambda s: None)
    run = Path(summary["run_dir"])
    assert summary["timesteps"] >= 3000
    assert (run / "config.toml").is_file() and (run / "final.zip").is_file() and (run / "final.qwop.json").is_file()
    assert any((run / "tb").rglob("events.out.tfevents.*")), "TensorBoard logs"
    assert sorted((run / "checkpoints").glob("rl_model_*_steps.zip")), "checkpoints"
    report = json.loads((run / "eval.json").read_text())["eval"]
    assert report["episodes"] == 4 and 0 <= report["success_rate"] <= 1
    _model, info = load_model(run / "final.zip")
    assert info["algo"] == algo and info["env"]["action_set"] == "distinct"


def test_checkpoints_resume(tmp_path: Path) -> None:
    cfg = small_config(tmp_path, 'algo.name="dqn"', "run.checkpoint_every=1000", 'run.name="first"')
    train(cfg, log=lambda s: None)
    ckpts = sorted(
        (tmp_path / "first" / "checkpoints").glob("rl_model_*_steps.zip"), key=lambda p: int(p.stem.split("_")[-2])
    )
    last = ckpts[-1]
    steps_at = int(last.stem.split("_")[-2])
    assert (last.parent / f"rl_model_replay_buffer_{steps_at}_steps.npz").is_file()
    # every checkpoint keeps its model; only the newest replay buffer stays (each is the whole buffer)
    assert len(ckpts) >= 2 and len(list(last.parent.glob("rl_model_replay_buffer_*.npz"))) == 1
    cfg2 = small_config(
        tmp_path, 'algo.name="dqn"', "run.checkpoint_every=0", 'run.name="resumed"', "run.total_timesteps=2000"
    )
    logs: list[str] = []
    summary = train(cfg2, resume=str(last), log=logs.append)
    assert any("resumed" in s for s in logs)
    assert summary["timesteps"] >= steps_at + 2000


class Constant:
    """A scripted policy: always the same action."""

    def __init__(self, action: int) -> None:
        self.action = action

    def predict(self, obs: np.ndarray, deterministic: bool = True) -> tuple[np.ndarray, None]:
        return np.full(len(obs), self.action), None


def test_evaluation_report_on_a_scripted_policy() -> None:
    opts = {"action_set": "full", "frame_skip": 1}
    report = evaluate_policy_sim(Constant(sim_env.KEY_O), opts, episodes=6, num_envs=3, start_noise_updates=0)
    ref = sim_env.replay(np.full(3600, sim_env.KEY_O, dtype=np.int8))  # holding O falls
    assert report["episodes"] == 6
    assert report["mean_distance_m"] == report["best_distance_m"] == ref["score"][-1]
    assert report["mean_time_s"] == pytest.approx(ref["score_time"][-1])
    assert report["fall_rate"] == 1.0 and report["success_rate"] == 0.0
    np.testing.assert_array_equal(report["best_keys"], np.full(len(ref["state"]), sim_env.KEY_O))
    # A runner that keeps running is truncated at the time limit, not counted as a fall.
    idle = evaluate_policy_sim(Constant(0), opts, episodes=2, num_envs=2, start_noise_updates=0, time_limit=2.0)
    assert idle["fall_rate"] == 0.0 and idle["mean_time_s"] == pytest.approx(2.0)


class Alternate:
    """A scripted policy: the two actions of a shuffle gait, switching every step."""

    def __init__(self) -> None:
        self.t = 0

    def predict(self, obs: np.ndarray, deterministic: bool = True) -> tuple[np.ndarray, None]:
        self.t += 1
        return np.full(len(obs), 3 if self.t % 2 else 6), None


def test_evaluation_emulates_late_decisions_only_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    """Evaluations set late_decision_prob themselves: a model trained with it is judged on
    time by default; asked for, the share of late steps changes the run, and its keys replay it."""
    opts = {"action_set": "distinct", "frame_skip": 4}
    kw = {"episodes": 1, "num_envs": 1, "start_noise_updates": 0, "time_limit": 10.0}
    plain = evaluate_policy_sim(Alternate(), opts, **kw)
    trained_late = evaluate_policy_sim(Alternate(), {**opts, "late_decision_prob": 1.0}, **kw)
    assert trained_late["best_keys"] == plain["best_keys"]
    late = evaluate_policy_sim(Alternate(), opts, late_decision_prob=1.0, **kw)
    assert late["best_keys"] != plain["best_keys"]
    keys = np.array(late["best_keys"], dtype=np.int8)
    assert sim_env.replay(keys)["score"][-1] == late["best_distance_m"]
    assert "one update late with probability 1" in format_report(late)
    with pytest.raises(SystemExit) as bad:
        qwop(["eval", "--late", "1.5"])
    assert bad.value.code == 2
    assert "--late: must be a number from 0 to 1" in capsys.readouterr().err


def test_behaviour_cloning_learns_the_demonstrated_actions(tmp_path: Path) -> None:
    import demos
    from agents.methods.imitation import pretrain_bc
    from agents.training.build import build_model, make_env

    demo = gait_demo(tmp_path)
    cfg = small_config(tmp_path, "env.frame_skip=1")
    model = build_model(cfg, make_env(cfg), None)
    data = demos.load(demo, action_set="distinct", frame_skip=1)
    losses = pretrain_bc(model, data, epochs=30, learning_rate=3e-3)
    assert losses[-1] < 0.5 * losses[0]
    pred, _ = model.predict(data.obs, deterministic=True)
    assert (pred == data.actions).mean() > 0.9
    summary = train(
        small_config(tmp_path, "env.frame_skip=1", f'imitation.pretrain=["{demo}"]', 'run.name="bc"'),
        log=lambda s: None,
    )
    assert len(summary["bc_losses"]) == 10


def test_demonstration_injection_schedule(tmp_path: Path) -> None:
    demo = gait_demo(tmp_path)
    cfg = small_config(
        tmp_path,
        'algo.name="dqn"',
        "env.frame_skip=1",
        f'imitation.inject=["{demo}"]',
        "imitation.inject_until=1500",
        "imitation.inject_ratio=1.0",
        "algo.buffer_size=20000",
        'run.name="inject"',
        "run.checkpoint_every=0",
    )
    from agents.methods.imitation import DemoReplayBuffer
    from agents.training.build import build_model, make_env

    summary = train(cfg, log=lambda s: None)
    assert 1400 <= summary["injected"] <= 1600  # on for 1500 steps at one demo per step, then off
    model = build_model(cfg, make_env(cfg), None)
    assert isinstance(model.replay_buffer, DemoReplayBuffer)
    import demos
    from agents.methods.imitation import DemoInjectionCallback

    data = demos.load(demo, action_set="distinct", frame_skip=1)
    cb = DemoInjectionCallback(data, ratio=0.5, until=800)
    model.learn(1600, callback=cb)
    buf = model.replay_buffer
    n = buf.pos
    demo_rows = buf.is_demo[:n, 0].astype(bool)  # rows hold n_envs transitions, all demo or all agent
    assert demo_rows.any() and (~demo_rows).any()
    np.testing.assert_array_equal(buf.is_demo[:n][demo_rows], 1)
    np.testing.assert_array_equal(buf.behaviour_prob[:n][demo_rows], 1.0)
    agent_probs = buf.behaviour_prob[:n][~demo_rows]
    assert np.isfinite(agent_probs).all() and (agent_probs > 0).all() and (agent_probs <= 1).all()
    first_agent_only = np.flatnonzero(demo_rows)[-1]
    assert first_agent_only < n - 1  # after `until`, only the agent's own transitions
    # fine-tuning a trained model (past `until` in its own steps) injects for `until` new steps
    again = DemoInjectionCallback(data, ratio=0.5, until=400)
    model.learn(1000, callback=again, reset_num_timesteps=False)
    assert model.num_timesteps > 2000 and 150 <= again.injected <= 250


@pytest.mark.skipif(not PRETRAINED.is_file(), reason="the shipped pretrained model is missing")
def test_shipped_model_runs_ten_metres_and_search_replays(tmp_path: Path) -> None:
    report = evaluate_sim(PRETRAINED, episodes=8)
    assert report["mean_distance_m"] >= 10.0
    res = search(PRETRAINED, episodes=16, num_envs=16)
    path = save_keys_as_demo(res["keys"], tmp_path / "best.npz", {"model": "shipped"})
    _, div = replay_sim(load_demo(path))
    assert div is None and res["best_distance_m"] > 0
    assert qwop(["eval", "--episodes", "4"]) == 0


def test_cli_print_config(capsys: pytest.CaptureFixture[str]) -> None:
    assert qwop(["train", "--print-config", "--algo", "qrdqn"]) == 0
    printed = tomllib.loads(capsys.readouterr().out)
    assert printed["algo"]["name"] == "qrdqn" and printed["policy"]["net_arch"] == [256, 128]
    assert action_masks(printed["env"]["action_set"]).size == 9


@pytest.mark.slow
def test_cli_train_writes_gif_and_eval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gif = tmp_path / "best.gif"
    code = qwop(
        [
            "train",
            "--steps",
            "2000",
            "--name",
            "cli",
            "--gif",
            str(gif),
            "--set",
            f'run.out_dir="{tmp_path}"',
            "--set",
            "run.progress_bar=false",
            "--set",
            "run.eval_episodes=2",
            "--set",
            "batch.num_envs=2",
            "--set",
            "algo.n_steps=64",
            "--set",
            "algo.batch_size=64",
            "--set",
            "env.time_limit=5.0",
        ]
    )
    assert code == 0 and gif.stat().st_size > 1000
    out = capsys.readouterr().out
    assert "simulator: 2 episodes; best run" in out and "GIF of the best evaluation run" in out
    model = tmp_path / "cli" / "final.zip"
    trace = tmp_path / "best.npz"
    assert qwop(["eval", str(model), "--episodes", "2", "--trace", str(trace)]) == 0
    _, div = replay_sim(load_demo(trace))
    assert div is None


def test_eval_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="model not found"):
        load_model(tmp_path / "nope.zip")
    (tmp_path / "m.zip").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"not a model saved by qwop train \(not a \.zip archive\)"):
        load_model(tmp_path / "m.zip")
    import zipfile

    with zipfile.ZipFile(tmp_path / "z.zip", "w") as z:
        z.writestr("data", "{}")
    with pytest.raises(ValueError, match=r"qwop\.json is missing"):
        load_model(tmp_path / "z")  # .zip may be left off
    (tmp_path / "z.qwop.json").write_text('{"algo": "ppo", "env": {}}')
    with pytest.raises(ValueError, match="could not be loaded as a ppo model"):
        load_model(tmp_path / "z.zip")


@pytest.mark.skipif(not PRETRAINED.is_file(), reason="the shipped pretrained model is missing")
def test_browser_evaluation_on_the_standin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("playwright")
    import shutil

    from browser_env.standin import PLANCK, build_standin

    if shutil.which("chromium") is None or not PLANCK.is_file():
        pytest.skip("needs Debian chromium and the stand-in's npm dependency")
    game = build_standin(tmp_path / "game")
    trace = tmp_path / "browser_run.npz"
    assert qwop(["eval", "--browser", "--game", str(game), "--episodes", "1", "--trace", str(trace)]) == 0
    out = capsys.readouterr().out
    assert "browser (lockstep, playwright): 1 episodes" in out
    d = load_demo(trace)
    assert d.num_episodes == 1 and len(d.events) > 1
    from browser_env.game import BrowserGame

    with BrowserGame(game) as g:  # the trace replays in the stand-in, exactly
        replayed = g.replay_session(d.events)
    np.testing.assert_array_equal(replayed["state"], d.arrays["state"])


def test_best_episode_prefers_finished_runs() -> None:
    from agents.training.evaluate import Episode, best_episode

    keys = np.full(10, 9, dtype=np.int8)
    eps = [
        Episode(104.5, 120.0, False, False, keys),
        Episode(100.2, 110.0, True, False, keys),
        Episode(100.1, 105.0, True, False, keys),
        Episode(3.0, 4.0, False, True, keys),
    ]
    assert best_episode(eps)[0] is eps[2]
    assert best_episode([eps[0], eps[3]])[0] is eps[0]


def test_one_algorithm_table_and_no_import_cycle() -> None:
    import ast

    from agents.cli import build_parser
    from agents.training.algorithms import ALGORITHMS

    root = REPO / "agents"
    imported = {
        node.module
        for node in ast.walk(ast.parse((root / "training" / "evaluate.py").read_text()))
        if isinstance(node, ast.ImportFrom)
    }
    assert "agents.training.train" not in imported  # train uses evaluation; evaluation does not use training
    train_parser = build_parser()._subparsers._group_actions[0].choices["train"]
    algo_choices = next(a.choices for a in train_parser._actions if a.dest == "algo")
    assert list(algo_choices) == list(ALGORITHMS)


def test_env_section_carries_every_env_option(tmp_path: Path) -> None:
    from dataclasses import fields

    from sim_env.env_config import EnvConfig

    cfg = load_config(None, ["env.reward_weights={ time = -0.5 }", "env.frame_skip=2"])
    opts = cfg.env_options()
    assert set(opts) == {f.name for f in fields(EnvConfig)}
    assert opts["reward_weights"] == {"time": -0.5} and opts["frame_skip"] == 2
    assert EnvConfig(**opts).weights[1] == -0.5  # reaches the env, no longer dropped
    with pytest.raises(ValueError, match=r"env\.reward_weights: Input should be a valid dictionary"):
        load_config(None, ["env.reward_weights=3"])


def test_files_saved_under_the_old_module_paths_still_load(tmp_path: Path) -> None:
    # A model's buffer class pickled before agents/ was split by concept names it at
    # agents.<module>; it loads from agents.methods.<module>.
    import pickle

    from agents.methods.imitation import DemoReplayBuffer
    from agents.training.safe_loading import plain_unpickle

    raw = pickle.dumps(DemoReplayBuffer, protocol=0).replace(b"agents.methods.imitation", b"agents.imitation")
    assert b"agents.imitation\n" in raw
    with pytest.raises(ModuleNotFoundError):
        pickle.loads(raw)
    assert plain_unpickle(raw) is DemoReplayBuffer
    assert plain_unpickle(pickle.dumps(DemoReplayBuffer)) is DemoReplayBuffer

def test_an_evaluation_stopped_at_its_bar_gives_the_full_evaluations_first_episodes() -> None:
    from agents.training.evaluate import rollouts

    model, info = load_model(PRETRAINED.with_name("qwop_pddqn_base.zip"))  # the tests' fixed model
    opts = dict(info["env"])
    full = rollouts(model, opts, 48, start_noise_updates=15, seed=1)
    failures = [i for i, e in enumerate(full) if not e.finished]
    assert len(failures) >= 2  # this model falls now and then from noisy starts
    cut = rollouts(model, opts, 48, start_noise_updates=15, seed=1, max_failures=1)
    assert failures[1] < len(cut) <= failures[1] + 16  # stopped on the step of the second failure
    assert [(e.score, e.time_s) for e in cut] == [(e.score, e.time_s) for e in full[: len(cut)]]
    # the verdict is the full evaluation's: below the bar, and said so
    bar = (48 - 1) / 48
    report = evaluate_policy_sim(model, opts, episodes=48, seed=1, min_success=bar)
    assert report["below"] and report["success_rate"] < bar and report["episodes"] < 48
    whole = evaluate_policy_sim(model, opts, episodes=48, seed=1, min_success=0.5)
    assert "below" not in whole and whole["episodes"] == 48


def test_each_algorithm_builds_from_its_own_options(tmp_path) -> None:
    """The table names each algorithm's class and options; building a model is a lookup that
    hands the options on as they are, and another algorithm's option is refused by name."""
    from dataclasses import fields

    from agents.training.algorithms import ALGORITHMS, algo_class
    from agents.training.build import build_model, make_env
    from agents.training.config import load_config
    from sim_env.errors import UserInputError

    for name, algo in ALGORITHMS.items():
        cfg = load_config(None, [f'algo.name="{name}"', "batch.num_envs=2", "policy.net_arch=[8]"])
        assert type(cfg.algo) is algo.options
        env = make_env(cfg)
        try:
            model = build_model(cfg, env, None)
        finally:
            env.close()
        assert isinstance(model, algo_class(name)), name
        checked = 0
        for option in [n for cls in algo.options.__mro__ for n in getattr(cls, "PASSED", ())]:
            value = getattr(cfg.algo, option)
            held = vars(model).get(option)
            if isinstance(held, int | float | bool) and not callable(held):  # SB3 keeps some as objects
                assert held == value, (name, option)
                checked += 1
        assert checked >= 2, name
        mine = {f.name for f in fields(algo.options)}
        other = next(o for a in ALGORITHMS.values() for o in (f.name for f in fields(a.options)) if o not in mine)
        with pytest.raises(UserInputError, match=f"algo.{other} is an option of .*, not of {name}"):
            load_config(None, [f'algo.name="{name}"', f"algo.{other}=1"])


def test_an_old_run_config_listing_every_algorithms_options_still_loads(tmp_path) -> None:
    from dataclasses import fields

    import tomli_w

    from agents.training.algorithms import ALGORITHMS
    from agents.training.config import load_config
    from sim_env.errors import UserInputError

    every = {f.name: f.default for a in ALGORITHMS.values() for f in fields(a.options)}
    old = tmp_path / "config.toml"
    old.write_text(tomli_w.dumps({"algo": {**every, "name": "pddqn", "buffer_size": 1234}}))
    assert load_config(old).algo.buffer_size == 1234
    some = tmp_path / "some.toml"  # not every option: the named algorithm's only, as any file
    some.write_text(tomli_w.dumps({"algo": {"name": "pddqn", "n_steps": 64}}))
    with pytest.raises(UserInputError, match=r"algo\.n_steps is an option of ppo and a2c, not of pddqn"):
        load_config(some)
