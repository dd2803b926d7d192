"""The JavaScript adapter injected into the game page, and the host page it needs.

Files (read with :func:`read`): ``qwop_adapter.js`` (the injected adapter),
``howl_silent.js`` (a silent ``window.Howl``), ``host.html`` (our page that loads the
user's ``QWOP.min.js``), ``standin/`` (an open stand-in game for tests).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# The version lives in the adapter itself; Python checks the page reports the same one.
ADAPTER_VERSION = re.search(r'const VERSION = "([^"]+)"', (ROOT / "qwop_adapter.js").read_text()).group(1)


def read(name: str) -> str:
    """Text of one of the adapter's files."""
    return (ROOT / name).read_text(encoding="utf-8")
