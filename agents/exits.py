"""How a command ends: one line and exit code 2 for what the user can fix, 130 on Ctrl-C.

``qwop`` and the benchmarks (``python -m agents.bench.*``) run their bodies through
:func:`user_errors_in_one_line`.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable

from sim_env.errors import UserInputError, one_line
from sim_env.extras import extra_of, install_hint
from sim_env.interrupts import TerminateAsInterrupt

# A disk that is full or read-only, or a file the user may not write: one line, not a traceback.
_WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}


def _user_error_types() -> tuple[type[BaseException], ...]:
    # Here, not at the top: every command starts through this module, most never meet a browser.
    from browser_env.errors import BrowserHarnessError, browser_failures
    from demos.format import DemoFormatError

    # A browser that went away (closed, killed) shows itself through the drivers' own errors.
    drivers = tuple(k for k in browser_failures() if k not in (OSError, ConnectionError))
    return (UserInputError, BrowserHarnessError, DemoFormatError, *drivers)


def user_errors_in_one_line(body: Callable[[], int], safe_point_stops: bool = False) -> int:
    """Runs a command's ``body``: what the user can fix gets one line and exit code 2, Ctrl-C
    exit code 130; anything else is a bug and shows its traceback. With ``safe_point_stops``
    the body stops at a safe point on the first signal itself (``train``, ``search``); otherwise
    SIGTERM is taken as Ctrl-C, which the body saves what it has on."""
    try:
        if safe_point_stops:
            return int(body())
        with TerminateAsInterrupt():
            return int(body())
    except _user_error_types() as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional extra that a path needed, past the commands' own checks
        extra = extra_of(exc.name or "")
        if extra is None:
            raise
        print(f"error: this needs the {extra} extra ({exc.name} is missing): {install_hint(extra)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of our output went away (qwop ... | head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except MemoryError:
        print("error: out of memory: choose smaller sizes (envs, beam, episodes, buffer)", file=sys.stderr)
        return 2
    except OSError as exc:
        if exc.errno not in _WRITE_ERRNOS:
            raise
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot write{where}: {exc.strerror}; free space or choose another folder", file=sys.stderr)
        return 2


__all__ = ["user_errors_in_one_line"]
