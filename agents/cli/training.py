"""Commands about agents: ``qwop train``, ``qwop eval`` and ``qwop play``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agents.cli.common import BACKENDS, GAME_HELP, check_demo_files
from agents.realtime.controllers import ControllerSettings
from agents.realtime.lookahead import DEFAULT_HORIZON
from agents.realtime.receding import DEFAULT_BEAM, DEFAULT_CATCH_UP, DEFAULT_LEAD, DEFAULT_LOOKAHEAD
from agents.shipped import PRETRAINED, REALTIME_MODEL
from agents.training.algorithms import ALGORITHMS
from agents.usage import game_seconds, minutes_float, nonnegative_int, positive_int, probability, seed_int
from sim_env.errors import UserInputError
from sim_env.files import check_out_folders


def add_commands(sub: Any) -> None:
    p = sub.add_parser("train", help="train an agent on the batched simulator")
    p.add_argument("--algo", choices=list(ALGORITHMS))
    p.add_argument("--config", help="TOML config (see --print-config for every parameter)")
    p.add_argument("--set", action="append", metavar="SECTION.KEY=VALUE", help="override one parameter")
    p.add_argument("--minutes", type=minutes_float, help="wall-clock budget (instead of run.total_timesteps)")
    p.add_argument("--steps", type=positive_int, help="total env steps (replaces the config's time budget)")
    p.add_argument("--name", help="run folder name under runs/ (must not exist yet)")
    p.add_argument("--resume", metavar="CHECKPOINT", help="continue from a checkpoint .zip")
    p.add_argument("--pretrain", nargs="+", metavar="DEMO", help="behaviour cloning on these demos first")
    p.add_argument(
        "--inject", nargs="+", metavar="DEMO", help="inject these demos into the replay buffer (dqn/qrdqn/pddqn)"
    )
    p.add_argument("--gif", help="write a GIF of the best evaluation run")
    p.add_argument("--print-config", action="store_true", help="print the full configuration and exit")
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run --seeds trials (and --set lists as a grid) on a Ray cluster: HOST:PORT, or local",
    )
    p.add_argument("--seeds", type=positive_int, default=1, help="--ray: seeds per grid point (default 1)")
    p.set_defaults(func=_train)
    p = sub.add_parser("eval", help="evaluate a model in the simulator or in the browser")
    p.add_argument("model", nargs="?", help="model .zip (default: the shipped pretrained model)")
    p.add_argument("--sim", action="store_true", help="in the simulator (default)")
    p.add_argument("--browser", action="store_true", help="in the real game in a browser")
    p.add_argument("--game", help=GAME_HELP)
    p.add_argument("--mode", default="lockstep", choices=["lockstep", "realtime"])
    p.add_argument("--backend", default="playwright", choices=BACKENDS)
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
        help="play the original in real time, the exact simulator in the loop (a planner on a mirror of the page)",
        description="Plays the original in a browser at its own pace with real key presses, from a fresh page each "
        "episode. A mirror of the page in the simulator follows it bit for bit; each decision is computed ahead "
        "from its exact state by a planner kept running ahead of the page (guided by MODEL; --no-plan or "
        "--horizon: the lookahead instead), and is sent the moment the page has run the update before the one it "
        "is for.",
    )
    p.add_argument(
        "model",
        nargs="?",
        help="model .zip guiding the planner (default: the shipped pretrained model; with --horizon 0, the shipped "
        "real-time model)",
    )
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
        "--plan",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="plan in the loop: the guided planner's beam kept --lead decisions ahead of the page, each decision the "
        f"first action of its best line (the default; one stage of the beam simulates up to beam x 9 actions x "
        f"{DEFAULT_LOOKAHEAD + 1} decisions x 4 updates, {ControllerSettings().updates_per_stage(9, 4):,} at the "
        f"default beam; one stage per decision, {DEFAULT_CATCH_UP} while the beam is less than --lead ahead, fewer "
        "when the keys are due first). --no-plan: the lookahead",
    )
    p.add_argument("--beam", type=positive_int, help=f"--plan: games the beam keeps (default {DEFAULT_BEAM})")
    p.add_argument(
        "--lead", type=positive_int, help=f"--plan: decisions the beam runs ahead of the page (default {DEFAULT_LEAD})"
    )
    opening = p.add_mutually_exclusive_group()
    opening.add_argument(
        "--opening",
        metavar="FILE",
        help="--plan: the decisions planned offline for the first state after a click in a fixed update (qwop "
        "opening), followed while the game is in the states they pass through; the planner takes over at the first "
        "key that lands late (default: the shipped opening)",
    )
    opening.add_argument(
        "--no-opening",
        dest="opening",
        action="store_const",
        const="",
        help="--plan: no opening, the planner throughout",
    )
    p.add_argument(
        "--horizon",
        type=nonnegative_int,
        help="the lookahead instead of the planner: every action tried, each followed by this many decisions of the "
        f"model's rollout (--no-plan: {DEFAULT_HORIZON}; 0: the plain policy)",
    )
    p.add_argument(
        "--policy-click",
        action=argparse.BooleanOptionalAction,
        help="--horizon 0: click in the intro-screen update of a window (3-10 s after load) that the plain policy "
        "runs fastest from, found in the simulator before the first page (the default); --no-policy-click: click "
        "when the page is ready",
    )
    p.add_argument(
        "--late-weight",
        type=probability,
        metavar="P",
        help="the lookahead, weighing each action's outcome if its keys landed an update late by P",
    )
    p.add_argument("--game", help=GAME_HELP)
    p.add_argument("--backend", default="playwright", choices=BACKENDS)
    p.add_argument("--show", action="store_true", help="a visible browser window, to watch the run")
    p.add_argument("--time-limit", type=game_seconds, default=120.0, help="game seconds per episode (default 120)")
    p.add_argument("--seed", type=seed_int, default=0, help="--sim: seed of the intro screen's length and late keys")
    p.add_argument("--strict", action="store_true", help="stop at the first difference between page and mirror")
    p.add_argument("--trace", help="write the best episode's whole page session (replays exactly: qwop replay)")
    p.add_argument("--out", help="a new folder for every episode's trace and report.json")
    p.add_argument("--gif", help="write a GIF of the best episode")
    p.add_argument(
        "--video",
        help="write the best episode as the original draws it (.gif or .mp4): its session replayed in the "
        "original lock-step after the runs, the canvas captured every 2 updates",
    )
    p.add_argument(
        "--check",
        metavar="TRACE",
        help="make every decision of a trace qwop play wrote again, offline, from its states (with the "
        "model it names, or MODEL), and say whether each is the recorded one",
    )
    p.add_argument(
        "--priority",
        default="raise",
        choices=["raise", "normal"],
        help="raise the CPU priority of the player and its browser where allowed (root), so that other work on "
        "the machine does not make keys late (default raise; see docs/realtime.md)",
    )
    p.set_defaults(func=_play)


def _train(args: argparse.Namespace) -> int:
    from agents.training.config import load_config, to_toml

    if args.minutes is not None and args.steps is not None:
        raise UserInputError("give --minutes or --steps, not both")
    sets = list(args.set or [])
    if args.ray:
        from agents.training.ray_trials import plan

        if args.resume:
            raise UserInputError("--ray starts new trials; resume a trial with qwop train --resume on its own")
        sets, _ = plan(sets, 1, 0)  # the single values; lists are the grid's axes
    elif args.seeds != 1:
        raise UserInputError("--seeds runs trials on Ray: add --ray local (this machine) or --ray HOST:PORT")
    algo = _resume_algo(args.resume, args.algo) if args.resume else args.algo
    if algo:  # before the config is read: the [algo] options are the chosen algorithm's
        sets.append(f'algo.name="{algo}"')
    from agents.training.resumed import resume_base

    # a resumed model's own [algo] options, under what the config and --set give
    cfg = load_config(args.config, sets, base=resume_base(args.resume) if args.resume else None)
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
    check_demo_files(cfg.imitation.pretrain, "--pretrain")
    check_demo_files(cfg.imitation.inject, "--inject")
    run_dir = (Path(cfg.run.out_dir) / cfg.run.name).resolve() if cfg.run.name else None
    if not (args.gif and run_dir is not None and Path(args.gif).resolve().parent == run_dir):
        check_out_folders(args.gif)  # before the training, not after it (the run's own folder is made for it)
    if args.ray:
        from agents.training.ray_trials import plan, run_trials

        _, trials = plan(list(args.set or []), args.seeds, cfg.run.seed)
        result = run_trials(cfg, trials, args.ray)
        if result["interrupted"]:
            return 130
        return 0 if result["best"] is not None else 1
    from agents.training.evaluate import format_report, gif_of_keys
    from agents.training.model_files import check_model_file
    from agents.training.train import resume_command, summarize, train

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


def _resume_algo(resume: str, algo: str | None) -> str:
    """A resumed model's algorithm is the one it was trained with (from its sidecar)."""
    from agents.training.model_files import check_model_file, read_sidecar

    trained = read_sidecar(check_model_file(resume))["algo"]
    if algo and algo != trained:
        raise UserInputError(f"{resume} was trained with --algo {trained}, not {algo}; leave --algo out to resume it")
    return str(trained)


def _eval(args: argparse.Namespace) -> int:
    from agents.training.evaluate import (
        evaluate_browser,
        evaluate_sim,
        format_report,
        gif_of_keys,
        write_trace_and_gif,
    )
    from agents.training.model_files import check_model_file

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
        from demos.simulate import save_keys_as_demo

        print(f"trace of the best episode: {save_keys_as_demo(keys, args.trace, {'model': model})}")
    if args.gif:
        print(f"GIF of the best episode: {gif_of_keys(keys, args.gif)}")
    return 0


def _play(args: argparse.Namespace) -> int:
    from agents.realtime.decisions import main_check
    from agents.realtime.play import main_play

    if args.check:
        return main_check(args.check, args.model)
    if args.sim and (args.game or args.show or args.video):
        raise UserInputError(
            "--game, --show and --video are for the browser; --sim plays in the simulator (--gif draws it)"
        )
    plain = args.horizon == 0 and REALTIME_MODEL.is_file()  # the plain policy: the model trained for real time
    return main_play(args, REALTIME_MODEL if plain else PRETRAINED)
