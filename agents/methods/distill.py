"""Policy distillation (Rusu et al. 2016): a teacher's behaviour into a smaller or differently
shaped student, by the KL divergence from the teacher's action distribution over the states it
visits.

The teacher (any model ``qwop train`` writes: PPO/A2C give their action distribution, the
DQN family its Q-values turned into one by a softmax at a low ``temperature``, as in the paper)
runs in the batched simulator with its own env options; its observations and action
distributions are recorded, and the student's policy (an SB3 PPO network of the configured
``policy.net_arch``, so that ``qwop eval`` and the browser take it like any model) learns
``KL(teacher || student)`` on them. ``dagger_rounds`` then let the student drive and the
teacher label the states the student reaches (DAgger), so that it also learns to recover from
its own mistakes. ``qwop train --set distill.teacher=MODEL`` runs it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.nn import functional

from agents.methods.imitation import _logits, minibatch_fit


def action_probs(model: Any, obs: np.ndarray, temperature: float = 0.01) -> np.ndarray:
    """A model's action distribution for each observation: its policy's, or for Q-learners
    softmax(Q / temperature)."""
    with torch.no_grad():
        x = torch.as_tensor(obs, dtype=torch.float32, device=model.device)
        logits = _logits(model, x)
        if hasattr(model.policy, "q_net") or hasattr(model.policy, "quantile_net"):
            logits = logits / temperature
        return torch.softmax(logits, dim=1).cpu().numpy()


def record(
    driver: Any, teacher: Any, env: Any, steps: int, temperature: float, seed: int, stochastic: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` env steps (over all envs) with ``driver`` choosing the actions (sampled from
    its distribution when ``stochastic``); returns the observations and the teacher's
    distributions there."""
    rng = np.random.default_rng(seed)
    obs = env.reset()
    xs, ps = [], []
    for _ in range(max(1, steps // env.num_envs)):
        p_teacher = action_probs(teacher, obs, temperature)
        xs.append(np.asarray(obs, dtype=np.float32))
        ps.append(p_teacher)
        p_drive = p_teacher if driver is teacher else action_probs(driver, obs, temperature)
        if stochastic:
            cum = p_drive.cumsum(axis=1)
            actions = (rng.random((len(cum), 1)) > cum).sum(axis=1).clip(0, p_drive.shape[1] - 1)
        else:
            actions = p_drive.argmax(axis=1)
        obs, _, _, _ = env.step(actions)
    return np.concatenate(xs), np.concatenate(ps)


def fit(
    student: Any, obs: np.ndarray, probs: np.ndarray, epochs: int, batch_size: int, learning_rate: float, seed: int
) -> list[float]:
    """KL(teacher || student) by Adam on the student's policy; the mean KL of each epoch."""
    x = torch.as_tensor(obs, dtype=torch.float32, device=student.device)
    p = torch.as_tensor(probs, dtype=torch.float32, device=student.device)

    def kl(idx: torch.Tensor) -> torch.Tensor:
        return functional.kl_div(torch.log_softmax(_logits(student, x[idx]), dim=1), p[idx], reduction="batchmean")

    return minibatch_fit(student, len(x), kl, epochs, learning_rate, batch_size, seed)


def agreement(student: Any, obs: np.ndarray, probs: np.ndarray) -> float:
    """Share of states where the student's most likely action is the teacher's."""
    return float((action_probs(student, obs).argmax(axis=1) == probs.argmax(axis=1)).mean())


def distill(
    student: Any,
    teacher: Any,
    env: Any,
    steps: int,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    temperature: float,
    dagger_rounds: int,
    seed: int,
    log: Any = print,
) -> dict[str, Any]:
    """Teacher-driven states, then ``dagger_rounds`` of student-driven ones, the student
    refitted on all after each; returns the KL curve and the agreement on fresh teacher states."""
    obs, probs = record(teacher, teacher, env, steps, temperature, seed)
    curve = fit(student, obs, probs, epochs, batch_size, learning_rate, seed)
    log(f"distillation on {len(obs):,} teacher states: KL {curve[0]:.3f} -> {curve[-1]:.3f}")
    for r in range(dagger_rounds):
        more_obs, more_probs = record(student, teacher, env, steps, temperature, seed + 1 + r)
        obs, probs = np.concatenate([obs, more_obs]), np.concatenate([probs, more_probs])
        curve += fit(student, obs, probs, epochs, batch_size, learning_rate, seed + 1 + r)
        log(f"DAgger round {r + 1}: {len(obs):,} states, KL {curve[-1]:.3f}")
    test_obs, test_probs = record(teacher, teacher, env, min(steps, 20_000), temperature, seed + 10_000)
    agree = agreement(student, test_obs, test_probs)
    log(f"student picks the teacher's action on {agree:.1%} of fresh teacher states")
    return {"kl": curve, "states": len(obs), "agreement": agree}
