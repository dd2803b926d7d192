"""Builds the open stand-in game folder used by the browser tests.

The folder looks like a user's game folder (``QWOP.min.js`` + ``assetbundle.parcel``), but
its ``QWOP.min.js`` is planck.js (MIT, from npm) followed by our stand-in game
(``adapter_js/standin/standin_game.js``) and its layout data, taken from the simulator's
public constants. It has the original's object model and domain lock, not its code.
"""

from __future__ import annotations

import json
from pathlib import Path

import sim_env
from adapter_js import ROOT as ADAPTER_ROOT

STANDIN_DIR = ADAPTER_ROOT / "standin"
PLANCK = STANDIN_DIR / "node_modules" / "planck" / "dist" / "planck.min.js"


def standin_data() -> dict:
    """Part and joint layout for the stand-in, from the simulator's initial world."""
    info = sim_env.QwopSim().world_info()
    bodies = {b["userData"]: b for b in info["bodies_in_world_list_order"] if b["userData"]}
    parts = []
    for name in sim_env.PART_CREATION_ORDER:
        b = bodies[name]
        f = b["fixtures"][0]
        hx, hy = f["vertices"][2]
        parts.append(
            {
                "name": name,
                "x": b["position"][0],
                "y": b["position"][1],
                "angle": b["angle"],
                "hx": hx,
                "hy": hy,
                "density": f["density"],
                "friction": f["friction"],
            }
        )
    joints = []
    names = iter(reversed(sim_env.JOINT_NAMES))  # world list is newest first
    for j in info["joints_in_world_list_order"]:
        if j["bodyA"] == "hurdleTop":
            continue
        joints.append(
            {
                "name": next(names),
                "bodyA": j["bodyA"],
                "bodyB": j["bodyB"],
                "anchorA": list(j["localAnchorA"]),
                "lower": j["lowerAngle"],
                "upper": j["upperAngle"],
                "motor": j["enableMotor"],
                "maxMotorTorque": j["maxMotorTorque"],
            }
        )
    base, top = bodies["hurdleBase"], bodies["hurdleTop"]
    hurdle_joint = next(j for j in info["joints_in_world_list_order"] if j["bodyA"] == "hurdleTop")
    return {
        "parts": parts,
        "joints": list(reversed(joints)),
        "order": list(sim_env.PART_NAMES),
        "hurdle": {
            "base": list(base["position"]),
            "top": list(top["position"]),
            "baseHalf": list(base["fixtures"][0]["vertices"][2]),
            "topHalf": list(top["fixtures"][0]["vertices"][2]),
            "anchorTop": list(hurdle_joint["localAnchorA"]),
        },
    }


def build_standin(dest: str | Path, *, never_finish_loading: bool = False, layout: str = "top") -> Path:
    """Write a stand-in game folder at ``dest`` and return it.

    ``layout`` "top" puts both files at the top, "assets" under ``assets/``.
    ``never_finish_loading`` makes the page never report that its assets loaded.
    """
    if not PLANCK.is_file():
        raise FileNotFoundError(
            f"planck.js is missing ({PLANCK}); install the stand-in's dependency with: "
            f"npm install --prefix {STANDIN_DIR}"
        )
    dest = Path(dest)
    folder = dest / "assets" if layout == "assets" else dest
    folder.mkdir(parents=True, exist_ok=True)
    script = "\n".join(
        [
            PLANCK.read_text(encoding="utf-8"),
            ";window.__STANDIN_DATA__ = " + json.dumps(standin_data()) + ";",
            (STANDIN_DIR / "standin_game.js").read_text(encoding="utf-8"),
        ]
    )
    (folder / "QWOP.min.js").write_text(script, encoding="utf-8")
    parcel = "NEVER-FINISH-LOADING\n" if never_finish_loading else "stand-in asset bundle\n"
    (folder / "assetbundle.parcel").write_text(parcel, encoding="utf-8")
    return dest
