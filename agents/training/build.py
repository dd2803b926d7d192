"""What a training run is built from: the SB3 model its configuration names, the env it
trains in (the batched engine, or single envs), and its demonstrations."""

from __future__ import annotations

from typing import Any

import torch
from stable_baselines3 import A2C, PPO
from stable_baselines3.common.base_class import BaseAlgorithm

from agents.training.actor_learner import acting_in_process, actor_feed
from agents.training.algorithms import algo_class
from agents.training.config import TrainConfig
from agents.training.envs import make_stepped_env


def build_model(cfg: TrainConfig, env: Any, tensorboard_log: str | None) -> BaseAlgorithm:
    a = cfg.algo
    act = torch.nn.ReLU if cfg.policy.activation == "relu" else torch.nn.Tanh
    common: dict[str, Any] = {
        "learning_rate": a.learning_rate,
        "gamma": a.gamma,
        "seed": cfg.run.seed,
        "device": cfg.run.device,
        "tensorboard_log": tensorboard_log,
        "verbose": 0,
    }
    arch = list(cfg.policy.net_arch)
    if a.name == "ppo":
        return PPO(
            "MlpPolicy",
            env,
            n_steps=a.n_steps,
            batch_size=a.batch_size,
            n_epochs=a.n_epochs,
            ent_coef=a.ent_coef,
            clip_range=a.clip_range,
            gae_lambda=a.gae_lambda,
            policy_kwargs={"net_arch": arch, "activation_fn": act},
            **common,
        )
    if a.name == "a2c":
        n_steps = 5 if a.n_steps == 256 else a.n_steps
        return A2C(
            "MlpPolicy",
            env,
            n_steps=n_steps,
            ent_coef=a.ent_coef,
            gae_lambda=a.gae_lambda,
            policy_kwargs={"net_arch": arch, "activation_fn": act},
            **common,
        )
    cls = training_class(cfg)
    kwargs: dict[str, Any] = {
        "buffer_size": a.buffer_size,
        "learning_starts": a.learning_starts,
        "batch_size": a.batch_size,
        "train_freq": a.train_freq,
        "gradient_steps": a.gradient_steps,
        "target_update_interval": a.target_update_interval,
        "exploration_fraction": a.exploration_fraction,
        "exploration_final_eps": a.exploration_final_eps,
        # fused Adam: one kernel for all parameters, a third of the default's time on CPU
        "policy_kwargs": {"net_arch": arch, "activation_fn": act, "optimizer_kwargs": {"fused": True}},
    }
    if a.name == "pddqn":
        # its replay buffer (prioritised or not) takes demonstrations as well
        kwargs.update(
            double_q=a.double_q,
            prioritized=a.prioritized,
            per_alpha=a.per_alpha,
            per_beta=a.per_beta,
            per_eps=a.per_eps,
            demo_bonus=a.demo_bonus,
            demo_margin=a.demo_margin,
            margin=a.margin,
            reward_heads=a.reward_heads,
            reward_weights=list(cfg.env.weights) if a.reward_heads else None,
        )
    if cfg.imitation.inject and not (a.name == "pddqn" and a.prioritized):
        from agents.methods.imitation import DemoReplayBuffer

        kwargs["replay_buffer_class"] = DemoReplayBuffer
    return cls("MlpPolicy", env, **kwargs, **common)


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
    import demos

    return demos.load(
        files,
        action_set=cfg.env.action_set,
        frame_skip=cfg.env.frame_skip,
        frame_stack=cfg.env.frame_stack,
        reward=cfg.env.reward,
    )


__all__ = ["build_model", "load_demos", "make_env", "training_class"]
