"""Runs ``qwop`` as on an install without some extras (run by the tests, not imported):

    python tests/without_extras.py browser,train,scale -- search --updates 1000

The extras' packages are made unimportable (as if not installed) before the command starts."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    sep = sys.argv.index("--")
    from sim_env.extras import EXTRAS

    missing = set(filter(None, sys.argv[1].split(",")))
    kept = {m for extra, mods in EXTRAS.items() if extra not in missing for m in mods}  # shared ones stay
    for extra in missing:
        for module in set(EXTRAS[extra]) - kept:
            sys.modules[module] = None  # type: ignore[assignment]  # import fails, find_spec says None
    from agents.cli import main

    sys.exit(main(sys.argv[sep + 1 :]))
