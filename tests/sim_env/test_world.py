"""The world is built by the same engine calls as the original (world.json, ENGINE.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import sim_env


@pytest.fixture(scope="module")
def world_json(reference: Path) -> dict:
    return json.loads((reference / "world.json").read_text())


def test_bodies_in_world_list_order(world_json: dict) -> None:
    got = sim_env.QwopSim().world_info()["bodies_in_world_list_order"]
    ref = world_json["bodies_in_world_list_order"]
    assert [b["userData"] for b in got] == [b["userData"] for b in ref]
    for g, r in zip(got, ref, strict=True):
        name = r["userData"]
        for key in ("type", "mass", "I", "invMass", "invI", "angle", "flags"):
            assert g[key] == r[key], f"{name}.{key}: {g[key]!r} != {r[key]!r}"
        assert list(g["position"]) == r["position"], name
        assert list(g["localCenter"]) == r["localCenter"], name
        assert len(g["fixtures"]) == len(r["fixtures"]), name
        for gf, rf in zip(g["fixtures"], r["fixtures"], strict=True):
            for key in ("density", "friction", "category", "mask"):
                assert gf[key] == rf[key], f"{name}.{key}"
            assert [list(v) for v in gf["vertices"]] == rf["vertices"], name


def test_joints_in_world_list_order(world_json: dict) -> None:
    got = sim_env.QwopSim().world_info()["joints_in_world_list_order"]
    ref = world_json["joints_in_world_list_order"]
    assert len(got) == len(ref)
    for g, r in zip(got, ref, strict=True):
        assert (g["bodyA"], g["bodyB"]) == (r["bodyA"], r["bodyB"])
        for key in (
            "referenceAngle",
            "enableLimit",
            "lowerAngle",
            "upperAngle",
            "enableMotor",
            "maxMotorTorque",
            "motorSpeed",
        ):
            assert g[key] == r[key], f"{r['name']}.{key}"
        assert list(g["localAnchorA"]) == r["localAnchorA"]
        assert list(g["localAnchorB"]) == r["localAnchorB"]


def _proxy_ids(sim: sim_env.QwopSim) -> dict[str, list[int]]:
    ids: dict[str, list[int]] = {}
    for b in sim.world_info()["bodies_in_world_list_order"]:
        for f in b["fixtures"]:
            ids.setdefault(str(b["userData"]), []).append(f["proxy"])
    return ids


def test_broad_phase_node_ids_at_load() -> None:
    # ENGINE.md section 15: tiles 0, 1, 3; block 5; hurdleBase 7, hurdleTop 9, torso 11,
    # then +2 per part in creation order up to rightThigh 33.
    ids = _proxy_ids(sim_env.QwopSim())
    assert sorted(ids["track"]) == [0, 1, 3]
    assert ids["None"] == [5]
    assert ids["hurdleBase"] == [7] and ids["hurdleTop"] == [9]
    order = [
        "torso",
        "head",
        "leftForearm",
        "leftThigh",
        "leftArm",
        "leftCalf",
        "leftFoot",
        "rightForearm",
        "rightArm",
        "rightCalf",
        "rightFoot",
        "rightThigh",
    ]
    assert [ids[p][0] for p in order] == list(range(11, 35, 2))


def test_broad_phase_node_ids_after_reset() -> None:
    # Recreated proxies reuse freed nodes last-freed-first: rightThigh 7, rightFoot 9, ...,
    # hurdleBase 31, torso 33.
    sim = sim_env.QwopSim()
    sim.reset(0)
    ids = _proxy_ids(sim)
    assert ids["rightThigh"] == [7]
    assert ids["rightFoot"] == [9]
    assert ids["hurdleBase"] == [31]
    assert ids["torso"] == [33]
    assert sorted(ids["track"]) == [0, 1, 3]


def _aabb_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    """Boxes of QWOP's sizes at random poses, and poses where a bound is exactly zero, -0,
    infinite or NaN of either sign (where which vertex the comparisons keep could show)."""
    angle = rng.uniform(-7.0, 7.0, n)
    s, c = np.sin(angle), np.cos(angle)
    rows = np.column_stack(
        [
            rng.uniform(0.3, 7.5, n),
            rng.uniform(0.3, 7.5, n),
            rng.uniform(-60, 600, n),
            rng.uniform(-20, 12, n),
            c,
            s,
            -s,
            c,
        ]
    )
    rows[: n // 8, 4:8] = [[1.0, 0.0, -0.0, 1.0]] * (n // 8)  # axis-aligned: vertices tie pairwise
    edge = rows[: n // 4].copy()
    # Place each box so that one bound is exactly zero before the radius is added (lower.x,
    # upper.x, lower.y, upper.y in turn): the position is the larger vertex offset, +-e.
    hx, hy, c1x, c1y, c2x, c2y = (edge[:, i] for i in (0, 1, 4, 5, 6, 7))
    ex = np.maximum(np.abs(c1x * hx + c2x * hy), np.abs(c1x * hx - c2x * hy))
    ey = np.maximum(np.abs(c1y * hx + c2y * hy), np.abs(c1y * hx - c2y * hy))
    k = np.arange(len(edge)) % 4
    edge[:, 2] = np.where(k == 0, ex, np.where(k == 1, -ex, edge[:, 2]))
    edge[:, 3] = np.where(k == 2, ey, np.where(k == 3, -ey, edge[:, 3]))
    special = rows[:8].copy()
    special[0, 2] = np.inf
    special[1, 3] = -np.inf
    special[2, 4] = np.nan
    special[3, 2] = np.nan
    special[4, 2:4] = [-0.0, 0.0]
    special[5, 4:8] = [0.0, 1.0, -1.0, 0.0]
    special[6, 2:4] = [0.0, -0.0]
    special[7, 0:2] = [0.0, 0.0]
    negative_nan = special[2:4].copy()
    negative_nan[0, 4] = negative_nan[1, 2] = np.copysign(np.nan, -1.0)
    special = np.vstack([special, negative_nan])
    return np.vstack([rows, edge, special])


def test_box_aabb_equals_the_four_vertex_computation() -> None:
    # The broad phase's box AABB uses the box's symmetry; it must keep the original's bits,
    # signed zeros and NaN included.
    rows = _aabb_rows(np.random.default_rng(5), 200_000)
    fast = sim_env._core.testing.box_aabb(rows)
    ref = sim_env._core.testing.box_aabb(rows, reference=True)
    assert np.count_nonzero(ref == -0.005) + np.count_nonzero(ref == 0.005) >= 50_000 // 4  # zero bounds reached
    np.testing.assert_array_equal(fast.view(np.uint64), ref.view(np.uint64))


def _js_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """JavaScript's Math.min, elementwise: NaN if either is NaN; -0 below +0."""
    m = np.where(a < b, a, np.where(b < a, b, np.where(np.signbit(a), a, b)))
    m[np.isnan(a) | np.isnan(b)] = np.nan
    return m


