"""``qwop``'s parser (each command group adds its own) and its error convention."""

from __future__ import annotations

import argparse
import sys

from agents.cli import search, tools, training
from agents.cli.usage import OneLineParser
from sim_env.errors import UserInputError, one_line
from sim_env.interrupts import TerminateAsInterrupt


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="qwop", description="QWOP reinforcement-learning harness")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for group in (training, search, tools):
        group.add_commands(sub)
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


__all__ = ["build_parser", "main"]
