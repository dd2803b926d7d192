"""Learning from demonstrations: behaviour cloning before RL, and demonstration injection
into a DQN-family replay buffer on a schedule (on for a phase, then off), as the seed
article did with an expert's runs.

- :func:`pretrain_bc` trains the policy to predict the demonstrated actions (cross-entropy;
  for DQN-family agents the Q-values are the logits).
- :class:`DemoReplayBuffer` is SB3's replay buffer plus, for every transition, whether it
  came from a demonstration and the probability the behaviour policy gave its action:
  1 for a demonstration (a person's choice is taken as deterministic), the epsilon-greedy
  probability for the agent's own transitions.
- :class:`DemoInjectionCallback` adds ``ratio`` demonstration transitions per new agent
  transition until ``until`` env steps, then stops.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from stable_baselines3.common.buffers import ReplayBuffer
from stable_baselines3.common.callbacks import BaseCallback

from demos.convert import DemoDataset


def _logits(model: Any, obs: torch.Tensor) -> torch.Tensor:
    policy = model.policy
    if hasattr(policy, "q_net"):  # DQN
        return policy.q_net(obs)
    if hasattr(policy, "quantile_net"):  # QR-DQN: mean over quantiles
        return policy.quantile_net(obs).mean(dim=1)
    dist = policy.get_distribution(obs)
    return dist.distribution.logits


def minibatch_fit(
    model: Any,
    rows: int,
    loss_of: Any,
    epochs: int,
    learning_rate: float,
    batch_size: int = 256,
    seed: int = 0,
) -> list[float]:
    """Adam on ``model``'s policy over ``epochs`` seeded shuffles of ``rows`` rows, a step per
    batch of ``batch_size`` (``loss_of(indices)``: the batch's loss tensor); the policy is left in
    evaluation mode. Returns each epoch's mean loss. The same seed gives the same steps."""
    params = [p for p in model.policy.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    losses = []
    model.policy.set_training_mode(True)
    for _ in range(epochs):
        perm = torch.randperm(rows, generator=gen).to(model.device)
        total = 0.0
        for i in range(0, rows, batch_size):
            idx = perm[i : i + batch_size]
            loss = loss_of(idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / rows)
    model.policy.set_training_mode(False)
    return losses


def pretrain_bc(
    model: Any, data: DemoDataset, epochs: int = 10, learning_rate: float = 1e-3, batch_size: int = 256, seed: int = 0
) -> list[float]:
    """Behaviour cloning on (obs, action) pairs; returns the mean loss of each epoch."""
    n_actions = int(model.action_space.n)
    if data.actions.max() >= n_actions:
        raise ValueError(
            f"demo actions go up to {int(data.actions.max())} but the model has {n_actions} actions; "
            f"convert the demos with the model's action set"
        )
    if data.obs.shape[1] != model.observation_space.shape[0]:
        raise ValueError(
            f"demo observations have {data.obs.shape[1]} values, the model expects "
            f"{model.observation_space.shape[0]} (frame_stack must match)"
        )
    device = model.device
    obs = torch.as_tensor(data.obs, device=device)
    act = torch.as_tensor(data.actions, device=device, dtype=torch.long)
    losses = minibatch_fit(
        model,
        len(obs),
        lambda idx: torch.nn.functional.cross_entropy(_logits(model, obs[idx]), act[idx]),
        epochs,
        learning_rate,
        batch_size,
        seed,
    )
    if hasattr(model, "q_net_target") and hasattr(model, "q_net"):
        model.q_net_target.load_state_dict(model.q_net.state_dict())
    if hasattr(model, "quantile_net_target") and hasattr(model, "quantile_net"):
        model.quantile_net_target.load_state_dict(model.quantile_net.state_dict())
    return losses


class DemoReplayBuffer(ReplayBuffer):
    """SB3 ReplayBuffer that also stores ``is_demo`` and ``behaviour_prob`` per transition."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.is_demo = np.zeros((self.buffer_size, self.n_envs), dtype=np.int8)
        self.behaviour_prob = np.full((self.buffer_size, self.n_envs), np.nan, dtype=np.float32)
        self.next_is_demo = False
        self.next_behaviour_prob: np.ndarray | None = None

    def add(self, obs, next_obs, action, reward, done, infos) -> None:  # type: ignore[override]
        pos = self.pos
        super().add(obs, next_obs, action, reward, done, infos)
        self.is_demo[pos] = int(self.next_is_demo)
        if self.next_behaviour_prob is not None:
            self.behaviour_prob[pos] = self.next_behaviour_prob
        self.next_is_demo = False
        self.next_behaviour_prob = None


class DemoInjectionCallback(BaseCallback):
    """Injects demonstrations into a DemoReplayBuffer during the first ``until`` env steps of
    this training run (a resumed model counts from where it resumed: fine-tuning a trained
    model with demonstrations injects them too)."""

    def __init__(self, data: DemoDataset, ratio: float = 1.0, until: int = 200_000, seed: int = 0) -> None:
        super().__init__()
        if ratio <= 0:
            raise ValueError("inject_ratio must be positive")
        self.data = data
        self.ratio = ratio
        self.until = until
        self.injected = 0
        self._credit = 0.0
        self._rng = np.random.default_rng(seed)
        self._order = self._rng.permutation(len(data))
        self._cursor = 0
        self._start = 0

    def _on_training_start(self) -> None:
        self._start = int(self.model.num_timesteps)

    def _init_callback(self) -> None:
        if not isinstance(self.model.replay_buffer, DemoReplayBuffer):
            raise TypeError("demonstration injection needs replay_buffer_class=DemoReplayBuffer")

    def _agent_probs(self) -> np.ndarray:
        """Probability the behaviour policy gave each action just taken (epsilon-greedy)."""
        actions = np.asarray(self.locals["actions"]).reshape(-1)
        n_actions = int(self.model.action_space.n)
        # Before learning starts SB3 samples actions uniformly at random.
        warmup = self.model.num_timesteps - self.model.n_envs < self.model.learning_starts
        eps = 1.0 if warmup else float(self.model.exploration_rate)
        with torch.no_grad():
            greedy, _ = self.model.predict(self.model._last_obs, deterministic=True)
        return np.where(actions == np.asarray(greedy).reshape(-1), 1 - eps + eps / n_actions, eps / n_actions)

    def _on_step(self) -> bool:
        buf: DemoReplayBuffer = self.model.replay_buffer
        buf.next_behaviour_prob = self._agent_probs().astype(np.float32)  # for the agent transition stored next
        if self.num_timesteps - self._start >= self.until:
            return True
        n_envs = buf.n_envs
        self._credit += self.ratio * n_envs
        d = self.data
        while self._credit >= n_envs:
            idx = []
            for _ in range(n_envs):
                if self._cursor >= len(self._order):
                    self._order = self._rng.permutation(len(d))
                    self._cursor = 0
                idx.append(self._order[self._cursor])
                self._cursor += 1
            idx = np.array(idx)
            pending = buf.next_behaviour_prob
            buf.next_is_demo = True
            buf.next_behaviour_prob = d.behaviour_prob[idx].astype(np.float32)
            buf.add(
                d.obs[idx],
                d.next_obs[idx],
                d.actions[idx].reshape(n_envs, 1),
                d.rewards[idx].astype(np.float32),
                d.dones[idx].astype(np.float32),
                [{} for _ in range(n_envs)],
            )
            buf.next_behaviour_prob = pending
            self.injected += n_envs
            self._credit -= n_envs
        return True
