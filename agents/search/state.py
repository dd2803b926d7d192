"""A planner search's configuration and state, and saving, loading and describing it.

A state holds everything a search needs to go on (the beam as key sequences, the RNG, the best
run and its pace), so a stopped search resumes exactly; it is saved as one ``.npz``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

import sim_env
from agents.search.guided_rollouts import GuidePolicy, guide_from_model
from sim_env.actions import MAX_MASK, action_masks
from sim_env.errors import UserInputError
from sim_env.files import write_whole
from sim_env.spec import UNITS_PER_METRE
from sim_env.starts import replay_keys

STATE_VERSION = 1


def _part(name: str) -> int:
    return sim_env.PART_NAMES.index(name)


TORSO = _part("torso")
HEAD = _part("head")
LEFT_THIGH = _part("leftThigh")
RIGHT_THIGH = _part("rightThigh")


@dataclass(frozen=True)
class PlannerConfig:
    beam: int = 256  # games kept per stage
    children: int = 32  # copies expanded per kept game
    horizon: int = 24  # updates per stage
    # Holds of 6-30 updates, 256 games x 32 copies and 24 updates per stage went farthest per
    # unit of work (docs/history/search.md, "Why the planner's defaults are what they are").
    min_hold: int = 6  # updates a key mask is held, at least
    max_hold: int = 30  # and at most
    action_set: str = "distinct"  # which key masks segments use (sim_env.actions)
    speed_weight: float = 1.5  # score = distance (m) + speed_weight * torso speed (m/s)
    height_weight: float = 1.0  # plus this x the head's height above the track (m): an upright runner
    per_cell: int = 8  # kept games per diversity cell
    cell_m: float = 0.5  # cell size along the track (m)
    time_limit: float = 100.0  # game seconds before a line of search is given up
    refine: float = 0.75  # after a finish, share of restarts that resume the best run from a random point
    pace_margin_m: float = 3.0  # once a run finished, drop games this far behind it at the same update
    seed: int = 0
    sincos: str = "fma"
    guide: str = ""  # a trained model (.zip): the guided search (module docstring); "" = unguided
    guide_sha256: str = ""  # the model file's hash, checked when a guided search resumes
    lookahead: int = 15  # guided: decisions of the policy's rollout after each tried action
    # lines of search grown side by side, each with its own beam and restarts, sharing the best
    # run: every stage grows all of them in one batch (on every core, or spread over a Ray
    # cluster), so more lines keep more workers busy
    lines: int = 1
    # guided: random-key updates (0..N) before every line from the start, the first too, so that
    # lines differ (the same range as qwop eval's start noise)
    start_noise: int = 15
    # guided: updates each tried action is held before the guide's rollout takes over (a finer
    # choice of timing than the guide's own decisions); 0 = the guide's frame_skip
    try_updates: int = 0
    # guided: at most this many of one kept game's tries go on in the next beam (0 = no limit),
    # so that the beam holds several games' lines rather than the best game's tries alone
    per_parent: int = 0
    # guided: games kept per stage once a run has finished (0 = beam); every line then tries
    # to beat that run, and a wider beam finds the faster ways on that a narrow one misses
    refine_beam: int = 0
    # guided: once the best run has stood this many updates (no faster finish found), every
    # try from then on is held ``fine_try_updates`` updates (a finer choice of when the keys
    # change than the guide's own decisions, for a search stalled at them); 0 = never
    fine_after: int = 0
    fine_try_updates: int = 0  # 0 = as before the switch (try_updates)
    # where every line starts: 0 = the traces' start (the click made, no update run); else the
    # state a fresh real-time page has after a click in this update (qwop play's opening)
    click_update: int = 0

    def check(self) -> None:
        for name in ("beam", "children", "horizon", "min_hold", "per_cell", "lookahead", "lines"):
            if getattr(self, name) < 1:
                raise UserInputError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_hold < self.min_hold:
            raise UserInputError(f"max_hold ({self.max_hold}) must be at least min_hold ({self.min_hold})")
        if not self.time_limit > 0 or not self.cell_m > 0:
            raise UserInputError("time_limit and cell_m must be positive")
        counts = ("start_noise", "try_updates", "per_parent", "refine_beam", "fine_after", "fine_try_updates")
        counts += ("click_update",)
        negative = [f"{name} = {getattr(self, name)}" for name in counts if getattr(self, name) < 0]
        if negative:
            raise UserInputError(f"{', '.join(negative)}: {', '.join(counts)} must be at least 0")
        action_masks(self.action_set)


# The guided search's defaults, each the best measured (docs/history/search.md, "Why the
# planner's defaults are what they are"): games kept per decision; at most this many tries of
# one kept game in the next beam (diversity); games kept once a run has finished (every line
# then works to beat it); and, once the best run has stood GUIDED_FINE_AFTER updates, tries
# held GUIDED_FINE_TRY_UPDATES updates rather than the guide's 4 (a finer choice of timing).
GUIDED_BEAM = 8
GUIDED_PER_PARENT = 2
GUIDED_REFINE_BEAM = 128
GUIDED_FINE_AFTER = 50_000_000
GUIDED_FINE_TRY_UPDATES = 2


def guided_config(guide: str, **settings: Any) -> PlannerConfig:
    """The guided search's settings (the guide and the beams above), with ``settings`` over them."""
    base = {
        "beam": GUIDED_BEAM,
        "per_parent": GUIDED_PER_PARENT,
        "refine_beam": GUIDED_REFINE_BEAM,
        "fine_after": GUIDED_FINE_AFTER,
        "fine_try_updates": GUIDED_FINE_TRY_UPDATES,
    }
    return PlannerConfig(guide=guide, **{**base, **settings})


