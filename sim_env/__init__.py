"""Native QWOP simulator: a C++ engine that reproduces the original game exactly.

    import sim_env
    sim = sim_env.QwopSim()     # page loaded, first click made, no update run
    sim.update(keys)            # one game update, keys: 1=Q 2=W 4=O 8=P
    out = sim_env.replay(keys)  # a whole run, shaped like a reference trace

Game constants (key bits, time step, finish distance) and the names and order of the
runner's parts and joints come from the C++ engine, which takes them from ``spec.json``
(through the generated ``cpp/game/spec.h``), their one source; ``sim_env.spec`` reads the same file.
"""

from sim_env._core import (
    CLICK_EVENT,
    FINISH_M,
    GAME_BYTES,
    HURDLE_HALF_EXTENTS,
    HURDLE_M,
    JOINT_NAMES,
    JOINT_PARTS,
    JOINT_REFERENCE_ANGLES,
    KEY_O,
    KEY_P,
    KEY_Q,
    KEY_W,
    MAX_ENVS,
    PART_CREATION_ORDER,
    PART_HALF_EXTENTS,
    PART_NAMES,
    ROLLOUT_FELL,
    ROLLOUT_FINISHED,
    ROLLOUT_RUNNING,
    SNAPSHOT_VERSION,
    STEP_DT,
    TRACK_TOP_Y,
    UNITS_PER_METRE,
    UPDATE_DT,
    UPDATES_PER_SECOND,
    BatchSim,
    EpisodeOptions,
    GameSet,
    GuidePolicy,
    QwopSim,
    finished_100m,
    lockstep_available,
    replay,
    replay_session,
)
from sim_env.spec import STATE_COLUMNS

__all__ = [
    "CLICK_EVENT",
    "FINISH_M",
    "GAME_BYTES",
    "HURDLE_HALF_EXTENTS",
    "HURDLE_M",
    "JOINT_NAMES",
    "JOINT_PARTS",
    "JOINT_REFERENCE_ANGLES",
    "KEY_O",
    "KEY_P",
    "KEY_Q",
    "KEY_W",
    "MAX_ENVS",
    "PART_CREATION_ORDER",
    "PART_HALF_EXTENTS",
    "PART_NAMES",
    "ROLLOUT_FELL",
    "ROLLOUT_FINISHED",
    "ROLLOUT_RUNNING",
    "SNAPSHOT_VERSION",
    "STATE_COLUMNS",
    "STEP_DT",
    "TRACK_TOP_Y",
    "UNITS_PER_METRE",
    "UPDATES_PER_SECOND",
    "UPDATE_DT",
    "BatchSim",
    "EpisodeOptions",
    "GameSet",
    "GuidePolicy",
    "QwopSim",
    "finished_100m",
    "lockstep_available",
    "replay",
    "replay_session",
]


def make_vec(num_envs: int, num_threads: int | None = None, **options):
    """A Gymnasium vector env of ``num_envs`` simulated games on the batched C++ engine."""
    from sim_env.vec_env import make_vec as _make_vec

    return _make_vec(num_envs, num_threads, **options)


def _register() -> None:
    import gymnasium

    if "QwopSim-v0" not in gymnasium.registry:
        gymnasium.register(
            id="QwopSim-v0",
            entry_point="sim_env.env:QwopSimEnv",
            vector_entry_point="sim_env.vec_env:QwopVecEnv",
        )


_register()
__all__ += ["make_vec"]
