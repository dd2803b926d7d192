"""The ``qwop`` command: one entry point for the harness's tools (``qwop --help``).

Every mistake a user can make (a missing or damaged file, an impossible value, no game
folder, a browser that cannot start) ends with one line saying what was wrong and what to
do, and exit code 2 (``sim_env.usage``); a traceback means a bug.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agents.algorithms import ALGORITHMS
from agents.lookahead import DEFAULT_HORIZON
from sim_env.interrupts import TerminateAsInterrupt
from sim_env.usage import (
    OneLineParser,
    UserInputError,
    check_out_folders,
    nonnegative_int,
    one_line,
    positive_float,
    positive_int,
    probability,
)

PRETRAINED = Path(__file__).resolve().parent / "models" / "qwop_pddqn.zip"
GAME_DEFAULT = "$QWOP_GAME, else ~/.local/share/qwop/game"
GAME_HELP = (
    f"folder with your copy of the original: QWOP.min.js, assetbundle.parcel, howler.js (default: {GAME_DEFAULT})"
)


def _fetch_game(args: argparse.Namespace) -> int:
    from browser_env.fetch import fetch_game

    try:
        path = fetch_game(args.dir, base_url=args.url, force=args.force)
    except ConnectionError as exc:
        raise UserInputError(str(exc)) from exc
    print(f"game files ready in {path}")
    return 0


def _browser_bench(args: argparse.Namespace) -> int:
    from browser_env.bench import main as bench_main

    argv = ["--backend", args.backend, *(["--game", args.game] if args.game else [])]
    return bench_main(argv + (["--quick"] if args.quick else []))


def _record(args: argparse.Namespace) -> int:
    from demos.record import main_record

    out = args.out or f"recordings/{args.player}.npz"
    return main_record(args.game, out, args.player, args.backend, args.headless)


def _replay(args: argparse.Namespace) -> int:
    from demos.replay import main_replay

    return main_replay(args.file, args.sim, args.browser, args.game, args.backend, args.video, args.show)


def _demos(args: argparse.Namespace) -> int:
    from demos.inspect import main_demos

    return main_demos(args.action, args.files)


def _check_demo_files(files: list[str], what: str) -> None:
    from demos.format import demo_files, load_demo

    for f in demo_files(files):
        if not Path(f).is_file():
            raise UserInputError(f"{what} demo file not found: {f} (qwop demos list DIR shows the demos there)")
        load_demo(f)  # a damaged file fails here, before any training starts


def _train(args: argparse.Namespace) -> int:
    from agents.config import load_config, to_toml

    if args.minutes is not None and args.steps is not None:
        raise UserInputError("give --minutes or --steps, not both")
    cfg = load_config(args.config, list(args.set or []))
    if args.algo:
        cfg.algo.name = args.algo
    if args.resume:
        _resume_algo(cfg, args.resume, args.algo)
    if args.minutes is not None:
        cfg.run.minutes = args.minutes
    if args.steps is not None:  # a step budget replaces any time budget of the config
        cfg.run.total_timesteps, cfg.run.minutes, cfg.run.steps = args.steps, 0.0, 0
    if args.name:
        cfg.run.name = args.name
    if args.pretrain:
        cfg.imitation.pretrain = list(args.pretrain)
    if args.inject:
        cfg.imitation.inject = list(args.inject)
    cfg.validate()
    if args.print_config:
        print(to_toml(cfg))
        return 0
    _check_demo_files(cfg.imitation.pretrain, "--pretrain")
    _check_demo_files(cfg.imitation.inject, "--inject")
    from agents.evaluate import format_report, gif_of_keys
    from agents.model_files import check_model_file
    from agents.train import resume_command, summarize, train

    resume = str(check_model_file(args.resume)) if args.resume else None
    summary = train(cfg, resume=resume)
    if summary.get("interrupted"):
        print(
            f"interrupted ({summary['interrupted']}) at {summary['timesteps']:,} steps: the model is saved as "
            f"{summary['model']}; continue with: {resume_command(summary)}",
            file=sys.stderr,
        )
        return 130
    print(summarize(summary))
    print(format_report(summary["eval"]))
    if args.gif:
        path = gif_of_keys(np.array(summary["eval"]["best_keys"], dtype=np.int8), args.gif)
        print(f"GIF of the best evaluation run (drawn from the simulator): {path}")
    return 0


def _resume_algo(cfg: Any, resume: str, algo: str | None) -> None:
    """A resumed model's algorithm is the one it was trained with (from its sidecar)."""
    from agents.model_files import check_model_file, read_sidecar

    trained = read_sidecar(check_model_file(resume))["algo"]
    if algo and algo != trained:
        raise UserInputError(f"{resume} was trained with --algo {trained}, not {algo}; leave --algo out to resume it")
    cfg.algo.name = trained