# Fields a command sets from options of its own, which a --set would silently override.
_OWN_OPTIONS = {"seed": "--seed", "guide": "--guide (or the model argument)", "guide_sha256": "the guide's file"}


def with_settings(config: PlannerConfig, settings: list[str]) -> PlannerConfig:
    """``config`` with ``NAME=VALUE`` settings (PlannerConfig fields, values of the field's
    type), checked; a UserInputError names what is wrong, as the ``--set`` of the commands
    that take these settings."""
    import dataclasses

    types = {f.name: type(f.default) for f in dataclasses.fields(PlannerConfig)}
    changes: dict[str, Any] = {}
    for item in settings:
        name, sep, value = item.partition("=")
        if name in _OWN_OPTIONS:
            raise UserInputError(f"--set {item!r}: {name} is set by {_OWN_OPTIONS[name]}, not by --set")
        if not sep or name not in types:
            raise UserInputError(f"--set {item!r}: settings are NAME=VALUE with NAME one of {', '.join(sorted(types))}")
        try:
            changes[name] = types[name](value)
        except ValueError:
            kind = {int: "a whole number", float: "a number"}.get(types[name], "text")
            raise UserInputError(f"--set {item!r}: {name} takes {kind}") from None
    out = dataclasses.replace(config, **changes)
    try:
        out.check()
    except UserInputError as exc:
        raise UserInputError(f"--set {exc}") from None
    return out


@dataclass
class SearchState:
    """Everything a search needs to go on: saved every ``agents.search.run.SAVE_EVERY_S`` and when a search stops."""

    config: PlannerConfig
    stage: int = 0
    keys: list[np.ndarray] = field(default_factory=list)  # each beam game's key masks so far
    line: list[int] = field(default_factory=list)  # each beam game's line of search (PlannerConfig.lines)
    rng: dict[str, Any] = field(default_factory=dict)
    best_keys: np.ndarray | None = None
    best_x: np.ndarray | None = None  # the best run's torso x (m) after each update
    best_time_s: float = float("inf")
    farthest_m: float = 0.0
    updates: int = 0
    cpu_seconds: float = 0.0
    restarts: int = 0
    history: list[tuple[int, float, float]] = field(default_factory=list)  # (updates, best time, farthest m)
    wall: list[float] = field(default_factory=list)  # wall-clock seconds of search at the end of each stage
    cpu: list[float] = field(default_factory=list)  # CPU-seconds of search (all threads) at the end of each stage
    stopped_by: str = ""  # the signal that ended the search after a whole stage (not saved)


def save_state(st: SearchState, path: Path) -> None:
    """Write the state atomically (numpy arrays and JSON in one .npz; the beam as keys)."""
    meta = {
        "version": STATE_VERSION,
        "config": asdict(st.config),
        "rng": st.rng,
        "stage": st.stage,
        "best_time_s": st.best_time_s if st.best_keys is not None else None,
        "farthest_m": st.farthest_m,
        "updates": st.updates,
        "cpu_seconds": st.cpu_seconds,
        "restarts": st.restarts,
    }
    arrays = {
        "meta": np.array(json.dumps(meta)),
        # the beam's keys end to end (lines started at different times differ in length)
        "beam_keys_flat": np.concatenate(st.keys) if st.keys else np.zeros(0, dtype=np.int8),
        "beam_key_lengths": np.array([len(k) for k in st.keys], dtype=np.int64),
        "beam_line": np.array(st.line, dtype=np.int64),
        "history": np.array(st.history, dtype=np.float64).reshape(-1, 3),
        "wall": np.array(st.wall, dtype=np.float64),
        "cpu": np.array(st.cpu, dtype=np.float64),
    }
    if st.best_keys is not None:
        arrays["best_keys"] = st.best_keys
    write_whole(path, lambda f: np.savez_compressed(f, **arrays))


