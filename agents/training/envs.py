"""The env a training run steps: the batched engine, or SB3's DummyVecEnv of single
``QwopSim-v0`` envs, seeded, with the exploration bonus outside the monitors. The learner
steps it itself, or an actor process does (``agents.training.actor_learner``)."""

from __future__ import annotations

from typing import Any

from agents.training.config import TrainConfig
from agents.training.sb3_env import make_sb3_vec


def make_stepped_env(cfg: TrainConfig) -> Any:
    """The env of ``cfg``, stepped in this process."""
    if cfg.batch.vectorized:
        env = make_sb3_vec(cfg.batch.num_envs, cfg.batch.num_threads, start_keys=cfg.start_keys(), config=cfg.env)
    else:
        import gymnasium
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.vec_env import DummyVecEnv

        import sim_env  # noqa: F401 (registers QwopSim-v0)

        keys = cfg.start_keys()
        one = lambda: Monitor(gymnasium.make("QwopSim-v0", start_keys=keys, config=cfg.env))  # noqa: E731
        env = DummyVecEnv([one] * cfg.batch.num_envs)
    env.seed(cfg.run.seed)
    a = cfg.algo
    if a.rnd_weight > 0:
        from agents.methods.rnd import RNDBonus

        # outside the monitors: episode returns in the logs stay the task's own
        env = RNDBonus(env, a.rnd_weight, a.rnd_decay, a.rnd_decay_steps or cfg.run.total_timesteps, seed=cfg.run.seed)
    return env


__all__ = ["make_stepped_env"]
