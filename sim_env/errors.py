"""The error every layer raises for a mistake the user can fix (a file, a value).

The message says what was wrong and what to do; the ``qwop`` command prints it on one line
with exit code 2, never a traceback (tracebacks are for bugs; see ``agents.usage``).
"""

from __future__ import annotations

from pathlib import Path


class UserInputError(ValueError):
    """Something the user gave is wrong (a file, a value); the message says what to do."""


def one_line(exc: BaseException | str) -> str:
    """The message on one line (white space folded)."""
    return " ".join(str(exc).split())


def check_out_folders(*paths: str | None) -> None:
    """Output files go where the user says, into folders that exist (none is created unasked)
    and can be written; checked before any long work starts."""
    from sim_env.files import check_writable

    for p in paths:
        if p:
            if Path(p).is_dir():
                raise UserInputError(f"{p} is a folder; give a file name for this output")
            check_writable(Path(p).resolve().parent, p)


__all__ = ["UserInputError", "check_out_folders", "one_line"]
