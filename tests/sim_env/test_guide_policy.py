"""The guide's network in C++ (``sim_env.GuidePolicy``): each output is its products summed in
order in IEEE double, the same bits whether a row is computed alone, in a group sharing the
weights, in the AVX2 lanes or on the portable path, so a guided search gives the same run on
any machine."""

from __future__ import annotations

import numpy as np
import pytest

import sim_env
from tests.support import portable_and_fast

OBS = 83


def _network(seed: int, sizes: list[int], heads: int, n_actions: int, last: str = "none") -> list:
    """Random layers (weight (in, out), bias, activation); widths that are not multiples of
    the lanes' eight outputs, so the remainder path runs too."""
    rng = np.random.default_rng(seed)
    dims = [OBS, *sizes, heads * n_actions]
    acts = ["relu"] * len(sizes) + [last]
    return [
        (rng.normal(0, 0.3, (a, b)), rng.normal(0, 0.1, b), act)
        for a, b, act in zip(dims[:-1], dims[1:], acts, strict=True)
    ]


def _in_order(layers: list, head_weights: np.ndarray, n_actions: int, obs: np.ndarray) -> np.ndarray:
    """The network with every sum taken in input order from 0.0, one rounded product and one
    rounded sum at a time (numpy's elementwise operations): what the C++ must equal, bit for bit."""
    h = obs.astype(np.float64)
    for w, b, act in layers:
        acc = np.zeros((len(h), w.shape[1]))
        for j in range(w.shape[0]):
            acc = acc + h[:, j : j + 1] * w[j]
        h = acc + b
        if act == "relu":
            h = np.where(h > 0.0, h, 0.0)
    per_head = h.reshape(len(h), -1, n_actions)
    out = np.zeros((len(h), n_actions))
    for head, weight in enumerate(head_weights):
        out = out + weight * per_head[:, head]
    return out


def _obs(n: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, 1, (n, OBS)).astype(np.float32)


@pytest.mark.parametrize(("sizes", "heads", "n_actions"), [([256, 128], 1, 9), ([37, 20], 2, 9), ([16], 1, 4)])
def test_values_are_the_products_summed_in_order(sizes: list[int], heads: int, n_actions: int) -> None:
    layers = _network(0, sizes, heads, n_actions)
    weights = np.linspace(0.5, 1.5, heads)
    policy = sim_env.GuidePolicy(layers, n_actions, weights, np.arange(n_actions, dtype=np.int8), 4)
    obs = _obs(23)
    assert np.array_equal(policy.values(obs), _in_order(layers, weights, n_actions, obs))


def test_a_row_is_the_same_alone_or_in_any_group() -> None:
    layers = _network(2, [256, 128], 1, 9, last="tanh")
    policy = sim_env.GuidePolicy(layers, 9, np.ones(1), np.arange(9, dtype=np.int8), 4)
    obs = _obs(9)
    alone = np.stack([policy.values(obs[i : i + 1])[0] for i in range(len(obs))])
    for n in range(1, len(obs) + 1):  # whole groups of four and every partial group
        assert np.array_equal(policy.values(obs[:n]), alone[:n]), n
    states = np.stack([sim_env.replay(np.full(30 + 7 * i, i % 16, dtype=np.int8))["state"][-1] for i in range(7)])
    assert np.array_equal(policy.act(states), [policy.act(states[i : i + 1])[0] for i in range(7)])


_DIGEST = """
import hashlib, numpy as np, sim_env
rng = np.random.default_rng(5)
layers = [(rng.normal(0, 0.3, (83, 256)), rng.normal(0, 0.1, 256), "relu"),
          (rng.normal(0, 0.3, (256, 131)), rng.normal(0, 0.1, 131), "tanh"),
          (rng.normal(0, 0.3, (131, 9)), rng.normal(0, 0.1, 9), "none")]
p = sim_env.GuidePolicy(layers, 9, np.ones(1), np.arange(9, dtype=np.int8), 4)
obs = rng.normal(0, 1, (41, 83)).astype(np.float32)
print(hashlib.sha256(p.values(obs).tobytes()).hexdigest())
"""


def test_the_portable_path_gives_the_same_bits() -> None:
    """What a CPU without AVX2 runs (row by row; QWOP_SIM_PORTABLE=1) equals the lanes."""
    digests = {portable: out.strip() for portable, out in portable_and_fast(_DIGEST).items()}
    assert digests["0"] == digests["1"] and len(digests["0"]) == 64
