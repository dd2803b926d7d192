"""Commands about the original and its files: ``qwop fetch-game``, ``record``, ``replay``,
``demos``, ``browser-bench``, and ``diverge`` (where the simulator departs from a trace)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agents.cli.common import BACKENDS, GAME_DEFAULT, GAME_HELP
from agents.usage import nonnegative_float
from sim_env.errors import UserInputError
from sim_env.files import check_out_folders, check_plain_name


def add_commands(sub: Any) -> None:
    p = sub.add_parser("fetch-game", help="download the original's files into DIR (needs network)")
    p.add_argument("dir", nargs="?", help=f"where to put them (default: the default game folder, {GAME_DEFAULT})")
    p.add_argument("--url", default="https://www.foddy.net/", help="base URL the files are under")
    p.add_argument("--force", action="store_true", help="replace files that are already there")
    p.set_defaults(func=_fetch_game)
    p = sub.add_parser("record", help="record a person playing in a visible browser")
    p.add_argument("--game", help=GAME_HELP)
    p.add_argument("--out", help="demo file (default recordings/PLAYER.npz; a taken name gets a number)")
    p.add_argument("--player", default="anonymous")
    p.add_argument("--backend", default="playwright", choices=BACKENDS)
    p.add_argument("--headless", action="store_true", help="no window (for scripted players)")
    p.set_defaults(func=_record)
    p = sub.add_parser("replay", help="replay a demo in the simulator or the browser, or draw it")
    p.add_argument("file", help="a demo or trace .npz, or a shipped record's name (guided_seed0_37.87s.npz)")
    p.add_argument("--sim", action="store_true", help="replay in the native simulator (default)")
    p.add_argument("--browser", action="store_true", help="replay in the original in a browser, lock-step")
    p.add_argument("--game", help=GAME_HELP)
    p.add_argument("--backend", default="playwright", choices=BACKENDS)
    p.add_argument("--video", help="write the run as .gif or .mp4 (with --browser: the original's canvas; else drawn)")
    p.add_argument("--show", action="store_true", help="--browser: a visible window at the game's pace, to watch it")
    p.set_defaults(func=_replay)
    p = sub.add_parser("demos", help="list, describe or validate demo files")
    p.add_argument("action", choices=["list", "info", "validate"])
    p.add_argument("files", nargs="+", help="demo files or folders")
    p.set_defaults(func=_demos)
    p = sub.add_parser("browser-bench", help="browser harness throughput (lock-step, one call per step, real-time)")
    p.add_argument("--game", help=GAME_HELP + "; the stand-in page when there is none")
    p.add_argument("--backend", default="playwright", choices=BACKENDS)
    p.add_argument("--quick", action="store_true", help="a short smoke run")
    p.set_defaults(func=_browser_bench)
    p = sub.add_parser(
        "diverge",
        help="where the simulator departs from a reference trace",
        description="Replays a trace of the original in the simulator and prints the first update and quantity "
        "that differ (a part's state column, a flag, the score); with a detail file beside the trace, also the "
        "first engine internal that differs (contacts, joint forces, torques, floor tiles, camera).",
    )
    p.add_argument("trace", help="a trace .npz (keys or session events)")
    p.add_argument(
        "--tolerance", type=nonnegative_float, default=0.0, help="allowed state difference (0 = bit for bit)"
    )
    p.add_argument("--detail", help="detail .json.gz to compare (default: the one beside the trace)")
    p.set_defaults(func=_diverge)


def _fetch_game(args: argparse.Namespace) -> int:
    from browser_env.fetch import fetch_game

    try:
        path = fetch_game(args.dir, base_url=args.url, force=args.force)
    except ConnectionError as exc:
        raise UserInputError(str(exc)) from exc
    print(f"game files ready in {path}")
    return 0


def _browser_bench(args: argparse.Namespace) -> int:
    from agents.bench.browser import main as bench_main

    argv = ["--backend", args.backend, *(["--game", args.game] if args.game else [])]
    return bench_main(argv + (["--quick"] if args.quick else []))


def _record(args: argparse.Namespace) -> int:
    from demos.record import main_record

    check_plain_name(args.player, "--player")  # recordings/PLAYER.npz stays in recordings/
    out = args.out or f"recordings/{args.player}.npz"
    try:
        Path(out).parent.mkdir(parents=True, exist_ok=True)  # a recording's folder is made for it
    except OSError as exc:
        raise UserInputError(f"cannot make the folder of {out} ({exc.strerror}); choose another --out") from None
    check_out_folders(out)  # before the browser starts, not after the recording
    return main_record(args.game, out, args.player, args.backend, args.headless)


def _replay(args: argparse.Namespace) -> int:
    from agents.shipped import RECORDS
    from demos.replay import main_replay

    file = args.file
    if not Path(file).exists() and (RECORDS / Path(file).name).is_file():
        file = str(RECORDS / Path(file).name)  # a shipped record by its name, from any folder
    return main_replay(file, args.sim, args.browser, args.game, args.backend, args.video, args.show)


def _demos(args: argparse.Namespace) -> int:
    from demos.inspect import main_demos

    return main_demos(args.action, args.files)


def _diverge(args: argparse.Namespace) -> int:
    from sim_env.traces import first_detail_divergence, first_divergence, load_detail, load_trace, simulate

    trace = load_trace(args.trace)
    div = first_divergence(trace, simulate(trace), args.tolerance)
    n = len(trace["state"])
    print(
        f"{args.trace}: identical over all {n} updates" if div is None else f"{args.trace}: first divergence at {div}"
    )
    detail_path = Path(args.detail) if args.detail else Path(str(args.trace).removesuffix(".npz") + ".detail.json.gz")
    found = None
    if "keys" in trace and detail_path.is_file():
        found = first_detail_divergence(trace["keys"], load_detail(detail_path))
        if found is None:
            print(f"{detail_path.name}: engine internals identical")
        else:
            t, section, expected, got = found
            print(f"{detail_path.name}: internals differ first at update {t} in {section}")
            print(f"  expected: {json.dumps(expected)[:2000]}")
            print(f"  got:      {json.dumps(got)[:2000]}")
    return 0 if div is None and found is None else 1
