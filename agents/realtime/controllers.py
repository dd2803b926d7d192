"""The real-time controllers ``qwop play`` can use, by their settings, and a trace's record of them.

``plan``: the guided planner's beam kept ahead of the game (``agents.realtime.receding``), after
an opening planned offline if one is given (``agents.realtime.opening``).
``lookahead``: every action tried from the decision's state, each followed by the guide's
rollout (``agents.realtime.lookahead``; horizon 0 is the plain policy, which clicks in the intro
update it runs fastest from: ``agents.realtime.policy_click``). A trace ``qwop play``
writes keeps the settings (``meta["controller"]``), so that ``qwop play --check`` builds the
same controller to make its decisions again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np

from agents.realtime.lookahead import DEFAULT_HORIZON, LookaheadController
from agents.realtime.opening import load_opening
from agents.realtime.policy_click import best_click
from agents.realtime.receding import DEFAULT_BEAM, DEFAULT_LEAD, DEFAULT_LOOKAHEAD, BeamController
from agents.search.guided_rollouts import GuidePolicy
from sim_env.errors import UserInputError

KINDS = ("plan", "lookahead")


class Controller(Protocol):
    """What the real-time loop asks of a controller."""

    sincos: str
    last_depth: int
    short_of_time: int
    updates_simulated: int

    @property
    def frame_skip(self) -> int: ...

    def decide(
        self,
        snapshot: bytes | None,
        held: int,
        state: np.ndarray | None = None,
        deadline: float | None = None,
        depth: int | None = None,
    ) -> int: ...


@dataclass(frozen=True)
class ControllerSettings:
    """Which controller, with its settings (those of the other kind are unused)."""

    kind: str = "plan"
    beam: int = DEFAULT_BEAM  # plan: games kept
    lead: int = DEFAULT_LEAD  # plan: decisions the beam runs ahead
    lookahead: int = DEFAULT_LOOKAHEAD  # plan: guide decisions after each try
    horizon: int = DEFAULT_HORIZON  # lookahead: rollout decisions after each tried action
    late_weight: float = 0.0  # lookahead: weight of each action's outcome landing an update late
    opening: str = ""  # plan: the opening file followed first ("": none)
    policy_click: bool = True  # lookahead with horizon 0: click in the update the policy runs fastest from

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise UserInputError(f"the controller is one of {', '.join(KINDS)}, got {self.kind!r}")
        for name in ("beam", "lead", "lookahead"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise UserInputError(
                    f"the planner's {name} must be a whole number, at least 1, got {getattr(self, name)!r}"
                )
        if not isinstance(self.horizon, int) or self.horizon < 0:
            raise UserInputError(f"the lookahead's horizon must be a whole number, 0 or more, got {self.horizon!r}")
        if not isinstance(self.opening, str) or (self.opening and self.kind != "plan"):
            raise UserInputError(f"an opening is followed by the planner (--plan), got {self.opening!r}")
        if not isinstance(self.policy_click, bool):
            raise UserInputError(f"the policy's click is on or off (true or false), got {self.policy_click!r}")
        w = self.late_weight
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= w <= 1.0:
            raise UserInputError(f"the lookahead's late weight must be a number in [0, 1], got {w!r}")

    def build(
        self, guide: GuidePolicy, sincos: str = "fma", log: Callable[[str], None] | None = None, click: bool = True
    ) -> Controller:
        """The controller. The plain policy's click is found here (a few seconds; ``log`` says
        where it lands); ``click=False`` skips it (to check decisions, which it does not change)."""
        if self.kind == "plan":
            opening = load_opening(self.opening) if self.opening else None
            return BeamController(
                guide, beam=self.beam, lead=self.lead, lookahead=self.lookahead, sincos=sincos, opening=opening
            )
        controller = LookaheadController(guide, horizon=self.horizon, late=self.late_weight, sincos=sincos)
        if click and self.horizon == 0 and self.policy_click:
            if log is not None:
                log("the plain policy's click: its run from each intro-screen update, in the simulator")
            chosen = best_click(guide, sincos=sincos)
            controller.click_update = chosen.update
            if log is not None:
                log(chosen.describe())
        return controller

    def updates_per_stage(self, n_actions: int, frame_skip: int) -> int:
        """plan: the updates one stage of the beam simulates (at most; rollouts that end stop)."""
        return self.beam * n_actions * (self.lookahead + 1) * frame_skip

    def describe(self) -> str:
        if self.kind == "plan":
            opening = f", after the opening {self.opening}" if self.opening else ""
            return (
                f"planner in the loop (beam {self.beam}, {self.lead} decisions ahead, rollouts of {self.lookahead}"
                f"{opening})"
            )
        if self.horizon == 0:
            return "the plain policy" + ("" if self.policy_click else ", clicking when the page is ready")
        late = f", late keys weighed {self.late_weight:g}" if self.late_weight else ""
        return f"lookahead (rollouts of {self.horizon}{late})"

    def to_meta(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_args(cls, args: Any, default_opening: str = "") -> ControllerSettings:
        """The controller ``qwop play``'s command line asks for: the planner unless ``--horizon``
        or ``--late-weight`` ask for the lookahead (``--no-plan``: the lookahead at its default
        horizon); flags of the other kind are refused. The planner follows ``--opening``, else
        ``default_opening`` (``--no-opening``: none)."""
        flags = ("beam", "lead", "horizon", "late_weight", "opening", "policy_click")
        given = {k: getattr(args, k, None) for k in flags if getattr(args, k, None) is not None}
        if "policy_click" in given and given.get("horizon") != 0:
            raise UserInputError("--policy-click and --no-policy-click are the plain policy's (--horizon 0)")
        lookahead_flags = [f"--{k.replace('_', '-')}" for k in given if k in ("horizon", "late_weight")]
        plan_flags = [f"--{k}" for k in given if k in ("beam", "lead") or (k == "opening" and given[k])]
        plan = args.plan if args.plan is not None else not lookahead_flags
        if plan and lookahead_flags:
            raise UserInputError(f"{' and '.join(lookahead_flags)} set the lookahead; --plan plans with a beam instead")
        if not plan and plan_flags:
            raise UserInputError(f"{' and '.join(plan_flags)} set the planner, and the lookahead was asked for")
        if plan and "opening" not in given:
            given["opening"] = default_opening
        return cls("plan" if plan else "lookahead", **given)

    @classmethod
    def from_meta(cls, meta: dict[str, Any], where: str) -> ControllerSettings:
        """The settings a trace records; a trace from before ``plan`` names its lookahead's."""
        c = meta.get("controller")
        damaged = f"{where}: its controller settings are not qwop play's; the trace is damaged"
        if c is None:
            try:
                horizon, late = int(meta.get("horizon", DEFAULT_HORIZON)), float(meta.get("late_weight", 0.0))
            except (TypeError, ValueError):
                raise UserInputError(damaged) from None
            return cls("lookahead", horizon=horizon, late_weight=late)
        if not isinstance(c, dict) or set(c) - set(cls.__dataclass_fields__):
            raise UserInputError(damaged)
        try:
            return cls(**c)
        except TypeError:
            raise UserInputError(damaged) from None


__all__ = ["KINDS", "Controller", "ControllerSettings"]
