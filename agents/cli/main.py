"""``qwop``'s parser (each command group adds its own) and its error convention."""

from __future__ import annotations

import argparse

from agents.cli import search, tools, training
from agents.cli.usage import OneLineParser
from agents.exits import user_errors_in_one_line


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="qwop", description="QWOP reinforcement-learning harness")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for group in (training, search, tools):
        group.add_commands(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return user_errors_in_one_line(lambda: args.func(args), safe_point_stops=args.command in ("train", "search"))


__all__ = ["build_parser", "main"]
