"""Writing a generated file, or checking that the checked-in copy is what its generator gives
(the ``--check`` of every generator in tools/)."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(path: Path, text: str, check: bool, command: str) -> int:
    """Write ``text`` to ``path``; with ``check``, only compare (exit code 1 if they differ)."""
    if check:
        if path.read_text() != text:
            print(f"{path} is out of date: run {command}", file=sys.stderr)
            return 1
        return 0
    path.write_text(text)
    return 0
