"""``qwop eval MODEL``: many episodes in the simulator (``--sim``), or in the real game in a
browser (``--browser --game DIR``), with the same report: mean and best distance, time,
falls and success rate (finishing 100 m); plus, for the best episode, a GIF and a
demo-format trace that replays exactly (``qwop replay FILE --sim/--browser``).

The game is deterministic, so with a deterministic policy every episode from the same
start is the same run. Evaluation episodes therefore start with a few random updates
(``start_noise_updates``, seeded, part of each episode's replayable keys) unless 0 is asked.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import sim_env
from agents.training.model_files import load_model
from demos.format import load_demo, save_demo
from demos.replay import write_video
from sim_env.errors import UserInputError
from sim_env.render import render_state, save_gif
from sim_env.spec import UPDATES_PER_SECOND
from sim_env.vec_env import QwopVecEnv


def _rank(finished: bool, time_s: float, score: float) -> tuple[bool, float]:
    """Which run is best: finished runs first, the fastest of them; else the farthest. Passing
    100 m does not finish the game by itself (the left foot has to land beyond it)."""
    return (finished, -time_s if finished else score)


def _median_finish(times: list[float], finished: np.ndarray) -> float | None:
    t = np.where(finished, np.array(times, dtype=np.float64), np.inf)
    m = float(np.median(t)) if len(t) else float("inf")
    return m if np.isfinite(m) else None


def _report(scores: list[float], times: list[float], finished: list[bool], fell: list[bool]) -> dict[str, Any]:
    s = np.array(scores)
    fin = np.array(finished, dtype=bool)
    best = max(range(len(s)), key=lambda i: _rank(finished[i], times[i], scores[i]))
    return {
        "episodes": len(s),
        "mean_distance_m": float(s.mean()),
        "best_distance_m": float(s.max()),  # the farthest run
        "mean_time_s": float(np.mean(times)),
        "success_rate": float(fin.mean()),
        "best_finish_time_s": float(np.min(np.array(times)[fin])) if fin.any() else None,
        # over all episodes, a run that did not finish counting as slower than any that did
        # (None when fewer than half finished)
        "median_finish_time_s": _median_finish(times, fin),
        "fall_rate": float(np.mean(fell)),
        # The best run by _rank: the one drawn, traced and saved.
        "best_index": best,
        "best_run_distance_m": float(s[best]),
        "best_run_time_s": float(times[best]),
        "best_run_finished": bool(fin[best]),
    }


@dataclass
class Episode:
    """One finished simulated episode and the key masks that replay it exactly (from its click:
    ``sim_env.starts.replay_keys(keys, click_update=...)``; 0: the traces' start)."""

    score: float
    time_s: float
    finished: bool
    fell: bool
    keys: np.ndarray
    click_update: int = 0


def rollouts(
    model: Any,
    env_options: dict[str, Any],
    episodes: int,
    num_envs: int = 16,
    num_threads: int = 1,
    deterministic: bool = True,
    start_noise_updates: int = 0,
    time_limit: float = 120.0,
    seed: int = 0,
    progress: bool = False,
    late_decision_prob: float = 0.0,
    max_failures: int | None = None,
    start_click: Sequence[int] = (),
) -> list[Episode]:
    """Run ``episodes`` episodes of a policy (SB3 ``predict``) in the batched simulator;
    ``progress`` shows a bar of finished episodes. ``late_decision_prob`` (the env option,
    whatever the model was trained with) emulates real-time play's late decisions, and
    ``start_click`` (``[lo, hi]``) its start after a click; whatever the model was trained with,
    episodes start at the traces' start unless asked. With
    ``max_failures``, stops as soon as more episodes than that did not finish: the episodes
    returned are then the first of the full evaluation's (episodes end in the same order)."""
    if episodes < 1:
        raise UserInputError(f"episodes must be at least 1, got {episodes}")
    from tqdm import tqdm

    bar = tqdm(total=episodes, desc="episodes", unit=" ep", disable=not progress, dynamic_ncols=True)
    # evaluation starts every episode at the start (a trained-with start run is not a start here)
    opts = dict(
        env_options,
        time_limit=time_limit,
        start_noise_updates=start_noise_updates,
        start_runs=[],
        start_click=list(start_click),
        late_decision_prob=late_decision_prob,
    )
    n = max(1, min(num_envs, episodes))
    env = QwopVecEnv(n, min(num_threads, n), track_keys=True, **opts)
    obs, _ = env.reset(seed=seed)
    done: list[Episode] = []
    while len(done) < episodes:
        action, _ = model.predict(obs, deterministic=deterministic)
        obs, _, term, trunc, inf = env.step(np.asarray(action).reshape(n))
        for i in np.flatnonzero(term | trunc):
            fi = inf["final_info"]
            done.append(
                Episode(
                    float(fi["score"][i]),
                    float(fi["score_time"][i]),
                    bool(fi["finished"][i]),
                    bool(fi["fallen"][i]),
                    fi["keys"][i],
                    int(fi["click_update"][i]),
                )
            )
            bar.update(min(1, episodes - bar.n))
        if max_failures is not None and sum(not e.finished for e in done[:episodes]) > max_failures:
            break
    bar.close()
    env.close()
    return done[:episodes]


def best_episode(episodes: list[Episode]) -> tuple[Episode, np.ndarray]:
    """The best episode (see :func:`_rank`) and its keys (one per update it ran)."""
    best = max(episodes, key=lambda e: _rank(e.finished, e.time_s, e.score))
    return best, best.keys


def evaluate_policy_sim(
    model: Any,
    env_options: dict[str, Any],
    episodes: int = 32,
    num_envs: int = 16,
    num_threads: int = 1,
    deterministic: bool = True,
    start_noise_updates: int = 15,
    time_limit: float = 120.0,
    seed: int = 0,
    progress: bool = False,
    late_decision_prob: float = 0.0,
    min_success: float | None = None,
    start_click: Sequence[int] = (),
) -> dict[str, Any]:
    """Evaluate any policy with SB3's ``predict(obs, deterministic)`` in the batched simulator
    (``late_decision_prob``, ``start_click``: see :func:`rollouts`). With ``min_success``, stops once that
    share of ``episodes`` can no longer finish (the report then has ``"below": True`` and
    covers the episodes run)."""
    max_failures = None if min_success is None else episodes - math.ceil(min_success * episodes - 1e-9)
    eps = rollouts(
        model,
        env_options,
        episodes,
        num_envs,
        num_threads,
        deterministic,
        start_noise_updates,
        time_limit,
        seed,
        progress,
        late_decision_prob,
        max_failures,
        start_click,
    )
    report = _report([e.score for e in eps], [e.time_s for e in eps], [e.finished for e in eps], [e.fell for e in eps])
    if len(eps) < episodes:
        report["below"] = True
    report["best_keys"] = best_episode(eps)[1].tolist()
    report["where"] = "simulator"
    if late_decision_prob:
        report["late_decision_prob"] = late_decision_prob
    return report


def evaluate_start_run(model: Any, env_options: dict[str, Any], start_click: Sequence[int] = ()) -> dict[str, Any]:
    """The run from the standard start without noise: the one the original replays closed loop
    (``start_click`` ``(U, U)``: from a real-time page's start after a click in update U instead)."""
    return evaluate_policy_sim(
        model, env_options, episodes=1, num_envs=1, start_noise_updates=0, start_click=start_click
    )


def evaluate_sim(model_path: str | Path, **options: Any) -> dict[str, Any]:
    """Evaluate a saved model in the batched simulator (options as for evaluate_policy_sim)."""
    model, info = load_model(model_path)
    return evaluate_policy_sim(model, info["env"], **options)


def evaluate_browser(
    model_path: str | Path,
    game: str | None = None,
    mode: str = "lockstep",
    backend: str = "playwright",
    episodes: int = 3,
    start_noise_updates: int = 15,
    time_limit: float = 120.0,
    seed: int = 0,
    headless: bool = True,
    progress: bool = False,
    predict: bool = False,
) -> tuple[dict[str, Any], list[tuple[np.ndarray, np.ndarray, float]]]:
    """Evaluate in the browser (the original game); returns the report and, per episode, the
    page's initial state, the adapter records of every update and the page's game time at load.
    ``predict``: real time with predicted decisions (the env's ``predict`` option)."""
    import gymnasium

    import browser_env  # noqa: F401 (registers the env)

    if episodes < 1:
        raise UserInputError(f"episodes must be at least 1, got {episodes}")
    model, info = load_model(model_path)
    noise = start_noise_updates if mode == "lockstep" else 0
    env = gymnasium.make(
        "QwopBrowser-v0",
        game=game,
        mode=mode,
        backend=backend,
        headless=headless,
        **({"predict": True} if predict else {}),
        **dict(
            info["env"],
            time_limit=time_limit,
            start_noise_updates=noise,
            start_runs=[],
            start_click=[],
            late_decision_prob=0.0,
        ),
    ).unwrapped
    if not headless and mode == "lockstep":  # a person watches: the game's own pace, every update drawn
        from browser_env.watch import Watch

        env.game.watch = Watch(UPDATES_PER_SECOND)
    scores, times, finished, fell, records = [], [], [], [], []
    decisions = late = very_late = 0
    from tqdm import tqdm

    bar: Any = None
    stopped = ""  # why the run ended before its episodes did (Ctrl-C, a browser that went away)
    page_sincos = ""
    from browser_env.errors import browser_failures, browser_stopped

    try:
        for ep in range(episodes):
            obs, _ = env.reset(seed=seed + ep)
            page_sincos = env.game.sincos
            if bar is None and (note := env.game.sincos_note()):
                print(f"warning: {note}", file=sys.stderr)
            if bar is None:  # shown once the page has loaded (a page that fails says so in one line)
                bar = tqdm(
                    total=episodes * time_limit,
                    desc=f"browser ({mode})",
                    disable=not progress,
                    dynamic_ncols=True,
                    bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} game s [{elapsed}{postfix}]",
                )
            shown = 0.0
            while True:
                action, _ = model.predict(obs, deterministic=True)
                obs, _, term, trunc, inf = env.step(int(action))
                decisions += 1
                late += int(inf.get("late_updates", 0) > 0)
                very_late += int(inf.get("late_updates", 0) > 1)
                if inf["score_time"] - shown >= 1.0 or term or trunc:
                    bar.update(inf["score_time"] - shown)
                    bar.set_postfix_str(f"episode {ep + 1}: {inf['score']:.1f} m", refresh=False)
                    shown = inf["score_time"]
                if term or trunc:
                    bar.update(time_limit - shown)  # an episode that ended early takes its whole share
                    break
            scores.append(float(inf["score"]))
            times.append(float(inf["score_time"]))
            finished.append(bool(inf["finished"]))
            fell.append(bool(inf["fallen"]))
            records.append((env.episode_initial, np.concatenate(env.episode_records), env.episode_initial_score_time))
    except KeyboardInterrupt:
        if not scores:
            raise
        stopped = "interrupted"
    except browser_failures() as exc:
        stopped = browser_stopped(exc, len(scores))
    finally:
        if bar is not None:
            bar.close()
        try:
            env.close()
        except browser_failures():
            pass  # already gone
    report = _report(scores, times, finished, fell)
    if stopped:
        report["stopped"] = f"{stopped}; {len(scores)} of {episodes} episodes reported"
    report["where"] = f"browser ({mode}{', predicted decisions' if predict else ''}, {backend})"
    report["page_sincos"] = page_sincos
    if mode == "realtime":
        report["decisions"] = decisions
        report["late_decisions"] = late
        report["very_late_decisions"] = very_late
    return report, records


