"""``qwop``'s parser (each command group adds its own), the extras each command needs, and its
error convention."""

from __future__ import annotations

import argparse

from agents.cli import search, tools, training
from agents.exits import user_errors_in_one_line
from agents.usage import OneLineParser
from sim_env.extras import require_extra


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="qwop", description="QWOP reinforcement-learning harness")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for group in (training, search, tools):
        group.add_commands(sub)
    return ap


# Commands that load or train models (torch, stable-baselines3) and those that drive a browser;
# the rest run on the core install. Options that add a need are in extras_needed.
_TRAIN_COMMANDS = {"train", "eval", "play", "sample", "improve", "tune-guide", "opening"}
_BROWSER_COMMANDS = {"record", "browser-bench"}


def extras_needed(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(extra, what needs it) for a parsed command line, checked before any work starts."""
    cmd, need = f"qwop {args.command}", []
    if args.command in _TRAIN_COMMANDS:
        need.append(("train", cmd))
    for flag in ("guide", "gif", "video"):  # a guide model; drawing (pillow, imageio-ffmpeg)
        if getattr(args, flag, None) is not None:
            need.append(("train", f"{cmd} --{flag}"))
    if args.command in _BROWSER_COMMANDS or getattr(args, "browser", False):
        need.append(("browser", cmd))
    if args.command == "play" and not (args.sim or args.check):
        need.append(("browser", cmd))
    if getattr(args, "ray", None):
        need.append(("scale", f"{cmd} --ray"))
    return need


def _run(args: argparse.Namespace) -> int:
    for extra, what in extras_needed(args):
        require_extra(extra, what)
    return int(args.func(args))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return user_errors_in_one_line(lambda: _run(args), safe_point_stops=args.command in ("train", "search", "opening"))


__all__ = ["build_parser", "extras_needed", "main"]
