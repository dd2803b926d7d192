"""The ``qwop`` command: one entry point for the harness's tools.

qwop fetch-game DIR        download the original's files (when online)
qwop browser-bench         lock-step throughput through the browser adapter
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def _fetch_game(args: argparse.Namespace) -> int:
    from browser_env.fetch import fetch_game

    try:
        path = fetch_game(args.dir, base_url=args.url, force=args.force)
    except (ConnectionError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"game files ready in {path}")
    return 0


def _browser_bench(args: argparse.Namespace) -> int:
    from browser_env.bench import main as bench_main

    return bench_main(args.rest)


def _record(args: argparse.Namespace) -> int:
    from demos.record import main_record

    out = args.out or f"recordings/{args.player}.npz"
    return main_record(args.game, out, args.player, args.backend, args.headless)


def _replay(args: argparse.Namespace) -> int:
    from demos.format import DemoFormatError
    from demos.replay import main_replay

    try:
        return main_replay(args.file, args.sim, args.browser, args.game, args.backend, args.video)
    except (DemoFormatError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _demos(args: argparse.Namespace) -> int:
    from demos.inspect import main_demos

    return main_demos(args.action, args.files)


PRETRAINED = Path(__file__).resolve().parent / "models" / "qwop_ppo.zip"
GAME_DEFAULT = "$QWOP_GAME, else ~/.local/share/qwop/game"
GAME_HELP = (
    f"folder with your copy of the original: QWOP.min.js, assetbundle.parcel, howler.js (default: {GAME_DEFAULT})"
)


def _train(args: argparse.Namespace) -> int:
    from agents.config import load_config, to_toml

    overrides = list(args.set or [])
    if args.algo:
        overrides.append(f'algo.name="{args.algo}"')
    if args.minutes is not None:
        overrides.append(f"run.minutes={args.minutes}")
    if args.steps is not None:
        overrides.append(f"run.total_timesteps={args.steps}")
    if args.name:
        overrides.append(f'run.name="{args.name}"')
    if args.pretrain:
        overrides.append("imitation.pretrain=" + repr(_cfg_list(args, "pretrain")).replace("'", '"'))
    if args.inject:
        overrides.append("imitation.inject=" + repr(list(args.inject)).replace("'", '"'))
    try:
        cfg = load_config(args.config, overrides)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.print_config:
        print(to_toml(cfg))
        return 0
    from agents.evaluate import format_report, gif_of_keys
    from agents.train import summarize, train

    summary = train(cfg, resume=args.resume)
    print(summarize(summary))
    print(format_report(summary["eval"]))
    if args.gif:
        path = gif_of_keys(np.array(summary["eval"]["best_keys"], dtype=np.int8), args.gif)
        print(f"GIF of the best evaluation run (drawn from the simulator): {path}")
    return 0


def _cfg_list(args: argparse.Namespace, name: str) -> list[str]:
    return [str(x) for x in getattr(args, name) or []]


def _eval(args: argparse.Namespace) -> int:
    from agents.evaluate import evaluate_browser, evaluate_sim, format_report, gif_of_keys, save_browser_recording

    model = args.model or str(PRETRAINED)
    noise = 0 if args.no_noise else args.start_noise
    if args.browser:
        report, records = evaluate_browser(
            model,
            args.game,
            mode=args.mode,
            backend=args.backend,
            episodes=args.episodes or 3,
            start_noise_updates=noise,
            headless=not args.show,
        )
        print(format_report(report))
        best = int(np.argmax([rec[-1, 4] for _, rec, _ in records]))
        initial, rec, t0 = records[best]
        trace = save_browser_recording(
            rec,
            initial,
            Path(args.trace or "eval_browser.npz"),
            {"source": f"qwop eval --browser ({args.mode})", "model": model},
            t0,
        )
        print(f"demo-format trace of the best episode: {trace} (qwop replay {trace} --sim)")
        if args.gif:
            from demos.format import load_demo
            from demos.replay import write_video

            print(f"GIF: {write_video(load_demo(trace), args.gif, every=2)}")
        return 0
    report = evaluate_sim(model, episodes=args.episodes or 32, start_noise_updates=noise)
    print(format_report(report))
    keys = np.array(report["best_keys"], dtype=np.int8)
    if args.trace:
        from agents.search import save_keys_as_demo

        print(f"trace of the best episode: {save_keys_as_demo(keys, args.trace, {'model': model})}")
    if args.gif:
        print(f"GIF of the best episode: {gif_of_keys(keys, args.gif)}")
    return 0


def _search(args: argparse.Namespace) -> int:
    from agents.search import save_keys_as_demo, search

    res = search(args.model or str(PRETRAINED), episodes=args.episodes, num_envs=args.envs, seed=args.seed)
    fin = "finished 100 m" if res["finished"] else "did not finish"
    print(
        f"best of {res['episodes']} stochastic runs: {res['best_distance_m']:.1f} m in {res['best_time_s']:.2f} s "
        f"({fin}); mean {res['mean_distance_m']:.1f} m"
    )
    path = save_keys_as_demo(res["keys"], args.out, {"model": args.model or str(PRETRAINED), "search": True})
    print(f"saved {path}; replay it open-loop in the original with: qwop replay {path} --browser --game DIR")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="qwop", description="QWOP reinforcement-learning harness")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("train", help="train an agent on the batched simulator")
    p.add_argument("--algo", choices=["ppo", "dqn", "qrdqn", "a2c"])
    p.add_argument("--config", help="TOML config (see --print-config for every parameter)")
    p.add_argument("--set", action="append", metavar="SECTION.KEY=VALUE", help="override one parameter")
    p.add_argument("--minutes", type=float, help="wall-clock budget (instead of run.total_timesteps)")
    p.add_argument("--steps", type=int, help="total env steps")
    p.add_argument("--name", help="run folder name under runs/")
    p.add_argument("--resume", metavar="CHECKPOINT", help="continue from a checkpoint .zip")
    p.add_argument("--pretrain", nargs="+", metavar="DEMO", help="behaviour cloning on these demos first")
    p.add_argument("--inject", nargs="+", metavar="DEMO", help="inject these demos into the replay buffer (dqn/qrdqn)")
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
    p.add_argument("--episodes", type=int)
    p.add_argument("--start-noise", type=int, default=15, help="random start updates per episode (default 15)")
    p.add_argument("--no-noise", action="store_true", help="no random start (all episodes then equal)")
    p.add_argument("--gif", help="write a GIF of the best episode")
    p.add_argument("--trace", help="write the best episode as a demo-format trace")
    p.add_argument("--show", action="store_true", help="show the browser window")
    p.set_defaults(func=_eval)
    p = sub.add_parser("search", help="best key sequence of many stochastic runs, for open-loop replay")
    p.add_argument("model", nargs="?", help="model .zip (default: the shipped pretrained model)")
    p.add_argument("--episodes", type=int, default=256)
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="best_run.npz")
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
    p.add_argument("--browser", action="store_true", help="replay in the browser, lock-step")
    p.add_argument("--game", help=GAME_HELP)
    p.add_argument("--backend", default="playwright", choices=["playwright", "selenium"])
    p.add_argument("--video", help="write the recorded run as .gif (or .mp4 with ffmpeg)")
    p.set_defaults(func=_replay)
    p = sub.add_parser("demos", help="list, describe or validate demo files")
    p.add_argument("action", choices=["list", "info", "validate"])
    p.add_argument("files", nargs="+", help="demo files or folders")
    p.set_defaults(func=_demos)
    p = sub.add_parser("browser-bench", help="browser lock-step throughput (see python -m browser_env.bench -h)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_browser_bench)
    return ap


def _user_error_types() -> tuple[type[BaseException], ...]:
    from browser_env.errors import BrowserHarnessError
    from demos.format import DemoFormatError

    return (BrowserHarnessError, DemoFormatError)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except _user_error_types() as exc:
        # What the user can fix gets one line and exit code 2; anything else is a bug.
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