def _eval(args: argparse.Namespace) -> int:
    from agents.evaluate import (
        evaluate_browser,
        evaluate_sim,
        format_report,
        gif_of_keys,
        write_trace_and_gif,
    )
    from agents.model_files import check_model_file

    model = str(check_model_file(args.model or PRETRAINED))
    check_out_folders(args.gif, args.trace)  # before the evaluation, not after it
    noise = 0 if args.no_noise else args.start_noise
    if args.predict and not (args.browser and args.mode == "realtime"):
        raise UserInputError("--predict is for --browser --mode realtime")
    if args.mode == "realtime" and not args.browser:
        raise UserInputError("--mode realtime is for --browser; in the simulator, --late P emulates real time")
    if args.browser and args.late:
        raise UserInputError("--late emulates real time in the simulator; in the browser use --mode realtime")
    if args.browser:
        report, records = evaluate_browser(
            model,
            args.game,
            mode=args.mode,
            backend=args.backend,
            episodes=args.episodes or 3,
            start_noise_updates=noise,
            headless=not args.show,
            progress=True,
            predict=args.predict,
        )
        print(format_report(report))
        best = int(report["best_index"])
        initial, rec, t0 = records[best]
        meta = {"source": f"qwop eval --browser ({args.mode})", "model": model}
        write_trace_and_gif(rec, initial, t0, meta, args.trace, args.gif)
        if report.get("stopped"):
            print(f"stopped early: {report['stopped']}", file=sys.stderr)
            return 130 if report["stopped"].startswith("interrupted") else 2
        return 0
    report = evaluate_sim(
        model, episodes=args.episodes or 32, start_noise_updates=noise, progress=True, late_decision_prob=args.late
    )
    print(format_report(report))
    keys = np.array(report["best_keys"], dtype=np.int8)
    if args.trace:
        from agents.search import save_keys_as_demo

        print(f"trace of the best episode: {save_keys_as_demo(keys, args.trace, {'model': model})}")
    if args.gif:
        print(f"GIF of the best episode: {gif_of_keys(keys, args.gif)}")
    return 0


def _play(args: argparse.Namespace) -> int:
    from agents.play import main_play

    if args.sim and (args.game or args.show):
        raise UserInputError("--game and --show are for the browser; --sim plays in the simulator")
    return main_play(args, PRETRAINED)


BEST_RUN = "best_run.npz"  # in the search's run folder unless --out says otherwise


def _new_run_folder(kind: str) -> Path:
    """A new folder under runs/ for a command's outputs when the user named none (never the
    current folder itself, where a second run would collide with the first)."""
    import time

    base = Path("runs") / f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}"
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def _search(args: argparse.Namespace) -> int:
    if args.improved_runs is not None:
        return _improved_runs(args)
    if args.policy is None:
        return _plan(args)
    from agents.model_files import check_model_file
    from agents.search import save_keys_as_demo, search

    model = str(check_model_file(args.policy or PRETRAINED))
    res = search(model, episodes=args.episodes, num_envs=args.envs, seed=args.seed, progress=True)
    if res["finished"]:
        best = f"finished 100 m in {res['best_time_s']:.2f} s"
    else:
        best = f"reached {res['best_distance_m']:.1f} m in {res['best_time_s']:.2f} s without finishing"
    print(
        f"best of {res['episodes']} stochastic runs (finished runs first, then the fastest): {best}; "
        f"{res['finish_rate']:.0%} of the runs finished, mean distance {res['mean_distance_m']:.1f} m"
    )
    out = args.out
    if out is None:
        folder = _new_run_folder("search-policy")
        folder.mkdir(parents=True)
        out = str(folder / BEST_RUN)
    path = save_keys_as_demo(res["keys"], out, {"model": model, "search": True})
    print(f"saved {path}; replay it open-loop in the original with: qwop replay {path} --browser")
    return 0


