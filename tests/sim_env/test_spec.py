"""One spec: the facts shared by C++, Python and the page adapter come from sim_env/spec.json."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import sim_env
from sim_env import spec
from tests.support import REPO

ROOT = REPO


def test_generated_header_is_up_to_date() -> None:
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_spec.py"), "--check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_the_compiled_simulator_carries_the_spec() -> None:
    assert sim_env.PART_NAMES == spec.PARTS
    assert sim_env.JOINT_NAMES == spec.JOINTS
    assert {"Q": sim_env.KEY_Q, "W": sim_env.KEY_W, "O": sim_env.KEY_O, "P": sim_env.KEY_P} == spec.KEYS
    assert sim_env.CLICK_EVENT == spec.CLICK_EVENT
    assert sim_env.UPDATES_PER_SECOND == spec.UPDATES_PER_SECOND
    assert sim_env.UPDATE_DT == 1.0 / spec.UPDATES_PER_SECOND
    assert sim_env.UNITS_PER_METRE == spec.UNITS_PER_METRE
    assert spec.SPEC["finish_m"] == sim_env.FINISH_M and spec.SPEC["hurdle_m"] == sim_env.HURDLE_M
    events = np.array([spec.CLICK_EVENT, spec.RESET_EVENT_BASE + 9], dtype=np.int8)
    assert sim_env.replay_session(events)["score_time"][-1] == sim_env.UPDATE_DT


def test_reward_terms_and_their_constants_come_from_the_spec() -> None:
    """The C++ side computes the terms in spec.json's order, with its constants and default
    weights: a term set at its index by name (cpp/game/env_features.cpp) is the term spec.json
    names there."""
    from sim_env import _core, rewards
    from sim_env.observation import POSITION_SCALE, VELOCITY_SCALE

    assert _core.REWARD_TERM_NAMES == rewards.REWARD_TERMS == tuple(spec.SPEC["reward_terms"])
    assert _core.LOW_TORSO_M == rewards.LOW_TORSO_M and _core.KNEE_BEND_RAD == rewards.KNEE_BEND_RAD
    assert _core.FINISH_BONUS_TIME_S == rewards.FINISH_BONUS_TIME_S
    assert POSITION_SCALE == VELOCITY_SCALE == 10.0  # as the shipped models were trained
    # What each term measures, at its name: a step forward, a step's time, a fall.
    before = sim_env.QwopSim().body_state()
    sim = sim_env.QwopSim()
    for _ in range(12):
        sim.update(0)
    values = rewards.reward_terms(before, sim.body_state(), 0.4, 0.4, True, False)
    terms = dict(zip(rewards.REWARD_TERMS, values, strict=True))
    assert terms["time"] == -0.4 and terms["fall"] == -1.0 and terms["finish"] == 0.0
    u = sim_env.UNITS_PER_METRE
    assert terms["progress"] == sim.body_state()[0, 0] / u - before[0, 0] / u
    assert rewards.profile_weights(spec.SPEC["default_reward_profile"]).tolist() == [
        1.0 if t == "progress" else 0.0 for t in rewards.REWARD_TERMS
    ]


def test_record_layout() -> None:
    assert len(spec.RECORD_HEADER) + len(spec.PARTS) * len(spec.STATE_COLUMNS) == spec.RECORD_SIZE
    flags = list(spec.FLAGS.values())
    assert len(set(flags)) == len(flags) and all(f & (f - 1) == 0 for f in flags)  # distinct bits
    assert spec.for_page().startswith("window.__QWOP_SPEC__ = {")


def test_no_copies_of_the_shared_numbers() -> None:
    # The adapter takes parts, joints, flags, event codes and record layout from the spec.
    js = (ROOT / "adapter_js" / "qwop_adapter.js").read_text()
    assert '"leftArm"' not in js and "16 + mask" not in js and "1 / 30" not in js
    for py in ("browser_env/game.py", "demos/record.py", "demos/format.py", "browser_env/env.py"):
        text = (ROOT / py).read_text()
        assert "CLICK_EVENT = 32" not in text and "HEADER = 6" not in text and "/ 10.0" not in text, py


def test_the_episode_options_are_declared_once() -> None:
    """frame_skip, time_limit and frame_stack: one declaration in spec.json (default, least
    value, help), read by the Python options and generated into the C++ defaults; one check,
    the binding's EpisodeOptions, which EnvConfig and the raw batch both go through."""
    import re

    from sim_env.env_config import EnvConfig

    opts = spec.SPEC["episode_options"]
    cfg = EnvConfig()
    signature = sim_env.EpisodeOptions.__init__.__doc__
    for name, decl in opts.items():
        assert getattr(cfg, name) == decl["default"], name
        assert getattr(sim_env.EpisodeOptions(), name) == decl["default"], name
        shown = re.search(rf"{name}: [^=]*= ([0-9.]+)", signature)
        assert shown is not None and float(shown.group(1)) == float(decl["default"]), (name, signature)
    assert sim_env.BatchSim(1).max_updates == round(opts["time_limit"]["default"] * spec.UPDATES_PER_SECOND)
    least = opts["frame_skip"]["min"]
    for make in (EnvConfig, sim_env.EpisodeOptions, lambda **kw: sim_env.BatchSim(1, **kw)):
        with pytest.raises(ValueError, match=rf"^frame_skip must be an int >= {least}, got {least - 1}$"):
            make(frame_skip=least - 1)
        with pytest.raises(ValueError, match=r"^time_limit must be a finite number of game seconds above 0, got 0$"):
            make(time_limit=opts["time_limit"]["min"])
        with pytest.raises(ValueError, match=r", got -2.5$"):
            make(time_limit=-2.5)
    with pytest.raises(TypeError, match="not both"):
        sim_env.BatchSim(1, options=sim_env.EpisodeOptions(), frame_skip=2)
    # a misspelt option is named in one line (pybind's own message lists signatures)
    with pytest.raises(
        TypeError, match=r"^unknown option frameskip; the options are frame_skip, time_limit, frame_stack, weights$"
    ):
        sim_env.BatchSim(1, frameskip=2)


def test_an_env_takes_its_config_whole_or_as_keywords() -> None:
    """A training run hands its EnvConfig to the envs as it is (no dict round trip)."""
    import gymnasium

    from sim_env.env_config import EnvConfig
    from sim_env.vec_env import QwopVecEnv

    cfg = EnvConfig(frame_skip=3, frame_stack=2)
    vec = QwopVecEnv(2, 1, config=cfg)
    single = gymnasium.make("QwopSim-v0", config=cfg).unwrapped
    assert vec.config is cfg and single.config is cfg
    assert vec.batch.frame_skip == 3 and vec.single_observation_space.shape == single.observation_space.shape
    assert QwopVecEnv(2, 1, frame_skip=3, frame_stack=2).config == cfg
    with pytest.raises(TypeError, match="not both"):
        QwopVecEnv(2, 1, config=cfg, frame_skip=3)
    with pytest.raises(TypeError, match="must be an EnvConfig"):
        QwopVecEnv(2, 1, config={"frame_skip": 3})
    vec.close()
