"""Commands that search the exact simulator for fast runs: ``qwop search`` (the planner),
``qwop sample`` (the best of a policy's stochastic runs), ``qwop improve`` (runs of the
rollout policy over a trained agent, as demos to fine-tune on), ``qwop tune-guide`` and
``qwop opening`` (the decisions ``qwop play`` follows first)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agents.cli.common import BEST_RUN, check_demo_files, new_run_folder
from agents.realtime.opening import DEFAULT_CLICK_UPDATE
from agents.search.state import GUIDED_FINE_AFTER, GUIDED_FINE_TRY_UPDATES, GUIDED_PER_PARENT, GUIDED_REFINE_BEAM
from agents.shipped import GUIDE, PRETRAINED
from agents.usage import (
    OneLineParser,
    game_seconds,
    minutes_float,
    nonnegative_float,
    positive_float,
    positive_int,
    seed_int,
    threads_int,
)
from sim_env.errors import UserInputError
from sim_env.files import check_out_folders
from sim_env.spec import UPDATES_PER_SECOND


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "search",
        help="plan the fastest 100 m in the simulator, for open-loop replay in the original",
        description="A planner over the exact simulator (agents/search/planner.py): a beam search, guided by a trained "
        "policy's rollouts (--guide) or with diversity over random held key masks, on every core or a Ray "
        "cluster. It saves its state every few seconds and when it stops (--resume "
        "continues it) and writes its best run as a demo that replays open-loop in the original. "
        "qwop sample and qwop improve search with a trained policy in other ways.",
    )
    _search_arguments(p)
    p = sub.add_parser(
        "sample",
        help="the best of a trained policy's stochastic runs in the simulator, saved as a demo",
        description="Samples stochastic episodes of a policy in the batched simulator and keeps the fastest finish "
        "(else the farthest run). The simulator is exact, so the run replays open-loop in the original.",
    )
    p.add_argument("model", nargs="?", help="model .zip (default: the shipped pretrained model)")
    p.add_argument("--episodes", type=positive_int, default=256, help="how many runs to sample (default 256)")
    p.add_argument("--envs", type=positive_int, default=64, help="games stepped together (default 64)")
    p.add_argument("--seed", type=seed_int, default=0, help="random seed")
    p.add_argument("--out", help="demo file for the best run (default: a new runs/sample-TIME/best_run.npz)")
    p.set_defaults(func=_sample)
    p = sub.add_parser(
        "improve",
        help="runs of the rollout policy over a trained agent, saved as demos to fine-tune on",
        description="N runs from random starts where every decision is the action whose following greedy rollout "
        "of MODEL (--lookahead decisions) gets farthest, in the exact simulator: one step of policy improvement. "
        "The finished runs are saved as demos in the folder --out, for --inject, --pretrain and env.start_runs.",
    )
    p.add_argument("model", nargs="?", help="model .zip (default: the shipped pretrained model)")
    p.add_argument("--runs", type=positive_int, default=24, help="runs to try (default 24)")
    p.add_argument("--lookahead", type=positive_int, default=15, help="decisions of each rollout (default 15)")
    p.add_argument("--seed", type=seed_int, default=0, help="random seed")
    p.add_argument("--out", help="a folder for the finished runs (default: a new runs/improved-runs-TIME)")
    p.set_defaults(func=_improve)
    p = sub.add_parser(
        "tune-guide",
        help="a search guide trained on the guided search's own choices (rounds of expert iteration)",
        description="Each round runs the guided search for --updates updates, records every kept game's state with "
        "the action the search ranked first, and trains the guide's network on them (behaviour cloning); the next "
        "round searches with the new guide. The models are saved as roundN.zip in the folder --out (the defaults "
        "make the shipped guide, agents/models/qwop_guide.zip, as round2.zip); guide a search with the last "
        "(qwop search --guide DIR/roundN.zip). Deterministic for a seed and budget.",
    )
    p.add_argument("model", nargs="?", help="the guide to start from (default: the shipped pretrained model)")
    # two rounds made the shipped guide; rounds 3 and 4 searched no faster (docs/history/search.md)
    p.add_argument("--rounds", type=positive_int, default=2, help="rounds (default 2)")
    # 35 M updates: about 5 CPU-minutes on a 2-core machine, some 60,000 labelled states
    p.add_argument(
        "--updates", type=positive_int, default=35_000_000, help="updates of search per round (default 35 M)"
    )
    p.add_argument("--epochs", type=positive_int, default=10, help="training epochs per round (default 10)")
    p.add_argument("--learning-rate", type=positive_float, default=1e-4, help="default 1e-4")
    p.add_argument("--seed", type=seed_int, default=0, help="the searches' seed and the training's")
    p.add_argument("--out", help="a new folder for the rounds' models (default: a new runs/guide-TIME)")
    p.add_argument(
        "--set",
        nargs="+",
        default=[],
        metavar="NAME=VALUE",
        help="settings of the rounds' search (PlannerConfig fields); the default is the search the shipped guide was "
        f"tuned on (per_parent=0 refine_beam=0 fine_after=0), and per_parent={GUIDED_PER_PARENT} "
        f"refine_beam={GUIDED_REFINE_BEAM} fine_after={GUIDED_FINE_AFTER} fine_try_updates={GUIDED_FINE_TRY_UPDATES} "
        "is the one qwop search --guide runs",
    )
    p.set_defaults(func=_tune_guide)
    p = sub.add_parser(
        "opening",
        help="plan offline the opening qwop play follows: the decisions from the state a click in a fixed update gives",
        description="A fresh page's state after the click is the same in every session if the click lands in the same "
        "update, so the decisions from it can be planned ahead of time: the planner qwop play runs in the loop "
        "(agents/realtime/receding.py), here with a wider beam and more stages per decision and no clock, as if "
        "every key landed on time. qwop play --opening FILE follows the result until a key lands late. "
        "Deterministic for a model and settings; Ctrl-C keeps the decisions made so far (an opening part of the way).",
    )
    p.add_argument("model", nargs="?", help="model .zip guiding the planner (default: the shipped pretrained model)")
    p.add_argument("--beam", type=positive_int, default=256, help="games the beam keeps (default 256)")
    p.add_argument("--stages", type=positive_int, default=2, help="stages grown per decision (default 2)")
    p.add_argument("--lead", type=positive_int, default=30, help="decisions the beam runs ahead (default 30)")
    p.add_argument("--lookahead", type=positive_int, default=15, help="guide decisions after each try (default 15)")
    p.add_argument(
        "--click-update",
        type=positive_int,
        default=None,
        help=f"the page update the click lands in (default {DEFAULT_CLICK_UPDATE}: "
        f"{DEFAULT_CLICK_UPDATE / UPDATES_PER_SECOND:g} s after the page loads)",
    )
    p.add_argument("--sincos", choices=["fma", "generic"], default="fma", help="the page's sin/cos (default fma)")
    p.add_argument("--time-limit", type=game_seconds, default=120.0, help="game seconds (default 120)")
    p.add_argument("--out", help="the opening's file (default: a new runs/opening-TIME/opening.npz)")
    p.set_defaults(func=_opening)


def _search_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--updates", type=positive_int, help="budget: game updates to simulate in all (deterministic)")
    p.add_argument("--minutes", type=minutes_float, help="budget: wall-clock minutes (stops after the stage)")
    p.add_argument(
        "--seed",
        type=seed_int,
        default=0,
        help="random seed; the same seed and --updates budget give the same best run",
    )
    p.add_argument("--threads", type=threads_int, help="worker threads (default: all cores) or Ray workers")
    p.add_argument(
        "--guide",
        nargs="?",
        const="",
        metavar="MODEL",
        help="guide the beam by a trained policy's rollouts (default: the shipped guide, "
        "agents/models/qwop_guide.zip); far faster runs than the unguided search",
    )
    p.add_argument("--lookahead", type=positive_int, default=15, help="--guide: decisions of each rollout (default 15)")
    p.add_argument(
        "--beam",
        type=positive_int,
        help="games kept per stage (default 256; with --guide 8, and more once a run has finished; "
        "given with --guide, one beam throughout)",
    )
    p.add_argument(
        "--lines",
        type=positive_int,
        default=1,
        help="lines of search grown side by side in one batch, sharing the best run (default 1); more keep more "
        "Ray workers busy",
    )
    p.add_argument("--children", type=positive_int, default=32, help="copies expanded per kept game (default 32)")
    p.add_argument("--horizon", type=positive_int, default=24, help="updates per stage (default 24)")
    p.add_argument("--time-limit", type=game_seconds, default=100.0, help="game seconds before a line is dropped")
    p.add_argument(
        "--speed-weight",
        type=nonnegative_float,
        default=1.5,
        help="score = distance (m) + this x torso speed (m/s); default 1.5",
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
    p.add_argument(
        "--set",
        nargs="+",
        default=[],
        metavar="NAME=VALUE",
        help="other planner settings (PlannerConfig fields in agents/search/state.py), e.g. per_parent=0 refine_beam=0",
    )
    p.add_argument(
        "--click-update",
        type=positive_int,
        help="start every line from a fresh real-time page's state after a click in this update, not the traces' "
        "start, and save the best run as an opening that qwop play --opening follows (key changes at any update)",
    )
    p.add_argument("--ray", help="run on Ray: a cluster address, or 'local' to start one on this machine")
    p.add_argument("--gif", help="write a GIF of the best run")
    p.add_argument(
        "--out", help="demo file for the best run (default: best_run.npz beside the state; a taken name gets a number)"
    )
    p.set_defaults(func=_plan)


def _search_defaults() -> argparse.Namespace:
    p = OneLineParser()
    _search_arguments(p)
    return p.parse_args([])


def _plan(args: argparse.Namespace) -> int:
    import shlex

    from agents.search.planner import LocalExpander
    from agents.search.run import run_search
    from agents.search.state import (
        PlannerConfig,
        best_run_meta,
        guided_config,
        load_state,
        new_state,
        seed_best_run,
        with_settings,
    )
    from demos.simulate import save_keys_as_demo

    if args.resume:
        defaults = _search_defaults()
        kept = ("seed", "beam", "guide", "lookahead", "lines", "children", "horizon", "time_limit", "speed_weight")
        kept += ("from_run", "set", "click_update")
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
        guide = "" if args.guide is None else (args.guide or str(GUIDE))
        settings = dict(
            lookahead=args.lookahead,
            lines=args.lines,
            children=args.children,
            horizon=args.horizon,
            seed=args.seed,
            time_limit=args.time_limit,
            speed_weight=args.speed_weight,
            click_update=args.click_update or 0,
        )
        if args.click_update is not None and (args.click_update < 2 or args.from_run or args.gif):
            raise UserInputError(
                "--click-update starts from a real-time page's click (update 2 or later); --from-run and --gif "
                "are runs from the traces' start"
            )
        if guide:  # --beam: one beam throughout
            cfg = guided_config(guide, **settings, **({"beam": args.beam, "refine_beam": 0} if args.beam else {}))
        else:
            cfg = PlannerConfig(beam=args.beam or PlannerConfig.beam, **settings)
        cfg = with_settings(cfg, args.set)
        state = new_state(cfg)
        if args.from_run:
            from demos.start_runs import start_run_keys

            check_demo_files([args.from_run], "--from-run")
            t = seed_best_run(state, start_run_keys((args.from_run,))[0])
            print(f"starting from {args.from_run}: finishes in {t:.2f} s")
        check_out_folders(args.state, args.out, args.gif)
        # Without --state: a new run folder, made once the search starts.
        state_path = Path(args.state) if args.state else new_run_folder("search") / "state.npz"
        if state_path.exists():
            raise UserInputError(
                f"{state_path} exists (a search's saved state): resume it with --resume {state_path}, "
                "or choose another --state"
            )
    budget = args.updates
    if args.updates is None and not args.minutes:
        raise UserInputError("give a budget: --updates N (deterministic) or --minutes M")
    if args.ray:
        from agents.search.ray_expander import RayExpander

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
    if state.config.click_update:
        from agents.realtime.opening import Opening

        cfg = state.config
        opening = Opening(cfg.click_update, cfg.sincos, state.best_keys, best_run_meta(state, command))
        path = opening.save(args.out or str(state_path.parent / "opening.npz"))
        print(f"best run: 100 m in {state.best_time_s:.2f} s, saved as an opening ({opening.describe()}): {path}")
        print(f"follow it in real time with: qwop play --opening {path}")
        return 130 if state.stopped_by else 0
    path = save_keys_as_demo(
        state.best_keys, args.out or str(state_path.parent / BEST_RUN), best_run_meta(state, command)
    )
    print(f"best run: 100 m in {state.best_time_s:.2f} s, saved {path}")
    print(f"replay it open-loop in the original with: qwop replay {path} --browser")
    if args.gif:
        from agents.training.evaluate import gif_of_keys

        print(f"GIF: {gif_of_keys(state.best_keys, args.gif)}")
    return 130 if state.stopped_by else 0


def _sample(args: argparse.Namespace) -> int:
    from agents.search.policy_sampling import search
    from agents.training.model_files import check_model_file
    from demos.simulate import save_keys_as_demo

    model = str(check_model_file(args.model or PRETRAINED))
    check_out_folders(args.out)
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
        folder = new_run_folder("sample")
        folder.mkdir(parents=True)
        out = str(folder / BEST_RUN)
    path = save_keys_as_demo(res["keys"], out, {"model": model, "search": True})
    print(f"saved {path}; replay it open-loop in the original with: qwop replay {path} --browser")
    return 0


def _tune_guide(args: argparse.Namespace) -> int:
    from agents.search.guide_tuning import tune_rounds
    from agents.training.model_files import check_model_file

    guide = check_model_file(args.model or PRETRAINED)
    out = Path(args.out) if args.out else new_run_folder("guide")
    last = tune_rounds(
        guide, out, args.rounds, args.updates, args.epochs, args.learning_rate, args.seed, settings=args.set
    )
    print(f"the tuned guide: {last}; search with it: qwop search --guide {last} --updates 20000000")
    return 0


def _improve(args: argparse.Namespace) -> int:
    from agents.search.improved_runs import improved_demos
    from agents.training.model_files import check_model_file

    model = str(check_model_file(args.model or PRETRAINED))
    out = args.out or str(new_run_folder("improved-runs"))
    if Path(out).is_file():
        raise UserInputError(f"qwop improve saves into a folder; {out} is a file (name a folder with --out)")
    files = improved_demos(model, args.runs, out, lookahead=args.lookahead, seed=args.seed)
    if not files:
        print(f"none of the {args.runs} runs finished, nothing saved (try a longer --lookahead)")
        return 0
    print(f"{len(files)} of {args.runs} runs finished and were saved in {out}/; fine-tune on them with")
    recipe = "agents/recipes/finetune.toml"
    print(f"qwop train --config {recipe} --resume MODEL --inject {out} --set 'env.start_runs=[\"{out}\"]'")
    return 0


def _opening(args: argparse.Namespace) -> int:
    from agents.realtime.opening_command import main_opening

    check_out_folders(args.out)
    return main_opening(args, PRETRAINED, Path(args.out) if args.out else new_run_folder("opening") / "opening.npz")