def _improved_runs(args: argparse.Namespace) -> int:
    from agents.improved_runs import improved_demos
    from agents.model_files import check_model_file

    model = str(check_model_file(args.guide or PRETRAINED))
    out = args.out or str(_new_run_folder("improved-runs"))
    if Path(out).is_file():
        raise UserInputError(f"--improved-runs saves into a folder; {out} is a file (name a folder with --out)")
    files = improved_demos(model, args.improved_runs, out, lookahead=args.lookahead, seed=args.seed)
    if not files:
        print(f"none of the {args.improved_runs} runs finished, nothing saved (try a longer --lookahead)")
        return 0
    print(f"{len(files)} of {args.improved_runs} runs finished and were saved in {out}/; fine-tune on them with")
    recipe = "agents/recipes/finetune.toml"
    print(f"qwop train --config {recipe} --resume MODEL --inject {out} --set 'env.start_runs=[\"{out}\"]'")
    return 0


def _plan(args: argparse.Namespace) -> int:
    import shlex

    from agents.planner import (
        GUIDED_BEAM,
        LocalExpander,
        PlannerConfig,
        best_run_meta,
        load_state,
        new_state,
        run_search,
        seed_best_run,
    )
    from agents.search import save_keys_as_demo

    if args.resume:
        defaults = build_parser().parse_args(["search"])
        kept = ("seed", "beam", "guide", "lookahead", "children", "horizon", "time_limit", "speed_weight", "from_run")
        given = [n for n in kept if getattr(args, n) != getattr(defaults, n)]
        if given:
            flags = ", ".join("--" + n.replace("_", "-") for n in given)
            raise UserInputError(
                f"{flags}: a resumed search keeps the settings it was saved with; --resume takes a budget "
                "(--updates, --minutes) and --threads, --ray, --out, --gif"
            )
        state = load_state(args.resume)
        state_path = Path(args.resume)
        check_out_folders(args.out, args.gif)
    else:
        guide = "" if args.guide is None else (args.guide or str(PRETRAINED))
        cfg = PlannerConfig(
            beam=args.beam or (GUIDED_BEAM if guide else PlannerConfig.beam),
            guide=guide,
            lookahead=args.lookahead,
            children=args.children,
            horizon=args.horizon,
            seed=args.seed,
            time_limit=args.time_limit,
            speed_weight=args.speed_weight,
        )
        state = new_state(cfg)
        if args.from_run:
            from sim_env.env_config import start_run_keys

            _check_demo_files([args.from_run], "--from-run")
            t = seed_best_run(state, start_run_keys((args.from_run,))[0])
            print(f"starting from {args.from_run}: finishes in {t:.2f} s")
        check_out_folders(args.state, args.out, args.gif)
        # Without --state: a new run folder, made once the search starts.
        state_path = Path(args.state) if args.state else _new_run_folder("search") / "state.npz"
        if state_path.exists():
            raise UserInputError(
                f"{state_path} exists (a search's saved state): resume it with --resume {state_path}, "
                "or choose another --state"
            )
    budget = args.updates
    if args.updates is None and not args.minutes:
        raise UserInputError("give a budget: --updates N (deterministic) or --minutes M")
    if args.ray:
        from agents.ray_expander import RayExpander

        expander: Any = RayExpander(args.ray, workers=args.threads)
    else:
        expander = LocalExpander(args.threads)
    try:
        state_path.parent.mkdir(parents=True, exist_ok=True)
        run_search(state, expander, budget, minutes=args.minutes or 0.0, state_path=state_path)
    finally:
        expander.close()
    command = "qwop " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    print(
        f"searched {state.updates:,} updates in {state.cpu_seconds:,.0f} CPU-seconds ({len(state.history)} stages, "
        f"{state.restarts} restarts); farthest {state.farthest_m:.1f} m; state saved in {state_path}"
    )
    again = f"qwop search --resume {state_path} " + (f"--updates {budget}" if budget else "--minutes M")
    if state.stopped_by:
        print(f"interrupted ({state.stopped_by}) after a whole stage; continue with: {again}", file=sys.stderr)
    if state.best_keys is None:
        print(f"no run finished 100 m yet; resume with a larger budget: {again}")
        return 130 if state.stopped_by else 0
    path = save_keys_as_demo(
        state.best_keys, args.out or str(state_path.parent / BEST_RUN), best_run_meta(state, command)
    )
    print(f"best run: 100 m in {state.best_time_s:.2f} s, saved {path}")
    print(f"replay it open-loop in the original with: qwop replay {path} --browser")
    if args.gif:
        from agents.evaluate import gif_of_keys

        print(f"GIF: {gif_of_keys(state.best_keys, args.gif)}")
    return 130 if state.stopped_by else 0


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="qwop", description="QWOP reinforcement-learning harness")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    p = sub.add_parser("train", help="train an agent on the batched simulator")
    p.add_argument("--algo", choices=list(ALGORITHMS))
    p.add_argument("--config", help="TOML config (see --print-config for every parameter)")
    p.add_argument("--set", action="append", metavar="SECTION.KEY=VALUE", help="override one parameter")
    p.add_argument("--minutes", type=positive_float, help="wall-clock budget (instead of run.total_timesteps)")
    p.add_argument("--steps", type=positive_int, help="total env steps (replaces the config's time budget)")
    p.add_argument("--name", help="run folder name under runs/ (must not exist yet)")
    p.add_argument("--resume", metavar="CHECKPOINT", help="continue from a checkpoint .zip")
    p.add_argument("--pretrain", nargs="+", metavar="DEMO", help="behaviour cloning on these demos first")
    p.add_argument(
        "--inject", nargs="+", metavar="DEMO", help="inject these demos into the replay buffer (dqn/qrdqn/pddqn)"
    )
    p.add_argument("--gif", help="write a GIF of the best evaluation run")
    p.add_argument("--print-config", action="store_true", help="print the full configuration and exit")
    p.set_defaults(func=_train)
    p = sub.add_parser("eval", help="evaluate a model in the simulator or in the browser")
    p.add_argument("model", nargs="?", help="model .zip (default: the shipped pretrained model)")
    p.add_argument("--sim", action="store_true", help="in the simulator (default)")
    p.add_argument("--browser", action="store_true", help="in the real game in a browser")
    p.add_argument("--game", help=GAME_HELP)
    p.add_argument("--mode", default="lockstep", choices=["lockstep", "realtime"])
    p.add_argument("--backend", default="playwright", choices=["playwright", "selenium"])
    p.add_argument("--episodes", type=positive_int, help="episodes (default 32 in the simulator, 3 in the browser)")
    p.add_argument("--start-noise", type=nonnegative_int, default=15, help="random start updates per episode")
    p.add_argument("--no-noise", action="store_true", help="no random start (all episodes then equal)")
    p.add_argument(
        "--late",
        type=probability,
        default=0.0,
        metavar="P",
        help="simulator: the share of decisions that land one update late, as in real-time play (default 0)",
    )
    p.add_argument("--gif", help="write a GIF of the best episode")
    p.add_argument("--trace", help="write the best episode as a demo-format trace")
    p.add_argument("--show", action="store_true", help="show the browser window")
    p.add_argument(
        "--predict",
        action="store_true",
        help="--mode realtime: predicted decisions (a mirror of the page decides ahead; see qwop play)",
    )
    p.set_defaults(func=_eval)
    p = sub.add_parser(
        "play",
        help="play the original in real time, the exact simulator in the loop (lookahead from a mirror of the page)",
        description="Plays the original in a browser at its own pace with real key presses, from a fresh page each "
        "episode. A mirror of the page in the simulator follows it bit for bit; each decision is computed ahead "
        "from its exact state, is the action whose rollout of MODEL goes fastest (--horizon decisions deep), and "
        "is sent the moment the page has run the update before the one it is for.",
    )
    p.add_argument("model", nargs="?", help="model .zip guiding the lookahead (default: the shipped pretrained model)")
    p.add_argument("--episodes", type=positive_int, default=1, help="episodes, each from a fresh page (default 1)")
    p.add_argument("--mode", default="realtime", choices=["realtime", "lockstep"], help="the page's pace")
    p.add_argument("--sim", action="store_true", help="in the simulator (a real-time page emulated) instead")
    p.add_argument(
        "--late",
        type=probability,
        default=0.0,
        metavar="P",
        help="--sim: the chance that a key change lands one update late (default 0)",
    )
    p.add_argument(
        "--horizon",
        type=nonnegative_int,
        default=DEFAULT_HORIZON,
        help=f"decisions of the model's rollout after each tried action (default {DEFAULT_HORIZON}; 0: plain policy)",
    )
    p.add_argument(
        "--late-weight",
        type=probability,
        default=0.0,
        metavar="P",
        help="weigh each action's outcome if its keys landed an update late by P (default 0: not tried)",
    )
    p.add_argument("--game", help=GAME_HELP)
    p.add_argument("--backend", default="playwright", choices=["playwright", "selenium"])
    p.add_argument("--show", action="store_true", help="a visible browser window, to watch the run")
    p.add_argument("--time-limit", type=positive_float, default=120.0, help="game seconds per episode (default 120)")
    p.add_argument("--seed", type=int, default=0, help="--sim: seed of the intro screen's length and late keys")
    p.add_argument("--strict", action="store_true", help="stop at the first difference between page and mirror")
    p.add_argument("--trace", help="write the best episode's whole page session (replays exactly: qwop replay)")
    p.add_argument("--out", help="a new folder for every episode's trace and report.json")
    p.add_argument("--gif", help="write a GIF of the best episode")
    p.add_argument(
        "--priority",
        default="raise",
        choices=["raise", "normal"],
        help="raise the CPU priority of the player and its browser where allowed (root), so that other work on "
        "the machine does not make keys late (default raise; see docs/realtime.md)",
    )
    p.set_defaults(func=_play)
    p = sub.add_parser(
        "search",
        help="plan the fastest 100 m in the simulator, for open-loop replay in the original",
        description="A planner over the exact simulator (agents/planner.py): a beam search, guided by a trained "
        "policy's rollouts (--guide) or with diversity over random held key masks, on every core or a Ray "
        "cluster. It saves its state every few seconds and when it stops (--resume "
        "continues it) and writes its best run as a demo that replays open-loop in the original. With "
        "--policy it samples stochastic runs of a trained policy instead.",
    )
    p.add_argument("--updates", type=positive_int, help="budget: game updates to simulate in all (deterministic)")
    p.add_argument("--minutes", type=positive_float, help="budget: wall-clock minutes (stops after the stage)")
    p.add_argument(
        "--seed", type=int, default=0, help="random seed; the same seed and --updates budget give the same best run"
    )
    p.add_argument("--threads", type=positive_int, help="worker threads (default: all cores) or Ray workers")
    p.add_argument(
        "--guide",
        nargs="?",
        const="",
        metavar="MODEL",
        help="guide the beam by a trained policy's rollouts (default model: the shipped one); "
        "far faster runs than the unguided search",
    )
    p.add_argument("--lookahead", type=positive_int, default=15, help="--guide: decisions of each rollout (default 15)")
    p.add_argument("--beam", type=positive_int, help="games kept per stage (default 256; 8 with --guide)")
    p.add_argument("--children", type=positive_int, default=32, help="copies expanded per kept game (default 32)")
    p.add_argument("--horizon", type=positive_int, default=24, help="updates per stage (default 24)")
    p.add_argument("--time-limit", type=positive_float, default=100.0, help="game seconds before a line is dropped")
    p.add_argument(
        "--speed-weight", type=float, default=1.5, help="score = distance (m) + this x torso speed (m/s); default 1.5"
    )
    p.add_argument(
        "--state",
        help="where the search's state is saved, every few seconds and when it stops (default: a new "
        "runs/search-TIME/state.npz, with the best run beside it)",
    )
    p.add_argument("--resume", help="continue the search saved in this state file (its settings are kept)")
    p.add_argument(
        "--from-run", metavar="DEMO", help="start from this finished run (e.g. a trained agent's) as the best so far"
    )
    p.add_argument("--ray", help="run on Ray: a cluster address, or 'local' to start one on this machine")
    p.add_argument("--gif", help="write a GIF of the best run")
    p.add_argument(
        "--policy", nargs="?", const="", help="sample a policy instead (default model: the shipped pretrained one)"
    )
    p.add_argument("--episodes", type=positive_int, default=256, help="--policy: how many runs to sample")
    p.add_argument("--envs", type=positive_int, default=64, help="--policy: games stepped together (default 64)")
    p.add_argument(
        "--improved-runs",
        type=positive_int,
        metavar="N",
        help="instead of a search: N runs of the rollout policy over --guide MODEL (each decision the action whose "
        "--lookahead rollout gets farthest) from random starts, the finished ones saved as demos in the folder --out",
    )
    p.add_argument(
        "--out",
        help="demo file for the best run (default: best_run.npz beside the state; a taken name gets a number); "
        "--improved-runs: a folder (default: a new runs/improved-runs-TIME)",
    )
    p.set_defaults(func=_search)
    p = sub.add_parser("fetch-game", help="download the original's files into DIR (needs network)")
    p.add_argument("dir", nargs="?", help=f"where to put them (default: the default game folder, {GAME_DEFAULT})")
    p.add_argument("--url", default="https://www.foddy.net/", help="base URL the files are under")
    p.add_argument("--force", action="store_true", help="replace files that are already there")
    p.set_defaults(func=_fetch_game)
    p = sub.add_parser("record", help="record a person playing in a visible browser")
    p.add_argument("--game", help=GAME_HELP)
    p.add_argument("--out", help="demo file (default recordings/PLAYER.npz; a taken name gets a number)")
    p.add_argument("--player", default="anonymous")
    p.add_argument("--backend", default="playwright", choices=["playwright", "selenium"])
    p.add_argument("--headless", action="store_true", help="no window (for scripted players)")
    p.set_defaults(func=_record)
    p = sub.add_parser("replay", help="replay a demo in the simulator or the browser, or draw it")
    p.add_argument("file")
    p.add_argument("--sim", action="store_true", help="replay in the native simulator (default)")
    p.add_argument("--browser", action="store_true", help="replay in the original in a browser, lock-step")
    p.add_argument("--game", help=GAME_HELP)
    p.add_argument("--backend", default="playwright", choices=["playwright", "selenium"])
    p.add_argument("--video", help="write the run as .gif or .mp4 (with --browser: the original's canvas; else drawn)")
    p.add_argument("--show", action="store_true", help="--browser: a visible window at the game's pace, to watch it")
    p.set_defaults(func=_replay)
    p = sub.add_parser("demos", help="list, describe or validate demo files")
    p.add_argument("action", choices=["list", "info", "validate"])
    p.add_argument("files", nargs="+", help="demo files or folders")
    p.set_defaults(func=_demos)
    p = sub.add_parser("browser-bench", help="browser harness throughput (lock-step, one call per step, real-time)")
    p.add_argument("--game", help=GAME_HELP + "; the stand-in page when there is none")
    p.add_argument("--backend", default="playwright", choices=["playwright", "selenium"])
    p.add_argument("--quick", action="store_true", help="a short smoke run")
    p.set_defaults(func=_browser_bench)
    return ap


def _user_error_types() -> tuple[type[BaseException], ...]:
    from browser_env.errors import BrowserHarnessError, browser_failures
    from demos.format import DemoFormatError

    # A browser that went away (closed, killed) shows itself through the drivers' own errors.
    drivers = tuple(k for k in browser_failures() if k not in (OSError, ConnectionError))
    return (UserInputError, BrowserHarnessError, DemoFormatError, *drivers)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command in ("train", "search"):  # these stop at a safe point on the first signal
            return int(args.func(args))
        with TerminateAsInterrupt():  # the others save what they have on Ctrl-C, and so on SIGTERM
            return int(args.func(args))
    except _user_error_types() as exc:
        # What the user can fix gets one line and exit code 2; anything else is a bug.
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
