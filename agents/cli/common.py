"""What several commands share: the game folder's help text, new run folders, demo checks."""

from __future__ import annotations

import time
from pathlib import Path

from browser_env.drivers import BACKENDS
from sim_env.errors import UserInputError

GAME_DEFAULT = "$QWOP_GAME, else ~/.local/share/qwop/game"
GAME_HELP = (
    f"folder with your copy of the original: QWOP.min.js, assetbundle.parcel, howler.js (default: {GAME_DEFAULT})"
)
BEST_RUN = "best_run.npz"  # in a search's run folder unless --out says otherwise


def new_run_folder(kind: str) -> Path:
    """A new folder under runs/ for a command's outputs when the user named none (never the
    current folder itself, where a second run would collide with the first)."""
    base = Path("runs") / f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}"
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def check_demo_files(files: list[str], what: str) -> None:
    """Every demo file exists and reads, before any long work starts."""
    from demos.format import demo_files, load_demo

    for f in demo_files(files):
        if not Path(f).is_file():
            raise UserInputError(f"{what} demo file not found: {f} (qwop demos list DIR shows the demos there)")
        load_demo(f)  # a damaged file fails here, not after the work


__all__ = ["BACKENDS", "BEST_RUN", "GAME_DEFAULT", "GAME_HELP", "check_demo_files", "new_run_folder"]
