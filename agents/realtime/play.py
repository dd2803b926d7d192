"""``qwop play [MODEL]``: play the original in real time with the best controller the harness has.

Each episode is a fresh page as a person starts it (load, a moment on the intro screen, the
click, play), the keys sent as real key events at the page's own pace. A mirror of the page in
the simulator follows it update by update, bit for bit (``browser_env.mirror``); every decision
is computed ahead from the mirror's exact state and sent the moment the page has run the update
before the one it is meant for (``browser_env.predicted``). By default the click lands in the
shipped opening's update and the opening decides while the game is in its states
(``agents.realtime.opening``), then the planner in the loop (``agents.realtime.receding``);
``--no-plan`` and ``--horizon`` ask for the lookahead (``agents.realtime.lookahead``, ``--horizon
0`` for the plain policy, which clicks where it runs fastest: ``agents.realtime.policy_click``).

``--mode lockstep`` plays the same controller with the page held between updates (the traces'
start, no late keys); ``--sim`` plays it in the simulator, with ``--late P`` emulating keys that
land an update late and the intro screen of a real page. The report has ``qwop eval``'s shape
plus the decisions that landed in their intended update.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.realtime.controllers import Controller, ControllerSettings
from agents.realtime.decisions import DecisionLog
from agents.search.guided_rollouts import guide_from_model
from agents.shipped import OPENING
from agents.training.evaluate import _report, format_report, save_browser_recording, write_trace_and_gif
from agents.training.model_files import check_model_file
from browser_env.errors import browser_failures, browser_stopped
from browser_env.pages import LivePage, LockstepPage, SimulatedPage
from browser_env.predicted import PredictedPlay
from browser_env.priority import RealtimePriority
from demos.format import Demo, load_demo
from demos.record import session_arrays
from demos.replay import replay_browser, replay_sim, video_kind
from sim_env.errors import UserInputError
from sim_env.files import check_out_folders, check_writable, write_text

SETTLE_S = 2.0  # on the intro screen before the click, without an opening: the first beam grows (~30 stages)


@dataclass
class PlayedEpisode:
    """One episode: its outcome, its decisions and the whole page session's records."""

    finished: bool
    fell: bool
    time_s: float
    score: float
    decisions: int
    on_time: int
    late: int
    very_late: int
    key_changes: int
    slack_ms: np.ndarray  # page clock, from sending keys to their update running
    intervals_ms: np.ndarray  # page clock, between the page's updates
    mirror_ok: bool
    divergence: str | None
    records: np.ndarray  # (n, RECORD_SIZE): every update since page load
    initial: np.ndarray
    initial_score_time: float
    cpu_s: float  # the controller's CPU time
    short_of_time: int  # decisions the plain policy made because the keys were almost due
    decision_log: DecisionLog  # how each decision was made (agents.realtime.decisions)
    stage_ms: np.ndarray  # the planner's stages, wall time each (empty for the lookahead)
    sincos: str  # the page's sin/cos variant
    click_late: int  # updates the click landed after the one it was sent for (0 also: opened clicked)


def make_page(
    where: str,
    mode: str,
    game: str | None = None,
    backend: str = "playwright",
    headless: bool = True,
    late: float = 0.0,
    seed: int = 0,
    sincos: str = "fma",
) -> Any:
    """The page to play: ``where`` is "browser" or "sim"; ``mode`` "realtime" or "lockstep"."""
    if mode not in ("realtime", "lockstep"):
        raise UserInputError(f"--mode must be realtime or lockstep, got {mode!r}")
    if where == "sim":
        return SimulatedPage(late=late, seed=seed, sincos=sincos, realtime=mode == "realtime")
    if late:
        raise UserInputError("--late emulates late keys in the simulator (--sim); a real page's keys land when they do")
    from browser_env.game import BrowserGame  # the browser extra: not needed for --sim

    g = BrowserGame(game, backend=backend, headless=headless, mode=mode)
    return LivePage(g) if mode == "realtime" else LockstepPage(g)


