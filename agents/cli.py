"""The ``qwop`` command: one entry point for the harness's tools.

qwop fetch-game DIR        download the original's files (when online)
qwop browser-bench         lock-step throughput through the browser adapter
"""

from __future__ import annotations

import argparse
import sys


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

    out = args.out or f"demos/{args.player}.npz"
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


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="qwop", description="QWOP reinforcement-learning harness")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("fetch-game", help="download QWOP.min.js and assetbundle.parcel into DIR (needs network)")
    p.add_argument("dir")
    p.add_argument("--url", default="https://www.foddy.net/", help="base URL the files are under")
    p.add_argument("--force", action="store_true", help="replace files that are already there")
    p.set_defaults(func=_fetch_game)
    p = sub.add_parser("record", help="record a person playing in a visible browser")
    p.add_argument("--game", default="game", help="folder with QWOP.min.js and assetbundle.parcel (default ./game)")
    p.add_argument("--out", help="demo file (default demos/PLAYER.npz; a taken name gets a number)")
    p.add_argument("--player", default="anonymous")
    p.add_argument("--backend", default="playwright", choices=["playwright", "selenium"])
    p.add_argument("--headless", action="store_true", help="no window (for scripted players)")
    p.set_defaults(func=_record)
    p = sub.add_parser("replay", help="replay a demo in the simulator or the browser, or draw it")
    p.add_argument("file")
    p.add_argument("--sim", action="store_true", help="replay in the native simulator (default)")
    p.add_argument("--browser", action="store_true", help="replay in the browser, lock-step")
    p.add_argument("--game", help="game folder for --browser")
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


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
