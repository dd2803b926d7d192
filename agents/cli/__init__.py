"""The ``qwop`` command: one entry point for the harness's tools (``qwop --help``).

Every mistake a user can make (a missing or damaged file, an impossible value, no game
folder, a browser that cannot start) ends with one line saying what was wrong and what to
do, and exit code 2 (``agents.usage``); a traceback means a bug. Each module here holds one
group of commands, their options and what they do.
"""

from agents.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