def play_episode(
    page: Any,
    controller: Controller,
    time_limit: float = 120.0,
    strict: bool = False,
    settle_s: float = 0.0,
    on_update: Any = None,
    opened: Any = None,
) -> PlayedEpisode:
    """One episode from a fresh page; ``on_update(score_time, score)`` after each decision,
    ``opened()`` once the page is open."""
    play = PredictedPlay(page, controller.frame_skip, strict=strict)
    stages = getattr(controller, "stage_times", [])
    first_stage = len(stages)
    cpu = [0.0]  # the controller's CPU time: its decisions, and its work before and between them

    def timed(work: Any) -> Any:
        if work is None:
            return None

        def run(*args: Any) -> None:
            c0 = time.process_time()
            work(*args)
            cpu[0] += time.process_time() - c0

        return run

    def prepare(snapshot: bytes, deadline: float | None) -> None:  # on the intro screen (the planner's)
        controller.sincos = play.sim.sincos
        controller.prepare(snapshot, deadline)

    first = timed(prepare) if hasattr(controller, "prepare") else None
    play.begin(settle_s, opened, first, click_update=getattr(controller, "click_update", None))
    assert play.start is not None
    controller.sincos = play.start.sincos
    short = controller.short_of_time
    log = DecisionLog()
    think = timed(getattr(controller, "think", None))  # work between decisions (the planner's)
    try:
        while not play.done and play.sim.score_time < time_limit:
            c0 = time.process_time()
            snap = play.decision_state()
            mask = controller.decide(
                snap, page.held, None if snap is not None else play.page_state(), deadline=play.deadline()
            )
            log.add(play.decided_from + 1, controller.last_depth, mask)  # the state it was made from
            cpu[0] += time.process_time() - c0
            play.act(mask, after_send=think, hold=getattr(controller, "hold", None))
            if on_update is not None:
                on_update(play.sim.score_time, play.sim.score)
    finally:
        play.finish(wait=False)
    sim, st = play.sim, play.stats
    assert play.mirror is not None
    return PlayedEpisode(
        finished=bool(sim.finished),
        fell=bool(sim.game_ended and not sim.finished),
        time_s=float(sim.score_time),
        score=float(sim.score),
        decisions=len(st.decisions),
        on_time=st.on_time,
        late=st.late,
        very_late=st.very_late,
        key_changes=st.changes,
        slack_ms=st.slack_ms(),
        intervals_ms=play.update_intervals_ms(),
        mirror_ok=play.mirror.ok,
        divergence=None if play.mirror.divergence is None else str(play.mirror.divergence),
        records=np.stack(play.records),
        initial=np.asarray(play.start.initial),
        initial_score_time=float(play.start.initial_score_time),
        cpu_s=cpu[0],
        short_of_time=controller.short_of_time - short,
        decision_log=log,
        stage_ms=np.asarray(stages[first_stage:], dtype=np.float64) * 1000.0,
        sincos=play.start.sincos,
        click_late=play.first_update - play.click_meant_for if play.click_meant_for else 0,
    )


def replays_exactly(ep: PlayedEpisode) -> bool:
    """Whether the episode's session, replayed in the simulator from its events, gives every
    recorded update (what ``qwop replay TRACE --sim`` checks)."""
    arrays = session_arrays(ep.initial, ep.records, False, ep.initial_score_time)
    return replay_sim(Demo(None, arrays))[1] is None


