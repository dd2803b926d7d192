"""The error every layer raises for a mistake the user can fix (a file, a value).

The message says what was wrong and what to do; the ``qwop`` command prints it on one line
with exit code 2, never a traceback (tracebacks are for bugs; see ``agents.usage``).
"""

from __future__ import annotations


class UserInputError(ValueError):
    """Something the user gave is wrong (a file, a value); the message says what to do."""


def one_line(exc: BaseException | str) -> str:
    """The message on one line (white space folded)."""
    return " ".join(str(exc).split())


__all__ = ["UserInputError", "one_line"]
