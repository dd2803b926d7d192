"""The multivariate reward representation (the seed paper's): one Q-value head per reward term.

The envs report every step's reward terms (``info["reward_terms"]``, ``sim_env.REWARD_TERMS``)
beside the scalar reward, their weighted sum. With reward heads, a Q-network outputs one
Q-value per term and action, each head learns its own term's return (by TD on that term, the
next action chosen on the combined values), and the agent acts on the weighted sum
``sum_k w_k Q_k(s, a)``. The weights live in the network (saved with the model) and can be
changed afterwards, ``set_reward_weights``, without retraining: for example to care more
about time than distance.

:class:`MultiHeadDQNPolicy` is SB3's DQN policy with such a network; ``forward`` returns the
combined values, so SB3's acting, exploration and evaluation work unchanged.
``agents.methods.pddqn.PrioritizedDoubleDQN(reward_heads=True)`` trains it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from stable_baselines3.common.torch_layers import create_mlp
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork


class MultiHeadQNetwork(QNetwork):
    def __init__(self, *args: Any, reward_weights: Sequence[float], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.n_heads = len(reward_weights)
        n_actions = int(self.action_space.n)
        self.q_net = torch.nn.Sequential(
            *create_mlp(self.features_dim, self.n_heads * n_actions, self.net_arch, self.activation_fn)
        )
        self.register_buffer("reward_weights", torch.as_tensor(list(reward_weights), dtype=torch.float32))

    def heads(self, obs: torch.Tensor) -> torch.Tensor:
        """Q-values per reward term: (batch, terms, actions)."""
        q = self.q_net(self.extract_features(obs, self.features_extractor))
        return q.view(q.shape[0], self.n_heads, -1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return combine(self.heads(obs), self.reward_weights)


def combine(heads: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """sum_k w_k Q_k: (batch, terms, actions) -> (batch, actions)."""
    return (heads * weights.view(1, -1, 1)).sum(dim=1)


class MultiHeadDQNPolicy(DQNPolicy):
    def __init__(self, *args: Any, reward_weights: Sequence[float], **kwargs: Any) -> None:
        self.reward_weights_init = [float(w) for w in reward_weights]
        super().__init__(*args, **kwargs)

    def make_q_net(self) -> MultiHeadQNetwork:
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)
        return MultiHeadQNetwork(reward_weights=self.reward_weights_init, **net_args).to(self.device)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["reward_weights"] = self.reward_weights_init
        return data

    def set_reward_weights(self, weights: Sequence[float]) -> None:
        """New weights over the terms for acting (and for learning, if training goes on)."""
        w = torch.as_tensor(list(weights), dtype=torch.float32, device=self.device)
        if w.shape != self.q_net.reward_weights.shape:
            raise ValueError(f"need {self.q_net.reward_weights.numel()} weights, got {w.numel()}")
        self.q_net.reward_weights.copy_(w)
        self.q_net_target.reward_weights.copy_(w)


def head_targets(
    terms: torch.Tensor,
    dones: torch.Tensor,
    discounts: torch.Tensor | float,
    next_heads_target: torch.Tensor,
    next_heads_online: torch.Tensor | None,
    weights: torch.Tensor,
) -> torch.Tensor:
    """Each head's one-step target, (batch, terms): the term plus the discounted target head's
    value of the next action, chosen on the combined values (the online network's with double
    Q-learning, else the target network's)."""
    chooser = next_heads_target if next_heads_online is None else next_heads_online
    best = combine(chooser, weights).argmax(dim=1)
    idx = best.view(-1, 1, 1).expand(-1, next_heads_target.shape[1], 1)
    next_v = next_heads_target.gather(2, idx).squeeze(2)
    return terms + (1 - dones) * discounts * next_v