def save_browser_recording(
    records: np.ndarray, initial: np.ndarray, out: Path, meta: dict[str, Any], initial_score_time: float = 0.0
) -> Path:
    """The demo-format trace of an evaluation episode (replays with qwop replay)."""
    from demos.record import session_arrays  # the browser extra's (wsproto): qwop eval --sim runs without it

    return save_demo(out, session_arrays(initial, records, False, initial_score_time), meta)


def write_trace_and_gif(
    records: np.ndarray,
    initial: np.ndarray,
    initial_score_time: float,
    meta: dict[str, Any],
    trace: str | Path | None = None,
    gif: str | Path | None = None,
) -> None:
    """A browser episode's demo-format trace and its GIF, each only where asked (the GIF is
    drawn from a trace, kept in a temporary folder when no trace was asked for)."""
    if not (trace or gif):
        return
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = save_browser_recording(records, initial, Path(trace or Path(tmp) / "best.npz"), meta, initial_score_time)
        if trace:
            print(f"demo-format trace of the best episode: {path} (qwop replay {path} --sim)")
        if gif:
            print(f"GIF of the best episode: {write_video(load_demo(path), gif, every=2)}")


def gif_of_keys(keys: np.ndarray, path: str | Path, every: int = 2) -> Path:
    """A GIF of a run replayed in the simulator, drawn from the simulator's states."""
    from tqdm import tqdm


    sim = sim_env.QwopSim()
    frames = [render_state(sim.body_state(), sim.hurdle_state(), sim.camera_x)]
    labels = ["0.0 m   0.0 s"]
    keys = np.asarray(keys, dtype=np.int8)
    keys = keys[: len(sim_env.replay(keys)["state"])]  # up to the game's end
    last = len(keys) - 1
    for t, k in enumerate(tqdm(keys, desc=f"drawing {Path(path).name}", unit=" updates", dynamic_ncols=True)):
        sim.update(int(k))
        if t % every == 0 or t == last:
            frames.append(render_state(sim.body_state(), sim.hurdle_state(), sim.camera_x))
            end = "   finished!" if sim.finished else ("   fell" if sim.fallen else "")
            labels.append(f"{sim.score:.1f} m   {sim.score_time:.1f} s{end}")
    return save_gif(frames, str(path), fps=UPDATES_PER_SECOND / every, labels=labels)


