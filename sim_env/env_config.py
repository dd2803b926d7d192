"""Options shared by the single and vector simulator envs, validated in one place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

import numpy as np

from sim_env import _core
from sim_env.actions import action_masks, check_masks
from sim_env.errors import UserInputError
from sim_env.rewards import REWARD_TERMS, profile_weights
from sim_env.spec import SPEC

# The options that reach the engine (frame_skip, time_limit, frame_stack): their defaults,
# least values and help are declared once, in spec.json, with the C++ side's (spec.h).
_EPISODE: dict[str, dict[str, Any]] = SPEC["episode_options"]
# A click at most a minute into the intro screen (a page waits there as long as it is left).
MAX_CLICK_UPDATE = 60 * 30


class Start(NamedTuple):
    """Where an episode starts (:meth:`EnvConfig.draw_start`)."""

    click: int  # the update its click lands in (0: the traces' start)
    keys: np.ndarray  # int8 key masks played before its first step
    run: int = -1  # the start run those keys begin (its index), -1 for none


def _help(name: str) -> dict[str, str]:
    return {"help": _EPISODE[name]["help"]}


@dataclass(frozen=True)
class EnvConfig:
    """Everything that defines an env's interface and dynamics.

    action_set: ``full`` (16), ``distinct`` (9) or ``article`` (11); see ``sim_env.actions``.
    frame_skip: game updates per env step (1 update = 1/30 s); 2, 3 or 4 give the seed
        article's ~18, 9-10 and 7-8 actions per second (it used 9, 18 and 25).
    reward: profile name (``progress``, ``speed``, ``shaped``); see ``sim_env.rewards``.
    reward_weights: per-term weight overrides.
    time_limit: game seconds before an episode is truncated.
    frame_stack: observations concatenated per step (oldest first).
    start_noise_updates: if > 0, each episode starts with a random number (0..N) of
        updates with random keys, drawn from the env's seeded RNG. Off by default; the
        keys are part of the episode's history, so the run still replays exactly.
    start_runs: the demo files or folders (for example the planner's records) whose runs episodes
        may start inside, as a config names them. The envs do not read files: they take the runs'
        keys as ``start_keys`` (``demos.start_runs.start_run_keys(start_runs)``). An episode that
        starts inside a run plays the run's keys up to a random update first, so that the agent
        practises from states a good run reaches (a reverse curriculum). Their time counts toward
        ``time_limit``; the keys are part of the episode's history.
    start_share: the share of episodes that start inside one of the start runs.
    start_click: ``[lo, hi]``: the other episodes start as a real-time page's game does, after a
        click in an intro-screen update drawn from lo..hi (uniform; ``sim_env.starts``; start
        noise follows the click); ``[]``: at the traces' start. What real-time play starts from,
        a training option; evaluations set it themselves (the traces' start unless asked). The
        browser env refuses it (a real-time page has its own click).
    late_decision_prob: the share of steps whose keys land one update late (the step runs one
        more update first, with the keys held before it), drawn from the env's seeded RNG: what
        real-time play in the browser does to a share of decisions. A training option for robustness;
        evaluations set it themselves (0 unless asked). The browser env refuses it (real time
        has its own lateness).
    sincos: whose sin/cos the simulated game computes (``sim_env.libm``): ``fma``, the
        variant of the reference traces, or ``generic``. The browser env ignores it (the
        page computes its own; ``BrowserGame.sincos`` says which).
    """

    # Read by config loaders (agents.training.config validates training configs with pydantic).
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    action_set: str = field(default="distinct", metadata={"help": "full | distinct | article"})
    frame_skip: int = field(default=_EPISODE["frame_skip"]["default"], metadata=_help("frame_skip"))
    reward: str = field(default="progress", metadata={"help": "progress | speed | shaped"})
    reward_weights: dict[str, float] = field(
        default_factory=dict,
        metadata={"help": "per-term weight overrides, e.g. { time = -0.02 } (terms: sim_env.rewards.REWARD_TERMS)"},
    )
    time_limit: float = field(default=_EPISODE["time_limit"]["default"], metadata=_help("time_limit"))
    frame_stack: int = field(default=_EPISODE["frame_stack"]["default"], metadata=_help("frame_stack"))
    start_noise_updates: int = field(default=0, metadata={"help": "random-key updates (0..N) at each episode start"})
    start_runs: list[str] = field(
        default_factory=list,
        metadata={"help": "demo files or folders whose runs episodes may start inside (reverse curriculum)"},
    )
    start_share: float = field(default=0.5, metadata={"help": "share of episodes that start inside a start run"})
    start_click: list[int] = field(
        default_factory=list,
        metadata={"help": "[lo, hi]: episodes start after a click in an intro update drawn from lo..hi ([]: none)"},
    )
    late_decision_prob: float = field(
        default=0.0, metadata={"help": "share of steps whose keys land one update late (real-time play)"}
    )
    sincos: str = field(
        default="fma", metadata={"help": "whose sin/cos the simulator computes: fma (the original's traces) | generic"}
    )

    def __post_init__(self) -> None:
        action_masks(self.action_set)
        episode = self.episode  # the engine's options, checked once, in the binding
        for name in ("frame_skip", "frame_stack", "time_limit"):
            object.__setattr__(self, name, getattr(episode, name))  # an np.integer is kept as an int
        if isinstance(self.start_noise_updates, bool) or not isinstance(self.start_noise_updates, int) or (
            self.start_noise_updates < 0
        ):
            raise ValueError(f"start_noise_updates must be an int >= 0, got {self.start_noise_updates!r}")
        if isinstance(self.start_share, bool) or not isinstance(self.start_share, int | float) or not (
            0.0 <= self.start_share <= 1.0
        ):
            raise ValueError(f"start_share must be in [0, 1], got {self.start_share!r}")
        click = self.start_click
        if not isinstance(click, list | tuple) or not (
            len(click) == 0
            or (
                len(click) == 2
                and all(isinstance(u, int) and not isinstance(u, bool) for u in click)
                and 1 <= click[0] <= click[1] <= MAX_CLICK_UPDATE
            )
        ):
            raise ValueError(
                f"start_click must be [] or [lo, hi], intro updates 1 <= lo <= hi <= {MAX_CLICK_UPDATE}, got {click!r}"
            )
        object.__setattr__(self, "start_click", [int(u) for u in click])
        late = self.late_decision_prob
        if isinstance(late, bool) or not (isinstance(late, int | float) and 0.0 <= late <= 1.0):
            raise ValueError(f"late_decision_prob must be in [0, 1], got {self.late_decision_prob!r}")
        if self.sincos not in ("fma", "generic"):
            raise ValueError(f"sincos must be 'fma' or 'generic' (see sim_env.libm), got {self.sincos!r}")

    @classmethod
    def given(cls, config: EnvConfig | None, options: dict[str, Any]) -> EnvConfig:
        """The config an env was given: whole (``config=``, as a training run passes it), or as
        keyword options (as ``gymnasium.make`` passes them), never both."""
        if config is None:
            return cls(**options)
        if options:
            raise TypeError(f"give config or its options ({', '.join(options)}), not both")
        if not isinstance(config, cls):
            raise TypeError(f"config must be an EnvConfig, got {type(config).__name__}")
        return config

    @property
    def masks(self) -> np.ndarray:
        return action_masks(self.action_set)

    @property
    def weights(self) -> np.ndarray:
        return profile_weights(self.reward, self.reward_weights)

    def start_keys(self, start_keys: Sequence[Any] | None) -> list[np.ndarray]:
        """An env's start runs, checked: one int8 key mask per update each (see ``start_runs``)."""
        if start_keys is None or len(start_keys) == 0:
            if self.start_runs:
                raise UserInputError(
                    "start_runs names demo files, which the env does not read: pass their runs' keys as "
                    "start_keys=demos.start_runs.start_run_keys(start_runs)"
                )
            return []
        try:
            return [check_masks(k, f"start_keys[{i}]") for i, k in enumerate(start_keys)]
        except ValueError as exc:
            raise UserInputError(f"{exc}: each start run is a run's key masks, one per update") from None

    def draw_start(self, rng: np.random.Generator, runs: Sequence[np.ndarray] = ()) -> Start:
        """Where one episode starts: the update its click lands in (0: the traces' start; see
        ``start_click``) and the keys played before its first step (int8): with
        ``start_share``, a start run's keys (``runs``, from :meth:`start_keys`, from the traces'
        start) up to a random update; else 0..start_noise_updates random masks."""
        if runs and self.start_share > 0 and rng.random() < self.start_share:
            i = int(rng.integers(0, len(runs)))
            return Start(0, runs[i][: int(rng.integers(0, len(runs[i])))].copy(), i)
        click = int(rng.integers(self.start_click[0], self.start_click[1] + 1)) if self.start_click else 0
        n = self.start_noise_updates
        if not n:
            return Start(click, np.zeros(0, dtype=np.int8))
        count = int(rng.integers(0, n + 1))
        return Start(click, rng.integers(0, 16, count).astype(np.int8))

    def draw_late(self, rng: np.random.Generator, n: int) -> np.ndarray | None:
        """Per env, the late updates of its next step (uint8, 0 or 1; see ``late_decision_prob``),
        or None without late decisions (no draw, so the RNG's stream is the same as before the
        option existed)."""
        if not self.late_decision_prob:
            return None
        return (rng.random(n) < self.late_decision_prob).astype(np.uint8)

    @property
    def max_updates(self) -> int:
        """Updates per episode before truncation (the engine's one conversion of game time)."""
        return _core.max_updates(self.time_limit)

    @property
    def episode(self) -> _core.EpisodeOptions:
        """The C++ episode's options (``sim_env._core.Env``, ``Episode``, ``BatchSim`` take them)."""
        return _core.EpisodeOptions(
            frame_skip=self.frame_skip, time_limit=self.time_limit, frame_stack=self.frame_stack, weights=self.weights
        )


def step_keys(before: list[int], mask: int, updates: int, late: int) -> list[int]:
    """The key mask of each of the ``updates`` a step ran: ``late`` updates with the keys of the
    episode's last update (``before``; none yet: the fresh game's, no keys), then ``mask``."""
    held = before[-1] if before else 0
    d = min(late, updates)
    return [held] * d + [mask] * (updates - d)


__all__ = ["REWARD_TERMS", "EnvConfig", "Start", "step_keys"]