def _ints(z: Any, name: str, low: int, high: int) -> np.ndarray:
    """A saved array of whole numbers in [low, high] (a float or out-of-range entry is damage)."""
    a = z[name]
    if a.dtype.kind not in "iu" or (a.size and (a.min() < low or a.max() > high)):
        raise ValueError(f"{name} must hold whole numbers from {low} to {high}")
    return a


def _number(meta: dict[str, Any], name: str, whole: bool) -> Any:
    v = meta[name]
    ok = isinstance(v, int) if whole else isinstance(v, int | float) and np.isfinite(v)
    if isinstance(v, bool) or not ok or v < 0:
        raise ValueError(f"{name} must be a {'whole ' if whole else ''}number of at least 0, got {v!r}")
    return v


def load_state(path: str | Path) -> SearchState:
    """A saved search (see :func:`save_state`), its every field checked; one-line errors for a
    missing, unreadable or damaged file."""
    p = Path(path)
    try:
        with np.load(p, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if meta.get("version") != STATE_VERSION:
                raise ValueError(f"state version {meta.get('version')}, this planner reads {STATE_VERSION}")
            # a state saved before per_parent and refine_beam searched without them, and resumes so
            st = SearchState(config=PlannerConfig(**{"per_parent": 0, "refine_beam": 0, **meta["config"]}))
            st.config.check()  # a state edited by hand (horizon 0 would never end a stage)
            if "beam_key_lengths" in z:
                flat = _ints(z, "beam_keys_flat", 0, MAX_MASK)
                lengths = _ints(z, "beam_key_lengths", 0, len(flat))
                if int(lengths.sum()) != len(flat):
                    raise ValueError("beam_key_lengths do not add up to the beam's keys")
                ends = np.cumsum(lengths)
                st.keys = [k.astype(np.int8) for k in np.split(flat, ends[:-1])] if len(ends) else []
                st.line = [int(v) for v in _ints(z, "beam_line", 0, 2**62)]
                if len(st.line) != len(st.keys):
                    raise ValueError("beam_line does not match the beam")
            else:  # saved before lines: one line, all of one length
                st.keys = [row.astype(np.int8) for row in _ints(z, "beam_keys", 0, MAX_MASK)]
            history = z["history"]
            if history.dtype.kind != "f" or history.ndim != 2 or history.shape[1] != 3:
                raise ValueError("history must be rows of 3 numbers")
            st.history = [(int(u), float(b), float(f)) for u, b, f in history]
            st.wall = [float(w) for w in z["wall"]]
            st.cpu = [float(c) for c in z["cpu"]] if "cpu" in z else []  # states saved before it was kept
            if "best_keys" in z:
                st.best_keys = _ints(z, "best_keys", 0, MAX_MASK).astype(np.int8)
            np.random.Generator(np.random.PCG64()).bit_generator.state = meta["rng"]  # a generator's state
            st.rng, st.stage = meta["rng"], _number(meta, "stage", True)
            st.updates, st.restarts = _number(meta, "updates", True), _number(meta, "restarts", True)
            st.farthest_m, st.cpu_seconds = _number(meta, "farthest_m", False), _number(meta, "cpu_seconds", False)
            if st.best_keys is not None:
                _number(meta, "best_time_s", False)
    except FileNotFoundError:
        raise UserInputError(f"resume file not found: {p}") from None
    except Exception as exc:
        what = f"{type(exc).__name__} {exc}" if isinstance(exc, KeyError) else str(exc)
        raise UserInputError(f"cannot resume from {p}: {what}; start a new search without --resume") from None
    if st.best_keys is not None:
        out = replay_keys(st.best_keys, st.config.sincos, st.config.click_update)
        # The saved best run must be what the file says it is: a finish in best_time_s.
        finished = bool(sim_env.finished_100m(out["game_ended"][-1], out["jump_landed"][-1], out["score"][-1]))
        if not finished or float(out["score_time"][-1]) != float(meta["best_time_s"]):
            raise UserInputError(
                f"cannot resume from {p}: its best run does not replay to a finish in {meta['best_time_s']} s; "
                "start a new search without --resume"
            )
        st.best_time_s = meta["best_time_s"]
        st.best_x = out["state"][:, TORSO, 0] / UNITS_PER_METRE
    return st


def best_found_at(history: list[tuple[int, float, float]]) -> tuple[float, int]:
    """The best finish in ``history`` (inf if none) and the updates done at the end of the first
    stage that had it (a best run given at the start counts from the first stage)."""
    return min(((time_s, done) for done, time_s, _ in history if time_s < float("inf")), default=(float("inf"), 0))


def stood(best: float, at: int, done: int, updates: int) -> bool:
    """Whether a best finish found when ``at`` updates were done had stood ``updates`` updates
    (never if 0) when ``done`` were: the switch to finer tries."""
    return updates > 0 and best < float("inf") and done - at >= updates


def stalled_for(history: list[tuple[int, float, float]], updates: int) -> bool:
    """Whether, after some stage of ``history``, the best finish had stood ``updates`` updates
    (never if 0): how a resumed search knows it had switched to finer tries."""
    best, at = float("inf"), 0
    for done, time_s, _ in history:
        if time_s < best:
            best, at = time_s, done
        if stood(best, at, done, updates):
            return True
    return False


def describe(state: SearchState) -> dict[str, Any]:
    return {
        "best_time_s": None if state.best_keys is None else state.best_time_s,
        "farthest_m": state.farthest_m,
        "updates": state.updates,
        "cpu_seconds": state.cpu_seconds,
        "stages": len(state.history),
        "restarts": state.restarts,
        "config": asdict(state.config),
    }


def new_state(config: PlannerConfig) -> SearchState:
    config.check()
    if config.guide:
        from agents.training.model_files import check_model_file  # torch: only a guided search needs it

        path = check_model_file(config.guide).resolve()
        config = replace(config, guide=str(path), guide_sha256=_sha256(path))
        load_guide(config)  # a model the guide cannot read fails here, in one line
    return SearchState(config=config)


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_guide(config: PlannerConfig) -> GuidePolicy:
    """The guide of a guided search; the model file must be the one the search started with."""
    from agents.training.model_files import check_model_file  # torch: only a guided search needs it

    path = check_model_file(config.guide)
    if config.guide_sha256 and _sha256(path) != config.guide_sha256:
        raise UserInputError(
            f"{path} has changed since this search started (its guide); restore that model or start a new search"
        )
    return guide_from_model(str(path))


def seed_best_run(state: SearchState, keys: np.ndarray) -> float:
    """Start a new search with a known run (for example a trained agent's, or another
    search's) as its best: pace pruning and refinement restarts work from it at once.
    Returns its finish time; a run that does not finish 100 m is refused."""
    run = replay_keys(keys, state.config.sincos, state.config.click_update)
    done = sim_env.finished_100m(run["game_ended"].astype(bool), run["jump_landed"].astype(bool), run["score"])
    if not done.any():
        raise UserInputError("the given run does not finish 100 m in the simulator; give a finished run")
    end = int(np.argmax(done)) + 1
    state.best_keys = np.asarray(keys[:end], dtype=np.int8)
    state.best_time_s = float(run["score_time"][end - 1])
    state.best_x = run["state"][:end, TORSO, 0] / UNITS_PER_METRE
    return state.best_time_s


def best_run_meta(state: SearchState, command: str) -> dict[str, Any]:
    """What a saved best run says about how it was found."""
    return {
        "planner": (
            f"beam search guided by {Path(state.config.guide).name}'s rollouts (agents/search/planner.py)"
            if state.config.guide
            else "beam search with diversity (agents/search/planner.py)"
        ),
        "finish_time_s": state.best_time_s,
        "farthest_m": state.farthest_m,
        "command": command,
        "seed": state.config.seed,
        "updates": state.updates,
        "cpu_seconds": round(state.cpu_seconds, 1),
        "config": asdict(state.config),
    }


__all__ = [
    "GUIDED_BEAM",
    "GUIDED_FINE_AFTER",
    "GUIDED_FINE_TRY_UPDATES",
    "GUIDED_PER_PARENT",
    "GUIDED_REFINE_BEAM",
    "PlannerConfig",
    "SearchState",
    "best_found_at",
    "best_run_meta",
    "describe",
    "guided_config",
    "load_guide",
    "load_state",
    "new_state",
    "save_state",
    "seed_best_run",
    "stalled_for",
    "stood",
]
