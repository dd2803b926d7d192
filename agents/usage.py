"""Command-line conventions shared by every command of the harness (``qwop``, ``python -m ...``).

A mistake the user can fix gets one line on stderr that says what was wrong and what to do,
and exit code 2, never a traceback (tracebacks are for bugs): :class:`~sim_env.errors.UserInputError`
is the base of such errors, :class:`OneLineParser` makes argparse's own complaints one line, and
the number types below reject impossible option values (negative, NaN, infinite, huge) before
any work starts. Every number an option takes has one of these types (a test holds to it).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import NoReturn

from sim_env.errors import one_line


class OneLineParser(argparse.ArgumentParser):
    """argparse, with its usage errors on one line (and the --help hint) instead of two."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {one_line(message)} (see {self.prog} --help)\n")


# The largest whole number an option takes: it fits an int64 and a float exactly.
MAX_INT = 2**53


def _number(kind: type, low: float, strict: bool, what: str, high: float = MAX_INT) -> Callable[[str], float]:
    """An argparse type: a finite number of ``kind`` in [low, high] (above ``low`` if ``strict``)."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if not math.isfinite(value) or value < low or (strict and value == low) or value > high:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
        return value

    parse.__name__ = what
    return parse


positive_int = _number(int, 0, True, "a whole number of at least 1")
nonnegative_int = _number(int, 0, False, "a whole number of at least 0")
seed_int = _number(int, 0, False, "a seed: a whole number from 0 to 4294967295", 2**32 - 1)
threads_int = _number(int, 0, True, "a number of threads from 1 to 1024", 1024)
positive_float = _number(float, 0.0, True, "a number greater than 0")
nonnegative_float = _number(float, 0.0, False, "a number of at least 0")
minutes_float = _number(float, 0.0, True, "a number of minutes greater than 0 (at most 1000000)", 1e6)
game_seconds = _number(float, 0.0, True, "a number of game seconds greater than 0 (at most 3600)", 3600.0)


def probability(text: str) -> float:
    """argparse type: a number in [0, 1]."""
    return _number(float, 0.0, False, "a number from 0 to 1", 1.0)(text)
