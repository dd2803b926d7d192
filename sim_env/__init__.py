"""Native QWOP simulator: a C++ engine that reproduces the original game exactly.

    import sim_env
    sim = sim_env.QwopSim()     # page loaded, first click made, no update run
    sim.update(keys)            # one game update, keys: 1=Q 2=W 4=O 8=P
    out = sim_env.replay(keys)  # a whole run, shaped like a reference trace
"""

from sim_env._core import (
    GAME_BYTES,
    JOINT_NAMES,
    JOINT_PARTS,
    JOINT_REFERENCE_ANGLES,
    PART_NAMES,
    SNAPSHOT_VERSION,
    BatchSim,
    QwopSim,
    replay,
    replay_session,
)

__all__ = [
    "GAME_BYTES",
    "JOINT_NAMES",
    "JOINT_PARTS",
    "JOINT_REFERENCE_ANGLES",
    "PART_NAMES",
    "SNAPSHOT_VERSION",
    "BatchSim",
    "QwopSim",
    "replay",
    "replay_session",
]
