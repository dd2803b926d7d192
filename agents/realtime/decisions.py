"""A real-time run's decisions, kept in its trace and made again offline.

Each decision of ``qwop play`` is a function of the page's states up to the update it is for
and of how it was made: the planner's stages (fewer than planned when the keys were due first),
the lookahead's rollout depth (likewise), or the plain policy. The trace keeps the controller's
settings (``meta["controller"]``) and, per decision, the update it was for, that depth and the
keys chosen (``meta["decisions"]``). :func:`check_decisions` replays the trace's session in the
simulator and makes every decision again, in order, from the same states and depths: a run's
choices are reproducible offline, bit for bit, whatever the machine's load was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import sim_env
from agents.realtime.controllers import ControllerSettings
from agents.realtime.lookahead import PLAIN_FROM_STATE
from agents.search.guided_rollouts import guide_from_model
from agents.training.model_files import check_model_file
from demos.format import Demo, load_demo
from sim_env.errors import UserInputError
from sim_env.spec import CLICK_EVENT, RESET_EVENT_BASE


@dataclass
class DecisionLog:
    """Per decision: the page update it was for (the one after the update whose state it was
    made from, which is later than planned when the page had already run past the plan's), the
    controller's ``last_depth`` and the keys."""

    intended: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)

    def add(self, intended: int, depth: int, mask: int) -> None:
        self.intended.append(int(intended))
        self.depth.append(int(depth))
        self.mask.append(int(mask))

    def __len__(self) -> int:
        return len(self.mask)

    def to_meta(self) -> dict[str, list[int]]:
        return {"intended": self.intended, "depth": self.depth, "mask": self.mask}

    @classmethod
    def from_meta(cls, meta: dict[str, Any], where: str) -> DecisionLog:
        d = meta.get("decisions")
        if not isinstance(d, dict) or not all(isinstance(d.get(k), list) for k in ("intended", "depth", "mask")):
            raise UserInputError(f"{where} has no decisions to check (a trace written by qwop play has them)")
        if not len(d["intended"]) == len(d["depth"]) == len(d["mask"]):
            raise UserInputError(f"{where}: its decisions' lists differ in length; the trace is damaged")
        try:
            return cls([int(x) for x in d["intended"]], [int(x) for x in d["depth"]], [int(x) for x in d["mask"]])
        except (TypeError, ValueError):
            raise UserInputError(f"{where}: its decisions are not whole numbers; the trace is damaged") from None


def _states_before(demo: Demo, updates: set[int], sincos: str) -> dict[int, bytes]:
    """The exact game state after each page update in ``updates`` (a snapshot), from the
    session's events replayed as the page's mirror followed them."""
    sim = sim_env.QwopSim(first_click=False, sincos=sincos)
    sim.score_time = float(demo.initial_score_time)
    out: dict[int, bytes] = {}
    index = np.asarray(demo.arrays["update_index"])
    last, held = 0, 0
    for event, update in zip(np.asarray(demo.events), index, strict=True):
        event = int(event)
        if event == CLICK_EVENT:
            sim.click()
            continue
        if event >= RESET_EVENT_BASE:
            sim.reset(event - RESET_EVENT_BASE)
        else:
            sim.update(event)
        last, held = int(update), event % RESET_EVENT_BASE
        if last in updates:
            out[last] = sim.snapshot()
    # The last decision can be for an update the page never ran (the game ended first): it was
    # made from the mirror's prediction, the keys held run on, as here.
    for u in range(last + 1, max(updates, default=0) + 1):
        sim.update(held)
        if u in updates:
            out[u] = sim.snapshot()
    return out


def check_decisions(demo: Demo, where: str, model: str | None = None) -> dict[str, Any]:
    """Every decision of a ``qwop play`` trace made again offline; ``model``: the guide
    (default: the one the trace names). Returns ``checked``, ``equal`` and, for the first that
    differs, ``first_difference`` (its index, update, recorded and recomputed keys)."""
    meta = demo.meta
    log = DecisionLog.from_meta(meta, where)
    sincos = str(meta.get("sincos", "fma"))
    model = model or meta.get("model")
    if not model:
        raise UserInputError(f"{where} does not name its model; give it")
    settings = ControllerSettings.from_meta(meta, where)
    controller = settings.build(guide_from_model(str(model)), sincos, click=False)
    states = _states_before(demo, {u - 1 for u in log.intended}, sincos)
    index = np.asarray(demo.arrays["update_index"])
    row_of = {int(u): r for r, u in enumerate(index)}  # each update's (last) row
    keys = np.asarray(demo.arrays["keys"])
    body = np.asarray(demo.arrays["state"])
    equal, first = 0, None
    for i, (u, depth, mask) in enumerate(zip(log.intended, log.depth, log.mask, strict=True)):
        if u - 1 not in states:
            raise UserInputError(f"{where}: decision {i} is for update {u}, before the session's first")
        row = row_of.get(u - 1, len(index) - 1)  # past the end: the last update's
        held = int(keys[row])
        snap = None if depth == PLAIN_FROM_STATE else states[u - 1]
        again = controller.decide(snap, held, body[row] if snap is None else None, depth=depth)
        if again == mask:
            equal += 1
        elif first is None:
            first = {"index": i, "update": u, "recorded": mask, "again": again, "depth": depth}
    return {"checked": len(log), "equal": equal, "first_difference": first}


def main_check(trace: str, model: str | None) -> int:
    """``qwop play --check TRACE``: 0 if every decision is made again as recorded, else 1."""
    path = Path(trace)
    if not path.is_file():
        raise UserInputError(f"trace not found: {path} (qwop play --trace or --out writes one)")
    if model is not None:
        model = str(check_model_file(model))
    r = check_decisions(load_demo(path), str(path), model)
    print(f"{r['equal']} of {r['checked']} decisions made again offline are the recorded ones")
    if r["first_difference"] is not None:
        d = r["first_difference"]
        print(
            f"the first that differs: decision {d['index']} (for update {d['update']}, depth {d['depth']}): "
            f"recorded keys {d['recorded']}, made again {d['again']}"
        )
        return 1
    return 0


__all__ = ["DecisionLog", "check_decisions", "main_check"]
