"""CPU priority for a real-time page and its player, where the system allows it.

A page played in real time runs on its own clock: when the machine is busy with something else
(a training run, a search), the page's renderer and the player that sends its keys wait for the
CPU, records reach the player late and keys land late. Linux shares the CPU first between
*sessions* (the scheduler's autogroups, ``man 7 sched``) and only then between the processes
of a session by their nice values. Chromium starts in a session of its own, so lowering a
background job's nice value (``nice -n 19``) does nothing for it when the job runs from another
terminal.

:class:`RealtimePriority` raises the player's nice value, the nice value of every thread of its
browser (see :meth:`RealtimePriority._raise_threads`), and the autogroup nice of every session
they run in (``/proc/PID/autogroup``), and puts the autogroups back when it ends (they are shared
with the shell the player was started from). Raising a priority needs
``CAP_SYS_NICE`` (root) or a ``RLIMIT_NICE`` that allows it; without, nothing changes and
:attr:`RealtimePriority.refused` says why.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

RAISE_BY = 10  # nice steps: an autogroup at -10 weighs 9548 against a default one's 1024


def _autogroup_file(pid: int) -> Path:
    return Path(f"/proc/{pid}/autogroup")


def read_autogroup(pid: int) -> tuple[str, int] | None:
    """(the autogroup's name, its nice value) of a process, or None where the kernel has none."""
    try:
        name, _, nice = _autogroup_file(pid).read_text().split()
        return name, int(nice)
    except (OSError, ValueError):
        return None


@dataclass
class RealtimePriority:
    """Raises the CPU priority of this process and of the browser it launches (see the module)."""

    enabled: bool = True
    raise_by: int = RAISE_BY
    refused: str | None = None  # why nothing could be raised (None: raised, or not asked)
    process_nice: int | None = None  # this process's nice value after raising it
    _groups: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (a pid in it, nice before)
    _set: dict[int, int] = field(default_factory=dict)  # thread id -> the nice value given it

    def __enter__(self) -> RealtimePriority:
        """Raise this process's nice value (threads and processes started later inherit it)."""
        if self.enabled:
            try:
                self.process_nice = os.nice(-self.raise_by)
            except OSError as e:
                self.refused = f"the player's priority cannot be raised here ({e.strerror}; needs root or CAP_SYS_NICE)"
            else:
                self.cover_children()
        return self

    def cover_children(self) -> None:
        """Raise the autogroup of this process and of each descendant (the browser starts its
        own session; each autogroup once, remembering its nice value to put back), and every
        thread of the descendants. Call it again after the browser opens a page (a new page may
        get a new process)."""
        if not self.enabled or self.refused:
            return
        import psutil

        pids = [os.getpid()]
        with contextlib.suppress(psutil.Error):
            pids += [c.pid for c in psutil.Process().children(recursive=True)]
        for pid in pids:
            group = read_autogroup(pid)
            if group is None or group[0] in self._groups:
                continue
            name, before = group
            try:
                _autogroup_file(pid).write_text(f"{before - self.raise_by}\n")
            except OSError as e:
                if not self._groups:
                    self.refused = f"the session's priority cannot be raised here ({e.strerror})"
                continue
            self._groups[name] = (pid, before)
        for pid in pids[1:]:
            self._raise_threads(pid)

    def _raise_threads(self, pid: int) -> None:
        """Every thread of ``pid`` at least to this process's priority, those Chromium had
        raised itself (its display and input threads) that much further. Chromium gives its
        threads nice values of its own: under load the page's main thread, which runs the
        game's updates, would otherwise wait behind them in the browser's session."""
        target = self.process_nice if self.process_nice is not None else -self.raise_by
        for task in Path(f"/proc/{pid}/task").glob("*"):
            with contextlib.suppress(OSError, ValueError):
                tid = int(task.name)
                nice = os.getpriority(os.PRIO_PROCESS, tid)
                if nice > -self.raise_by and nice != self._set.get(tid):
                    new = max(-20, nice - self.raise_by) if nice < 0 else target
                    os.setpriority(os.PRIO_PROCESS, tid, new)
                    self._set[tid] = new

    @property
    def raised_groups(self) -> int:
        return len(self._groups)

    def describe(self) -> str:
        if not self.enabled:
            return "normal priority (--priority normal)"
        if self.refused:
            return f"normal priority: {self.refused}"
        n = self.raised_groups
        return f"priority raised by {self.raise_by} nice steps ({n} session{'s' if n != 1 else ''})"

    def __exit__(self, *exc: object) -> None:
        """Put back this process's nice value and the autogroups still there."""
        if self.process_nice is not None:
            os.nice(self.raise_by)  # lowering a priority is always allowed
            self.process_nice = None
        for name, (pid, before) in self._groups.items():
            group = read_autogroup(pid)
            if group is not None and group[0] == name:
                with contextlib.suppress(OSError):
                    _autogroup_file(pid).write_text(f"{before}\n")
        self._groups.clear()


__all__ = ["RAISE_BY", "RealtimePriority", "read_autogroup"]
