"""The world is built by the same engine calls as the original (world.json, ENGINE.md)."""

from __future__ import annotations

import json
from pathlib import Path

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
