"""Ctrl-C and SIGTERM as a request to stop at the next safe point, so long jobs save their work.

A long job (training, a search) checks :meth:`StopRequest.requested` between units of work,
saves what it has and says how to continue. A second signal stops at once (``KeyboardInterrupt``),
for a job stuck where it does not check.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any


class StopRequest:
    """While entered, SIGINT and SIGTERM set :attr:`requested` (the first) or raise
    ``KeyboardInterrupt`` (the second); the previous handlers come back on exit. Outside the
    main thread it does nothing (Python delivers signals there only)."""

    def __init__(self) -> None:
        self.requested = False
        self.signal_name = ""
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        self.signal_name = signal.Signals(signum).name

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread():
            for s in (signal.SIGINT, signal.SIGTERM):
                self._previous[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for s, h in self._previous.items():
            signal.signal(s, h)
        self._previous.clear()


class TerminateAsInterrupt:
    """While entered, SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does, so a command that
    saves its work on Ctrl-C (a recording, an evaluation's finished episodes) does so when it is
    terminated too (``kill``, a closed terminal's job control, a CI timeout)."""

    def __init__(self) -> None:
        self._previous: Any = None

    @staticmethod
    def _handle(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    def __enter__(self) -> TerminateAsInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)
            self._previous = None


__all__ = ["StopRequest", "TerminateAsInterrupt"]
