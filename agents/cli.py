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


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="qwop", description="QWOP reinforcement-learning harness")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("fetch-game", help="download QWOP.min.js and assetbundle.parcel into DIR (needs network)")
    p.add_argument("dir")
    p.add_argument("--url", default="https://www.foddy.net/", help="base URL the files are under")
    p.add_argument("--force", action="store_true", help="replace files that are already there")
    p.set_defaults(func=_fetch_game)
    p = sub.add_parser("browser-bench", help="browser lock-step throughput (see python -m browser_env.bench -h)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_browser_bench)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