def report(episodes: list[PlayedEpisode], where: str) -> dict[str, Any]:
    """``qwop eval``'s report, plus the decisions and the page's clock."""
    r = _report(
        [e.score for e in episodes],
        [e.time_s for e in episodes],
        [e.finished for e in episodes],
        [e.fell for e in episodes],
    )
    slack = np.concatenate([e.slack_ms for e in episodes]) if episodes else np.zeros(0)
    gaps = np.concatenate([e.intervals_ms for e in episodes]) if episodes else np.zeros(0)
    decisions = sum(e.decisions for e in episodes)
    r.update(
        where=where,
        decisions=decisions,
        on_time_decisions=sum(e.on_time for e in episodes),
        late_decisions=sum(e.late for e in episodes),
        very_late_decisions=sum(e.very_late for e in episodes),
        key_changes=sum(e.key_changes for e in episodes),
        on_time_share=sum(e.on_time for e in episodes) / max(1, decisions),
        mirror_equal=all(e.mirror_ok for e in episodes),
        divergences=[e.divergence for e in episodes if e.divergence],
        controller_cpu_s=float(sum(e.cpu_s for e in episodes)),
        decisions_short_of_time=sum(e.short_of_time for e in episodes),
        times_s=[round(e.time_s, 4) for e in episodes],
        finished=[e.finished for e in episodes],
        clicks_on_time=sum(e.click_late == 0 for e in episodes),
    )
    if len(slack):
        r["slack_ms_min"], r["slack_ms_p1"], r["slack_ms_median"] = (float(x) for x in np.percentile(slack, [0, 1, 50]))
    stage = np.concatenate([e.stage_ms for e in episodes]) if episodes else np.zeros(0)
    if len(stage):
        r["stage_ms_median"], r["stage_ms_p99"] = (float(x) for x in np.percentile(stage, [50, 99]))
        # How much the planner planned: a slow machine decides more often from a beam it had no
        # time to grow since the last decision (still a beam grown ahead, only not as far)
        depths = [d for e in episodes for d in e.decision_log.depth]
        r["beam_decisions"] = sum(d >= 0 for d in depths)
        r["beam_grown_decisions"] = sum(d >= 1 for d in depths)
    if len(gaps):
        r["update_gap_ms_p1"], r["update_gap_ms_median"] = (float(x) for x in np.percentile(gaps, [1, 50]))
    return r


def format_play_report(r: dict[str, Any]) -> str:
    """``qwop eval``'s report line, then the decisions on time, the page's clock and the mirror."""
    clock = ""
    if "slack_ms_p1" in r:
        clock = (
            f"; keys sent {r['slack_ms_median']:.1f} ms before their update (1st percentile {r['slack_ms_p1']:.1f} ms)"
        )
    if "stage_ms_median" in r:
        clock += (
            f"; planner stages took {r['stage_ms_median']:.1f} ms (99th percentile {r['stage_ms_p99']:.1f} ms), "
            f"the beam grew before {r['beam_grown_decisions']} of its {r['beam_decisions']} decisions"
        )
    mirror = "the mirror equalled the page at every update" if r["mirror_equal"] else "; ".join(r["divergences"])
    return (
        f"{format_report(r)}; decisions in their intended update {r['on_time_decisions']} of {r['decisions']} "
        f"({r['on_time_share']:.1%}), clicks {r['clicks_on_time']} of {r['episodes']}{clock}; {mirror}"
    )


def main_play(args: Any, default_model: Path) -> int:
    """The ``qwop play`` command (arguments as parsed by ``agents.cli``)."""
    model = str(check_model_file(args.model or default_model))
    check_out_folders(args.trace, args.gif)
    if args.video:
        video_kind(args.video)
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None and out_dir.exists() and any(out_dir.iterdir()):
        raise UserInputError(f"{out_dir} exists and is not empty; choose a new folder for --out")
    if out_dir is not None:
        check_writable(out_dir.resolve().parent, f"--out {out_dir}")
    guide = guide_from_model(model)
    settings = ControllerSettings.from_args(args, str(OPENING) if OPENING.is_file() else "")
    controller = settings.build(  # a lock-step page starts clicked: no click to choose
        guide, log=lambda s: print(f"qwop play: {s}", flush=True), click=args.mode == "realtime"
    )
    where = "sim" if args.sim else "browser"
    with RealtimePriority(enabled=where == "browser" and args.mode == "realtime" and args.priority == "raise") as prio:
        page = make_page(
            where, args.mode, args.game, args.backend, headless=not args.show, late=args.late, seed=args.seed
        )
        prio.cover_children()  # the browser, started in a session of its own
        return _play_episodes(args, model, controller, settings, where, page, prio, out_dir)


