"""Prioritised double DQN: the seed article's final algorithm, built on stable-baselines3's DQN.

Two changes to SB3's ``DQN.train``, each with a switch:

- double Q-learning (van Hasselt et al. 2016): the online network picks the next action, the
  target network values it, instead of the target network's own maximum (which over-estimates);
- prioritised replay (:mod:`agents.methods.prioritized_replay`): transitions sampled by TD error, the
  Huber loss weighted by importance sampling, with ``beta`` annealed to 1 over training.

and, as options, one Q head per reward term (:mod:`agents.methods.reward_heads`, the seed paper's
multivariate reward representation), each trained on its own term; and DQfD's large-margin
loss on demonstrations (Hester et al. 2018): on every sampled demonstration transition,
``max_a [Q(s, a) + margin * (a != a_demo)] - Q(s, a_demo)``, weighted by ``demo_margin``, so
that the demonstrated action's value stays above the others by the margin; and n-step
returns (``n_steps``; :mod:`agents.methods.prioritized_replay` says where a chain ends); and
lower-bound targets (``return_bound``; He et al. 2017's optimality tightening, in its simplest
form): each target is at least the discounted return its transition's episode went on to get.
In a deterministic game (as this one is, given the keys) a return that happened after ``(s, a)``
is one some policy gets from there, so it bounds ``Q*(s, a)`` from below, and a lucky fast run's
values reach the states it came through at once, not one bootstrap at a time.

Everything else (exploration, target updates, demonstration injection, saving, ``qwop eval``)
is SB3's DQN. ``qwop train --set algo.name=pddqn`` uses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from stable_baselines3 import DQN
from torch.nn import functional

from agents.methods.overlapped_targets import OverlappedTargets
from agents.methods.prioritized_replay import PrioritizedReplayBuffer
from agents.methods.reward_heads import MultiHeadDQNPolicy, head_targets


def td_targets(
    rewards: torch.Tensor,
    dones: torch.Tensor,
    discounts: torch.Tensor | float,
    next_q_target: torch.Tensor,
    next_q_online: torch.Tensor | None,
) -> torch.Tensor:
    """One-step targets, (batch, 1). With ``next_q_online`` the double-Q rule: the target
    network's value of the action the online network prefers; without it, the target
    network's maximum (plain DQN). The reward-heads rule with a single head of weight 1."""
    online = None if next_q_online is None else next_q_online.unsqueeze(1)
    one = torch.ones(1, dtype=next_q_target.dtype, device=next_q_target.device)
    return head_targets(rewards, dones, discounts, next_q_target.unsqueeze(1), online, one)


def margin_loss(q: torch.Tensor, actions: torch.Tensor, demo: torch.Tensor, margin: float) -> torch.Tensor:
    """DQfD's supervised loss, averaged over the demonstration rows (``demo`` 1.0):
    ``max_a [Q(s, a) + margin * (a != a_demo)] - Q(s, a_demo)``; zero when the demonstrated
    action leads every other by at least the margin."""
    penalty = torch.full_like(q, margin).scatter(1, actions, 0.0)
    per_row = (q + penalty).max(dim=1, keepdim=True).values - q.gather(1, actions)
    return (per_row * demo).sum() / demo.sum().clamp(min=1.0)


