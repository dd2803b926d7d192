"""A short stable-baselines3 PPO run on the vector env learns something."""

from __future__ import annotations

import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")
torch = pytest.importorskip("torch")

from agents.training.sb3_env import make_sb3_vec  # noqa: E402

OPTIONS = {"action_set": "distinct", "frame_skip": 4, "time_limit": 10.0}


def _mean_return(policy, episodes: int = 16, seed: int = 0) -> float:
    venv = make_sb3_vec(16, 2, **OPTIONS)
    venv.seed(seed)
    obs = venv.reset()
    rng = np.random.default_rng(seed)
    returns: list[float] = []
    current = np.zeros(16)
    while len(returns) < episodes:
        venv.step_async(policy(obs, rng))
        obs, r, done, _ = venv.step_wait()
        current += r
        for i in np.flatnonzero(done):
            returns.append(current[i])
            current[i] = 0
    return float(np.mean(returns))


def test_ppo_on_the_vector_env_beats_random() -> None:
    torch.set_num_threads(1)
    venv = make_sb3_vec(16, 2, **OPTIONS)
    model = sb3.PPO("MlpPolicy", venv, n_steps=64, batch_size=256, learning_rate=1e-3, seed=0, device="cpu")
    random_return = _mean_return(lambda o, rng: rng.integers(0, 9, len(o)))
    model.learn(12_000)
    trained_return = _mean_return(lambda o, rng: model.predict(o, deterministic=True)[0])
    # Random play gets about 0 m in 10 s; a few seconds of PPO learns to move forward.
    assert trained_return > random_return + 0.15, (random_return, trained_return)