def _play_episodes(
    args: Any,
    model: str,
    controller: Controller,
    settings: ControllerSettings,
    where: str,
    page: Any,
    prio: RealtimePriority,
    out_dir: Path | None,
) -> int:
    settle = SETTLE_S if (where == "browser" and args.mode == "realtime") else 0.0
    late = f", late {args.late:g}" if args.late else ""
    label = f"{'simulator' if args.sim else 'browser'} ({args.mode}{late})"
    print(f"qwop play: {settings.describe()}")
    from tqdm import tqdm

    episodes: list[PlayedEpisode] = []
    bar = tqdm(
        total=args.episodes * args.time_limit,
        desc=f"qwop play, {label}",
        dynamic_ncols=True,
        bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} game s [{elapsed}{postfix}]",
    )
    interrupted = False
    gone = ""
    try:
        for ep in range(args.episodes):
            shown = [0.0]

            def tick(t: float, score: float, ep: int = ep, shown: list[float] = shown) -> None:
                if t - shown[0] >= 1.0:
                    bar.update(t - shown[0])
                    bar.set_postfix_str(f"episode {ep + 1}: {score:.1f} m", refresh=False)
                    shown[0] = t

            e = play_episode(page, controller, args.time_limit, args.strict, settle, tick, prio.cover_children)
            bar.update(min(args.time_limit - shown[0], bar.total - bar.n))  # no float overshoot of the total
            episodes.append(e)
            if out_dir is not None:
                out_dir.mkdir(parents=True, exist_ok=True)
                save_browser_recording(
                    e.records,
                    e.initial,
                    out_dir / f"episode_{ep:02d}.npz",
                    _episode_meta(e, model, settings, label),
                    e.initial_score_time,
                )
            end = (
                f"finished in {e.time_s:.2f} s" if e.finished else f"{e.score:.1f} m, {'fell' if e.fell else 'stopped'}"
            )
            bar.write(f"episode {ep + 1}: {end}; {e.on_time} of {e.decisions} decisions on time")
    except KeyboardInterrupt:
        interrupted = True
    except browser_failures() as exc:
        gone = browser_stopped(exc, len(episodes))
    finally:
        bar.close()
        with contextlib.suppress(*browser_failures()):
            page.close()
    if not episodes:
        print("interrupted before the first episode ended; nothing to report", file=sys.stderr)
        return 130
    r = report(episodes, label)
    r["replayed_exactly"] = sum(replays_exactly(e) for e in episodes)
    r["controller"] = settings.to_meta()
    r["click_update"] = getattr(controller, "click_update", None)  # where the click was meant (None: page ready)
    r["priority"] = prio.describe()
    if prio.enabled:
        print(r["priority"])
    print(
        format_play_report(r) + f"; {r['replayed_exactly']} of {len(episodes)} traces replay exactly in the simulator"
    )
    best = episodes[int(r["best_index"])]
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_text(out_dir / "report.json", json.dumps(r, indent=1) + "\n")
        print(f"every episode's trace and report.json are in {out_dir}/")
    meta = _episode_meta(best, model, settings, label)
    write_trace_and_gif(best.records, best.initial, best.initial_score_time, meta, args.trace, args.gif)
    if args.video:  # the command refuses --video with --sim
        _canvas_video(best, meta, args)
    if interrupted:
        print(f"interrupted: {len(episodes)} episode(s) reported", file=sys.stderr)
        return 130
    if gone:
        print(f"stopped early: {gone}; {len(episodes)} episode(s) reported", file=sys.stderr)
        return 2
    return 0


def _canvas_video(best: PlayedEpisode, meta: dict[str, Any], args: Any) -> None:
    """The best episode's session replayed in the original lock-step, its canvas captured: the
    picture of the run as played, made after the runs so that capturing cannot make keys late."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = save_browser_recording(best.records, best.initial, Path(tmp) / "best.npz", meta, best.initial_score_time)
        _, div = replay_browser(load_demo(path), args.game, args.backend, video=args.video)
    if div is not None:
        print(f"warning: the replay drawn differs from the run ({div})", file=sys.stderr)


def _episode_meta(e: PlayedEpisode, model: str, settings: ControllerSettings, label: str) -> dict[str, Any]:
    return {
        "source": f"qwop play ({label})",
        "model": model,
        "controller": settings.to_meta(),
        "finished": e.finished,
        "time_s": e.time_s,
        "decisions_on_time": f"{e.on_time} of {e.decisions}",
        "late_share": e.late / max(1, e.decisions),
        "sincos": e.sincos,
        "decisions": e.decision_log.to_meta(),
    }


__all__ = ["PlayedEpisode", "format_play_report", "main_play", "make_page", "play_episode", "report"]
