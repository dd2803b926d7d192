"""What a training run is built from: the SB3 model its configuration names, the env it
trains in (the batched engine, or single envs), and its demonstrations."""

from __future__ import annotations

from typing import Any

import torch
from stable_baselines3.common.base_class import BaseAlgorithm

from agents.methods.imitation import DemoReplayBuffer
from agents.training.actor_learner import acting_in_process, actor_feed
from agents.training.algorithms import algo_class
from agents.training.config import TrainConfig
from agents.training.envs import make_stepped_env
from demos.convert import load


def build_model(cfg: TrainConfig, env: Any, tensorboard_log: str | None) -> BaseAlgorithm:
    """A new model of the algorithm ``cfg.algo`` names, built from its options."""
    act = torch.nn.ReLU if cfg.policy.activation == "relu" else torch.nn.Tanh
    policy_kwargs = {"net_arch": list(cfg.policy.net_arch), "activation_fn": act}
    kwargs = cfg.algo.model_kwargs(policy_kwargs, list(cfg.env.weights))
    if cfg.imitation.inject and not getattr(cfg.algo, "prioritized", False):
        kwargs["replay_buffer_class"] = DemoReplayBuffer  # its buffer takes demonstrations as well
    return training_class(cfg)(
        "MlpPolicy",
        env,
        learning_rate=cfg.algo.learning_rate,
        gamma=cfg.algo.gamma,
        seed=cfg.run.seed,
        device=cfg.run.device,
        tensorboard_log=tensorboard_log,
        verbose=0,
        **kwargs,
    )


def training_class(cfg: TrainConfig) -> Any:
    """The algorithm's SB3 class, acting in a process of its own with ``batch.async_actor``."""
    cls = algo_class(cfg.algo.name)
    if cfg.batch.async_actor:
        cls = acting_in_process(cls, cfg.batch.actor_sync)
    return cls


def make_env(cfg: TrainConfig) -> Any:
    """The training env (``agents.training.envs``); with ``batch.async_actor``, the learner's
    view of an actor process that steps it."""
    return actor_feed(cfg) if cfg.batch.async_actor else make_stepped_env(cfg)


def load_demos(cfg: TrainConfig, files: list[str]) -> Any:
    """Demo transitions shaped like this configuration's env steps."""
    return load(
        files,
        action_set=cfg.env.action_set,
        frame_skip=cfg.env.frame_skip,
        frame_stack=cfg.env.frame_stack,
        reward=cfg.env.reward,
    )


__all__ = ["build_model", "load_demos", "make_env", "training_class"]
