"""The JavaScript adapter injected into the game page, and the host page it needs.

Files (read with :func:`read`): ``qwop_adapter.js`` (the injected adapter),
``howl_silent.js`` (a silent ``window.Howl``), ``host.html`` (our page that loads the
user's ``QWOP.min.js``), ``standin/`` (an open stand-in game for tests).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent
ADAPTER_VERSION = "1.0.0"


def read(name: str) -> str:
    """Text of one of the adapter's files."""
    return (ROOT / name).read_text(encoding="utf-8")
