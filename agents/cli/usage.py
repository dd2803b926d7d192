"""Command-line conventions shared by every command of the harness (``qwop``, ``python -m ...``).

A mistake the user can fix gets one line on stderr that says what was wrong and what to do,
and exit code 2, never a traceback (tracebacks are for bugs): :class:`~sim_env.errors.UserInputError`
is the base of such errors, :class:`OneLineParser` makes argparse's own complaints one line, and
the ``positive_*`` types reject impossible option values before any work starts.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import NoReturn

from sim_env.errors import UserInputError, one_line


class OneLineParser(argparse.ArgumentParser):
    """argparse, with its usage errors on one line (and the --help hint) instead of two."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {one_line(message)} (see {self.prog} --help)\n")


def _number(kind: type, low: float, strict: bool, what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if value < low or (strict and value == low) or value != value:  # NaN too
            raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
        return value

    parse.__name__ = what
    return parse


positive_int = _number(int, 0, True, "a whole number of at least 1")
nonnegative_int = _number(int, 0, False, "a whole number of at least 0")
positive_float = _number(float, 0.0, True, "a number greater than 0")


def probability(text: str) -> float:
    """argparse type: a number in [0, 1]."""
    value = _number(float, 0.0, False, "a number from 0 to 1")(text)
    if value > 1.0:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text}")
    return value


MainFunction = Callable[..., int]


def report_user_errors(error_types: tuple[type[BaseException], ...] = ()) -> Callable[[MainFunction], MainFunction]:
    """Decorate a ``main``: the given errors (and :class:`UserInputError`) become one line, exit 2."""
    types = (UserInputError, *error_types)

    def wrap(main: Callable[..., int]) -> Callable[..., int]:
        def run(*args: object, **kwargs: object) -> int:
            try:
                return main(*args, **kwargs)
            except types as exc:
                print(f"error: {one_line(exc)}", file=sys.stderr)
                return 2

        run.__doc__, run.__name__ = main.__doc__, main.__name__
        return run

    return wrap