class PrioritizedDoubleDQN(DQN):
    @classmethod
    def saved_policy_class(cls, data: dict[str, Any]) -> Any:
        """The policy class of a saved model, from its plain data (models load without
        unpickling it: agents.training.safe_loading)."""
        return MultiHeadDQNPolicy if data.get("reward_heads") else cls.policy_aliases["MlpPolicy"]

    def __init__(
        self,
        policy: Any,
        env: Any,
        *args: Any,
        double_q: bool = True,
        prioritized: bool = True,
        per_alpha: float = 0.6,
        per_beta: float = 0.4,
        per_eps: float = 1e-6,
        demo_bonus: float = 1.0,
        reward_heads: bool = False,
        reward_weights: Sequence[float] | None = None,
        demo_margin: float = 0.0,
        margin: float = 0.8,
        overlap_targets: bool = False,
        n_steps: int = 1,
        return_bound: bool = False,
        replay_buffer_class: Any = None,
        replay_buffer_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.double_q = double_q
        self.prioritized = prioritized
        self.per_beta0 = per_beta
        self.reward_heads = reward_heads
        self.demo_margin, self.margin = demo_margin, margin
        self.overlap_targets = overlap_targets
        self._overlapped: OverlappedTargets | None = None
        if demo_margin > 0 and reward_heads:
            raise ValueError("the demonstration margin loss takes the scalar critic, not reward heads")
        if reward_heads:
            if reward_weights is None:
                raise ValueError("reward heads need reward_weights (one per term of info['reward_terms'])")
            if policy == "MlpPolicy":
                policy = MultiHeadDQNPolicy
            kwargs["policy_kwargs"] = {**(kwargs.get("policy_kwargs") or {}), "reward_weights": list(reward_weights)}
        if prioritized or reward_heads or demo_margin > 0:
            # uniform sampling is the prioritised buffer with alpha = 0 (and all weights 1)
            replay_buffer_class = PrioritizedReplayBuffer
            replay_buffer_kwargs = {
                **(replay_buffer_kwargs or {}),
                "alpha": per_alpha if prioritized else 0.0,
                "beta": per_beta if prioritized else 0.0,
                "eps": per_eps,
                "demo_bonus": demo_bonus if prioritized else 0.0,
                "n_terms": len(reward_weights) if reward_heads and reward_weights is not None else 0,
                "seed": kwargs.get("seed"),
                "n_steps": n_steps,
                "episode_returns": return_bound,
            }
        else:
            if return_bound:
                raise ValueError("return_bound needs the prioritised buffer (prioritized=True)")
            kwargs["n_steps"] = n_steps  # SB3's own n-step buffer
        super().__init__(
            policy,
            env,
            *args,
            replay_buffer_class=replay_buffer_class,
            replay_buffer_kwargs=replay_buffer_kwargs,
            **kwargs,
        )

    def _setup_model(self) -> None:
        if self.replay_buffer_class is PrioritizedReplayBuffer:
            # n-step returns discount as the model does (a resumed model's new gamma too)
            self.replay_buffer_kwargs = {**(self.replay_buffer_kwargs or {}), "gamma": self.gamma}
        super()._setup_model()

    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        buffer = self.replay_buffer
        per = isinstance(buffer, PrioritizedReplayBuffer) and self.prioritized
        if per:
            # beta: from its start value to 1 (full correction) as training ends
            done = min(1.0, max(0.0, 1.0 - self._current_progress_remaining))
            buffer.beta = self.per_beta0 + (1.0 - self.per_beta0) * done
        if self.overlap_targets and self._overlapped is None:
            self._overlapped = OverlappedTargets(self.q_net, self.q_net_target, self._targets)

        def sample() -> Any:
            return buffer.sample(batch_size, env=self._vec_normalize_env)  # type: ignore[union-attr]

        losses = []
        for _ in range(gradient_steps):
            if self._overlapped is not None:
                data, target = self._overlapped.next(buffer, sample)
            else:
                data = sample()
                target = self._targets(data, self.q_net, self.q_net_target)
            if self.reward_heads:
                heads = self.q_net.heads(data.observations)
                idx = data.actions.long().view(-1, 1, 1).expand(-1, heads.shape[1], 1)
                current = heads.gather(2, idx).squeeze(2)
                td = ((current - target) * self.q_net.reward_weights.view(1, -1)).sum(dim=1, keepdim=True)
                elementwise = functional.smooth_l1_loss(current, target, reduction="none").sum(dim=1, keepdim=True)
            else:
                q_all = self.q_net(data.observations)
                current = q_all.gather(1, data.actions.long())
                elementwise = functional.smooth_l1_loss(current, target, reduction="none")
                td = current - target
            loss = (data.weights * elementwise).mean() if per else elementwise.mean()
            if self.demo_margin > 0 and data.demo is not None and bool(data.demo.any()):
                loss = loss + self.demo_margin * margin_loss(q_all, data.actions.long(), data.demo, self.margin)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
            if per:
                buffer.update_priorities(data.indices, td.detach().cpu().numpy())
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", float(np.mean(losses)))
        if per:
            self.logger.record("train/per_beta", buffer.beta)

    def _targets(self, data: Any, online: torch.nn.Module, target: torch.nn.Module) -> torch.Tensor:
        """One-step targets of a batch: (batch, 1), or (batch, terms) with reward heads."""
        discounts = data.discounts if data.discounts is not None else self.gamma
        with torch.no_grad():
            if self.reward_heads:
                picks = online.heads(data.next_observations) if self.double_q else None
                values = target.heads(data.next_observations)
                return head_targets(data.terms, data.dones, discounts, values, picks, online.reward_weights)
            picks = online(data.next_observations) if self.double_q else None
            out = td_targets(data.rewards, data.dones, discounts, target(data.next_observations), picks)
            bounds = getattr(data, "returns", None)  # the uniform path's samples are SB3's: none
            if bounds is not None:  # lower-bound targets: what the episode went on to get
                out = torch.maximum(out, bounds)
            return out

    def learn(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().learn(*args, **kwargs)
        finally:  # the targets' worker lives as long as one call of learn
            if self._overlapped is not None:
                self._overlapped.close()
                self._overlapped = None

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_overlapped"]