def _js_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """JavaScript's Math.max, elementwise: NaN if either is NaN; +0 above -0."""
    m = np.where(a > b, a, np.where(b > a, b, np.where(np.signbit(a), b, a)))
    m[np.isnan(a) | np.isnan(b)] = np.nan
    return m


def test_aabb_combine_and_contains_are_the_originals() -> None:
    # The combine is branch-free; it must still give Math.min/Math.max's bits: the smaller or
    # larger bound, -0 against +0 either way round, NaN from either side, equal bounds.
    rng = np.random.default_rng(9)
    n = 400_000
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.5])
    a = rng.integers(-40, 40, (n, 4)) / 8.0
    b = rng.integers(-40, 40, (n, 4)) / 8.0
    pick = rng.random((n, 4)) < 0.3
    a[pick] = rng.choice(special, np.count_nonzero(pick))
    pick = rng.random((n, 4)) < 0.3
    b[pick] = rng.choice(special, np.count_nonzero(pick))
    b[: n // 8] = -a[: n // 8]  # +-0 pairs, and equal magnitudes
    b[n // 8 : n // 4] = a[n // 8 : n // 4]
    got = sim_env._core.testing.aabb_combine(a, b)
    want = np.hstack([_js_min(a[:, :2], b[:, :2]), _js_max(a[:, 2:], b[:, 2:])])
    assert np.count_nonzero((a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))) > 10_000
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
    # Containment (tested two bounds at a time): the original's four <= comparisons, so a
    # NaN bound anywhere means "not contained", and -0 and +0 compare equal.
    inner = np.where(rng.random((n, 4)) < 0.5, a, a + np.array([0.5, 0.5, -0.5, -0.5]))
    inner[: n // 8] = np.copysign(0.0, -a[: n // 8]) * (a[: n // 8] == 0) + a[: n // 8] * (a[: n // 8] != 0)
    for outer, box in ((a, b), (a, inner), (inner, a)):
        want_in = (
            (outer[:, 0] <= box[:, 0])
            & (outer[:, 1] <= box[:, 1])
            & (box[:, 2] <= outer[:, 2])
            & (box[:, 3] <= outer[:, 3])
        )
        got_in = sim_env._core.testing.aabb_contains(outer, box)
        assert 1_000 < np.count_nonzero(got_in) < n
        np.testing.assert_array_equal(got_in, want_in)
