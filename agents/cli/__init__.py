"""The ``qwop`` command: one entry point for the harness's tools (``qwop --help``).

Every mistake a user can make (a missing or damaged file, an impossible value, no game
folder, a browser that cannot start) ends with one line saying what was wrong and what to
do, and exit code 2 (``agents.usage``); a traceback means a bug. Each module here holds one
group of commands, their options and what they do.

A command's modules are imported inside its function, on purpose: ``qwop --help`` and the
commands of the core install start without the optional extras (torch, a browser, Ray) and
without their seconds of import time; ``agents.cli.main.extras_needed`` names what a command
needs before it runs.
"""

from agents.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