def format_report(r: dict[str, Any]) -> str:
    if r["best_run_finished"]:
        best = f"best run: finished 100 m in {r['best_run_time_s']:.2f} s"
    else:
        best = f"best run: {r['best_run_distance_m']:.1f} m in {r['best_run_time_s']:.1f} s, not finished"
    m = r.get("median_finish_time_s")
    median = f" (median {m:.2f} s, a fall counting as slowest)" if m is not None else ""
    late = (
        f", {r['late_decisions']} of {r['decisions']} decisions landed after the update they were meant for"
        f" ({r.get('very_late_decisions', 0)} of them by two updates or more)"
        if "late_decisions" in r
        else (
            f", each decision one update late with probability {r['late_decision_prob']:g} (real time emulated)"
            if "late_decision_prob" in r
            else ""
        )
    )
    return (
        f"{r['where']}: {r['episodes']} episodes; {best}; mean distance {r['mean_distance_m']:.1f} m "
        f"(farthest {r['best_distance_m']:.1f} m), mean time {r['mean_time_s']:.1f} s, "
        f"finished {r['success_rate']:.0%}{median}, fell {r['fall_rate']:.0%}{late}"
        + (f"; the page computes sin/cos like glibc's {r['page_sincos']!r} build" if "page_sincos" in r else "")
    )
