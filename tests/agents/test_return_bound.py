"""Lower-bound targets (algo.return_bound): the buffer keeps each transition's discounted return
to its episode's end once that end is stored, and the targets are at least that return."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

pytest.importorskip("stable_baselines3")

from agents.methods.prioritized_replay import PrioritizedReplayBuffer


def _returns_by_hand(rewards, dones, timeouts, demo, gamma):
    """Each agent row's return to its episode's end, walked forward per env (-inf where the end
    is not stored, came by the time limit, or the row is a demonstration)."""
    steps, envs = rewards.shape
    out = np.full((steps, envs), -np.inf)
    for env in range(envs):
        episode: list[int] = []
        for t in range(steps):
            if demo[t]:
                continue
            episode.append(t)
            if dones[t, env]:
                if not timeouts[t, env]:
                    for i, start in enumerate(episode):
                        out[start, env] = sum(gamma**k * rewards[u, env] for k, u in enumerate(episode[i:]))
                episode = []
    return out


def test_the_buffer_keeps_each_transitions_return_once_its_episode_ends():
    rng = np.random.default_rng(5)
    gamma, steps, envs = 0.9, 50, 3
    space = gym.spaces.Box(-1, 1, (2,), np.float32)
    buf = PrioritizedReplayBuffer(
        64 * envs, space, gym.spaces.Discrete(3), n_envs=envs, seed=0, gamma=gamma, episode_returns=True
    )  # 64 steps of each env
    rewards = rng.normal(size=(steps, envs)).astype(np.float32)
    dones = rng.random((steps, envs)) < 0.15
    timeouts = dones & (rng.random((steps, envs)) < 0.3)
    demo = np.zeros(steps, bool)
    demo[[7, 8, 20]] = True  # injected rows among the agent's: not its steps
    for t in range(steps):
        buf.next_is_demo = bool(demo[t])
        infos = [{"TimeLimit.truncated": bool(timeouts[t, e])} for e in range(envs)]
        o = np.zeros((envs, 2), np.float32)
        buf.add(o, o, np.zeros((envs, 1)), rewards[t], dones[t].astype(np.float32), infos)
    want = _returns_by_hand(rewards, dones, timeouts, demo, gamma)
    assert np.isfinite(want).sum() > 40 and np.isinf(want).any()
    np.testing.assert_allclose(buf.returns[:steps], want, rtol=1e-5, atol=1e-5)
    s = buf.sample(256)
    slots = np.asarray(s.indices)
    np.testing.assert_allclose(s.returns.numpy().ravel(), want.reshape(-1)[slots], rtol=1e-5, atol=1e-5)
    for _ in range(buf.buffer_size):  # wrapped round: the old rows' returns are gone with them
        o = np.zeros((envs, 2), np.float32)
        buf.add(o, o, np.zeros((envs, 1)), np.ones(envs, np.float32), np.zeros(envs, np.float32), [{}] * envs)
    assert np.isneginf(buf.returns).all()


def test_targets_are_at_least_the_return_and_the_option_is_checked():
    from agents.methods.pddqn import PrioritizedDoubleDQN
    from agents.training.config import load_config
    from sim_env.errors import UserInputError

    for bad in (["algo.reward_heads=true"], ["algo.prioritized=false"]):
        with pytest.raises(UserInputError, match="return_bound needs"):
            load_config(None, ['algo.name="pddqn"', "algo.return_bound=true", *bad])
    env = gym.make("CartPole-v1")
    model = PrioritizedDoubleDQN("MlpPolicy", env, return_bound=True, buffer_size=100, learning_starts=0)
    assert model.replay_buffer.returns is not None
    obs = np.zeros((4, 4), np.float32)
    from agents.methods.prioritized_replay import PrioritizedSamples

    batch = PrioritizedSamples(  # the fields the targets read, made by hand
        torch.as_tensor(obs), torch.zeros(4, 1), torch.as_tensor(obs), torch.zeros(4, 1), torch.zeros(4, 1), None,
        torch.ones(4, 1), np.arange(4), None, None, torch.tensor([[-np.inf], [1e6], [-1e6], [0.0]]),
    )
    plain = model._targets(batch._replace(returns=None), model.q_net, model.q_net_target)
    bound = model._targets(batch, model.q_net, model.q_net_target)
    assert bound[1, 0] == 1e6  # a return above the bootstrap lifts the target to it
    assert torch.equal(bound[[0, 2]], plain[[0, 2]])  # unknown or lower: the bootstrap stands
    assert bound[3, 0] == max(0.0, plain[3, 0].item())


def test_the_uniform_path_learns_without_returns():
    from agents.methods.pddqn import PrioritizedDoubleDQN

    # SB3's own buffer (prioritized = false): its samples carry no returns, the targets do without
    model = PrioritizedDoubleDQN("MlpPolicy", "CartPole-v1", prioritized=False, learning_starts=50, batch_size=16)
    model.learn(200)
    assert model._n_updates > 0
