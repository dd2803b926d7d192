"""Running the harness's commands as a user does, and checking how they fail."""

from __future__ import annotations

import os
import subprocess
import sys


def qwop(
    *args: str,
    env: dict[str, str] | None = None,
    module: str = "agents.cli",
    cwd: str | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``qwop ARGS`` (or ``python -m MODULE ARGS``) in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def one_line_error(p: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The command failed as a user mistake should: exit 2, one line on stderr, no traceback."""
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr[-2000:]
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]
